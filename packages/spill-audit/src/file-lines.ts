/**
 * A file's lines, read in large pieces and split on the bytes: node:readline decodes every
 * piece and splits the text by a regular expression, which costs an audit of gigabytes about
 * as much as parsing the lines does.
 */
import { open } from 'node:fs/promises';

/** Bytes read at a time: few reads, and still little memory next to a transcript's lines. */
const PIECE_BYTES = 1 << 20;
const LF = 0x0a;
const CR = 0x0d;

/**
 * The lines of `file`, in order: a batch for each piece read that ends a line, and one for
 * the last line. Lines end as node:readline ends them with `crlfDelay: Infinity`: at `\n`,
 * `\r\n`, or a `\r` alone; a last line without an ending counts, an empty remainder does not. Each line is decoded as UTF-8 on its own
 * (a line is never cut inside a character, since a character's bytes are never `\n`), so a
 * character cut off by the file's end reads as U+FFFD, where node:readline drops it.
 * `onBytes`, when given, is told how many more bytes were read after each read; what it
 * throws ends the reading. Memory is bounded by the longest line.
 *
 * @param pieceBytes - bytes read at a time (tests pass a few, to cut lines across pieces)
 * @throws the file system's error (`ENOENT`, `EACCES`, `EISDIR`…) when the file cannot be opened or read
 */
export async function* fileLines(file: string, onBytes?: (bytes: number) => void, pieceBytes = PIECE_BYTES): AsyncGenerator<string[]> {
  const handle = await open(file, 'r');
  const buffer = pieceBytes === PIECE_BYTES && spareBuffer !== undefined ? spareBuffer : Buffer.allocUnsafe(pieceBytes);
  if (buffer === spareBuffer) spareBuffer = undefined;
  try {
    /** The start of a line not yet ended, copied out of earlier pieces. */
    let pending: Buffer[] = [];
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, pieceBytes, null);
      if (bytesRead === 0) break;
      onBytes?.(bytesRead);
      const piece = buffer.subarray(0, bytesRead);
      const hasCr = piece.indexOf(CR) >= 0;
      const lines: string[] = [];
      let start = 0;
      for (let end = piece.indexOf(LF); end >= 0; end = piece.indexOf(LF, start)) {
        if (pending.length === 0) push(lines, piece.toString('utf8', start, end), hasCr);
        else {
          pending.push(piece.subarray(start, end));
          push(lines, Buffer.concat(pending).toString('utf8'), true);
          pending = [];
        }
        start = end + 1;
      }
      // The buffer is read into again: the unended rest is copied.
      if (start < bytesRead) pending.push(Buffer.from(piece.subarray(start)));
      if (lines.length > 0) yield lines;
    }
    if (pending.length > 0) {
      const lines: string[] = [];
      push(lines, Buffer.concat(pending).toString('utf8'), true);
      if (lines.length > 0) yield lines;
    }
  } finally {
    if (spareBuffer === undefined && buffer.length === PIECE_BYTES) spareBuffer = buffer;
    await handle.close();
  }
}

/**
 * The buffer of a finished reading, for the next: a buffer made for every file is memory
 * outside the heap that a collection frees late, and an audit of hundreds of files on two
 * threads peaked some 15 to 20 MB higher for it. One is kept: files read at the same time take
 * buffers of their own, which are let go.
 */
let spareBuffer: Buffer | undefined;

/** Adds `text`, which ended at `\n` or the file's end, as its lines: a `\r` before the end is dropped, and one elsewhere ends a line. */
function push(lines: string[], text: string, mayHaveCr: boolean): void {
  if (!mayHaveCr || !text.includes('\r')) {
    lines.push(text);
    return;
  }
  const body = text.endsWith('\r') ? text.slice(0, -1) : text;
  for (const line of body.split('\r')) lines.push(line);
}
