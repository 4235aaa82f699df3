/**
 * Splits a byte stream into newline-terminated lines in time linear in its size: each
 * chunk is scanned once and a line's pieces are joined once (the SDK's stdio buffer copies
 * everything received so far on every chunk). A line over `maxBytes` is dropped whole and
 * reported, and the stream goes on with the next line.
 */
export class LineSplitter {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private skipping = false;
  private readonly maxBytes: number;
  private readonly onLine: (line: Buffer) => void;
  private readonly onOversize: (size: number) => void;

  /**
   * @param maxBytes - the longest line kept
   * @param onLine - receives each complete line, without its newline
   * @param onOversize - told, once a line, that a line was dropped, with its size so far
   */
  constructor(maxBytes: number, onLine: (line: Buffer) => void, onOversize: (size: number) => void) {
    this.maxBytes = maxBytes;
    this.onLine = onLine;
    this.onOversize = onOversize;
  }

  /** Takes the next chunk. */
  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) {
        this.keep(chunk.subarray(start));
        return;
      }
      this.keep(chunk.subarray(start, newline));
      start = newline + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      const line = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.buffered);
      this.chunks = [];
      this.buffered = 0;
      if (line !== undefined) this.onLine(line);
    }
  }

  /** Forgets a partial line. */
  clear(): void {
    this.chunks = [];
    this.buffered = 0;
  }

  private keep(part: Buffer): void {
    if (this.skipping || part.length === 0) return;
    if (this.buffered + part.length > this.maxBytes) {
      const size = this.buffered + part.length;
      this.clear();
      this.skipping = true;
      this.onOversize(size);
      return;
    }
    this.chunks.push(part);
    this.buffered += part.length;
  }
}

/** A line as text, without a trailing carriage return; `undefined` for a blank line. */
export function lineText(line: Buffer): string | undefined {
  let text = line.toString('utf8');
  if (text.endsWith('\r')) text = text.slice(0, -1);
  return text.trim() === '' ? undefined : text;
}
