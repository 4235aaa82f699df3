/**
 * Deterministic plain text for the figures: lines of printable ASCII that look like
 * tool output, so that sizes in bytes equal sizes in UTF-16 code units.
 */

const WORDS = [
  'alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet',
  'kilo', 'lima', 'mike', 'november', 'oscar', 'papa', 'quebec', 'romeo', 'sierra', 'tango',
  'uniform', 'victor', 'whiskey', 'xray', 'yankee', 'zulu', 'build', 'test', 'passed', 'warning',
] as const;

/** Bytes per line of {@link numberedLine}, including the `\n`. */
export const LINE_BYTES = 100;

/** The word sequence of a line depends on `n` modulo this (30 words, then a walk mod 1009). */
const WORD_PERIOD = WORDS.length * 1009;
const wordCache = new Map<number, string>();

/** The words of line `n`: at least a line's worth, cached by their period. */
function wordsOf(n: number): string {
  const key = n % WORD_PERIOD;
  let words = wordCache.get(key);
  if (words === undefined) {
    words = '';
    for (let i = key; words.length < LINE_BYTES; i = (i * 7 + 3) % 1009) words += `${WORDS[i % WORDS.length] ?? ''} `;
    wordCache.set(key, words);
  }
  return words;
}

/**
 * Line `n` (1-based) of a numbered log: the number, an optional marker, then words,
 * cut to exactly {@link LINE_BYTES} bytes including the terminating `\n`. The words vary
 * with `n` so that no two neighbouring lines are equal.
 */
export function numberedLine(n: number, marker = ''): string {
  return `${`${String(n).padStart(9, '0')} ${marker}${wordsOf(n)}`.slice(0, LINE_BYTES - 1)}\n`;
}

/** `bytes` bytes of text made of whole {@link numberedLine}s (the last one cut if needed). */
export function textOfSize(bytes: number, firstLine = 1): string {
  const parts: string[] = [];
  let size = 0;
  for (let n = firstLine; size < bytes; n++) {
    const line = numberedLine(n);
    parts.push(line);
    size += line.length;
  }
  return parts.join('').slice(0, bytes);
}

/**
 * Lines `from`…`to` (inclusive, 1-based) of the numbered log in chunks of about
 * `chunkBytes`, with `marker` placed in the lines `marked` selects.
 */
export function* numberedChunks(
  from: number,
  to: number,
  chunkBytes: number,
  marked: (n: number) => string = () => '',
): Generator<string> {
  const perChunk = Math.max(1, Math.floor(chunkBytes / LINE_BYTES));
  for (let start = from; start <= to; start += perChunk) {
    const end = Math.min(to, start + perChunk - 1);
    let chunk = '';
    for (let n = start; n <= end; n++) chunk += numberedLine(n, marked(n));
    yield chunk;
  }
}

/**
 * A source of `total` bytes of numbered log in `chunkBytes` chunks, for the streaming
 * runs. A few distinct chunks are made here, up front, so that producing them costs
 * nothing during a run; each call of the answer is a new async stream over them (an
 * async source, like a process's stdout, is what real callers stream from).
 */
export function streamedText(total: number, chunkBytes: number): () => AsyncGenerator<string> {
  const pool = Array.from({ length: 8 }, (_, k) => {
    let chunk = '';
    for (let n = 1; chunk.length < chunkBytes; n++) chunk += numberedLine(k * 100_000 + n);
    return chunk.slice(0, chunkBytes);
  });
  // eslint-disable-next-line @typescript-eslint/require-await
  return async function* chunks(): AsyncGenerator<string> {
    let left = total;
    for (let k = 0; left > 0; k++) {
      const chunk = pool[k % pool.length] ?? '';
      const piece = left >= chunk.length ? chunk : chunk.slice(0, left);
      left -= piece.length;
      yield piece;
    }
  };
}
