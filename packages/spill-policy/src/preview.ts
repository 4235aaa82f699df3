import { utf8ByteLength } from '@spillway/core';
import type { PreviewScan, PreviewScanner } from './scan.js';

/** Separates the preview from the notice. */
export const PREVIEW_SEPARATOR = '\n\n';

/** Bytes a cut may move back to land on a line break. */
export const LINE_WINDOW_BYTES = 256;

/** The explicit marker between head and tail; its bytes count against the budget. */
export function previewMarker(omittedBytes: number): string {
  return `\n… [${String(omittedBytes)} bytes omitted] …\n`;
}

/** Where the head ends: an index into the text, and the UTF-8 bytes before it. */
export interface Cut {
  readonly index: number;
  readonly bytes: number;
}

/**
 * The longest prefix of `text` of at most `budget` UTF-8 bytes that ends on a code point
 * boundary; when a line break ends a prefix no more than a small window shorter, the cut
 * moves back to just after it. Scans only about `budget` code units, so `text` may be a
 * buffer holding just the first `budget + 1` or more code units of a longer text.
 */
export function cutHead(text: string, budget: number): Cut {
  const n = text.length;
  const window = Math.min(LINE_WINDOW_BYTES, Math.floor(budget / 4));
  // Every unit up to the budget is ASCII (a byte each, as the native count shows much faster
  // than the loop below): the cut is where the budget ends, or the line break before it.
  const reach = Math.min(n, budget);
  if (reach > 0 && utf8ByteLength(reach === n ? text : text.slice(0, reach)) === reach) {
    const lineIndex = text.lastIndexOf('\n', reach - 1) + 1;
    return lineIndex > 0 && lineIndex < reach && reach - lineIndex <= window ? { index: lineIndex, bytes: lineIndex } : { index: reach, bytes: reach };
  }
  return cutHeadByUnits(text, budget);
}

/**
 * {@link cutHead} as one loop over every code unit, without its ASCII shortcut: what it
 * does past a non-ASCII unit, and what the shortcut must answer.
 */
export function cutHeadByUnits(text: string, budget: number): Cut {
  const n = text.length;
  const window = Math.min(LINE_WINDOW_BYTES, Math.floor(budget / 4));
  let i = 0;
  let bytes = 0;
  let lineIndex = -1;
  let lineBytes = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    let size: number;
    let units = 1;
    if (c < 0x80) size = 1;
    else if (c < 0x800) size = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && isLow(text.charCodeAt(i + 1))) {
      size = 4;
      units = 2;
    } else size = 3; // BMP, or a lone surrogate (written as U+FFFD)
    if (bytes + size > budget) break;
    bytes += size;
    i += units;
    if (c === 0x0a) {
      lineIndex = i;
      lineBytes = bytes;
    }
  }
  if (lineIndex > 0 && lineIndex < i && bytes - lineBytes <= window) return { index: lineIndex, bytes: lineBytes };
  return { index: i, bytes };
}

/**
 * The longest suffix of `text` of at most `budget` UTF-8 bytes that starts on a code
 * point boundary, moved forward to the start of a line when one begins within a small
 * window. Returns where the suffix starts. Scans only about `budget` code units from the
 * end, so `text` may be a buffer holding just the last `budget + 2` or more code units.
 */
export function cutTail(text: string, budget: number): Cut {
  const n = text.length;
  const window = Math.min(LINE_WINDOW_BYTES, Math.floor(budget / 4));
  // As in cutHead: every unit from the budget's start to the end is ASCII.
  const reach = Math.min(n, budget);
  if (reach > 0 && utf8ByteLength(reach === n ? text : text.slice(n - reach)) === reach) {
    const start = n - reach;
    // The loop below keeps the first line start after `start`, or `start` itself when one begins there.
    if (start > 0 && text.charCodeAt(start - 1) === 0x0a) return { index: start, bytes: reach };
    const lineBreak = text.indexOf('\n', start);
    const lineIndex = lineBreak + 1;
    return lineBreak >= 0 && lineIndex < n && lineIndex - start <= window ? { index: lineIndex, bytes: n - lineIndex } : { index: start, bytes: reach };
  }
  return cutTailByUnits(text, budget);
}

/** {@link cutTail} as one loop over every code unit, without its ASCII shortcut (see {@link cutHeadByUnits}). */
export function cutTailByUnits(text: string, budget: number): Cut {
  const n = text.length;
  const window = Math.min(LINE_WINDOW_BYTES, Math.floor(budget / 4));
  let i = n;
  let bytes = 0;
  let lineIndex = -1;
  let lineBytes = 0;
  while (i > 0) {
    const c = text.charCodeAt(i - 1);
    let size: number;
    let units = 1;
    if (c < 0x80) size = 1;
    else if (c < 0x800) size = 2;
    else if (isLow(c) && i >= 2 && isHigh(text.charCodeAt(i - 2))) {
      size = 4;
      units = 2;
    } else size = 3;
    if (bytes + size > budget) break;
    bytes += size;
    i -= units;
    if (i > 0 && text.charCodeAt(i - 1) === 0x0a) {
      lineIndex = i;
      lineBytes = bytes;
    }
  }
  if (lineIndex >= 0 && lineIndex > i && bytes - lineBytes <= window) return { index: lineIndex, bytes: lineBytes };
  return { index: i, bytes };
}

/**
 * Where the preview comes from. For a whole string both buffers are the string; a stream
 * keeps only the first and last `maxInlineBytes + 2` code units.
 */
export interface PreviewSource {
  /** A prefix of the text (or all of it). */
  readonly head: string;
  /** A suffix of the text (or all of it). */
  readonly tail: string;
  /** The UTF-8 size of the whole text. */
  readonly totalBytes: number;
}

/** A composed replacement. */
export interface Replacement {
  /** What the model sees. */
  readonly text: string;
  /** Bytes of the original shown (head + tail). */
  readonly shownBytes: number;
  /** Bytes of the original not shown: the N in the notice. */
  readonly omittedBytes: number;
}

/**
 * Builds `head + marker + tail + "\n\n" + notice` (or the notice alone when no preview
 * fits) of at most `cap` UTF-8 bytes, or `undefined` when even the notice alone is larger
 * than `cap`. The source must be larger than `cap`.
 *
 * The notice and the marker both state N, the bytes not shown, and N depends on how much
 * the preview shows. The budget is first computed reserving as many digits as the total
 * has (N can never have more); when the resulting N is shorter, the saved digits are
 * given back to the preview and the cut redone, until the digit count is stable. Every
 * round's result fits, so stopping anywhere is safe.
 */
export function composeReplacement(
  source: PreviewSource,
  cap: number,
  previewLimit: number,
  notice: (omittedBytes: number) => string,
): Replacement | undefined {
  const total = source.totalBytes;
  let digits = digitCount(total);
  let best: Replacement | undefined;
  for (;;) {
    const widest = 10 ** digits - 1; // any number with `digits` digits has the same cost
    const noticeBytes = utf8ByteLength(notice(widest));
    if (noticeBytes > cap) return best;
    const markerBytes = utf8ByteLength(previewMarker(widest));
    const budget = Math.min(cap - noticeBytes - PREVIEW_SEPARATOR.length, previewLimit) - markerBytes;
    let candidate: Replacement;
    if (budget <= 0) {
      candidate = { text: notice(total), shownBytes: 0, omittedBytes: total };
    } else {
      const head = cutHead(source.head, Math.ceil(budget / 2));
      const tail = cutTail(source.tail, budget - head.bytes);
      const shown = head.bytes + tail.bytes;
      const omitted = total - shown;
      candidate =
        shown === 0
          ? { text: notice(total), shownBytes: 0, omittedBytes: total }
          : {
              text:
                source.head.slice(0, head.index) +
                previewMarker(omitted) +
                source.tail.slice(tail.index) +
                PREVIEW_SEPARATOR +
                notice(omitted),
              shownBytes: shown,
              omittedBytes: omitted,
            };
    }
    const used = digitCount(candidate.omittedBytes);
    if (used > digits) return best; // cannot happen for a well-formed source; never exceed the cap
    best = candidate;
    if (used === digits) return best;
    digits = used;
  }
}

function digitCount(n: number): number {
  return String(n).length;
}

/** Whether the UTF-16 code unit `c` is the first half of a surrogate pair. */
export function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** Whether the UTF-16 code unit `c` is the second half of a surrogate pair. */
export function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * What a stream keeps for its preview once it spills: the first and last `window` code
 * units, and the scan for salient lines (when the preview has parts). Memory is
 * O(window), however much output passes.
 */
export class PreviewCollector {
  readonly #window: number;
  #headParts: string[] = [];
  #headUnits = 0;
  #tailParts: string[] = [];
  #tailUnits = 0;
  #scanner: PreviewScanner | undefined;

  constructor(window: number, scanner: PreviewScanner | undefined) {
    this.#window = window;
    this.#scanner = scanner;
  }

  /** Code units held. */
  get retainedUnits(): number {
    return this.#headUnits + this.#tailUnits + (this.#scanner?.retainedUnits ?? 0);
  }

  /** Takes everything kept so far at once (the pieces before the spill started). */
  seed(pieces: readonly string[]): void {
    const head = firstUnits(pieces, this.#window);
    this.#headParts = [head];
    this.#headUnits = head.length;
    const tail = lastUnits(pieces, this.#window);
    this.#tailParts = [tail];
    this.#tailUnits = tail.length;
    for (const piece of pieces) this.#scanner?.push(piece);
  }

  /** Takes the next piece. */
  keep(piece: string): void {
    this.#scanner?.push(piece);
    if (this.#headUnits < this.#window) {
      // Collected in parts and joined once full: joining on every small push would cost
      // O(window) per push.
      const need = this.#window - this.#headUnits;
      this.#headParts.push(piece.length <= need ? piece : piece.slice(0, need));
      this.#headUnits += Math.min(need, piece.length);
      if (this.#headUnits >= this.#window) this.#headParts = [firstUnits(this.#headParts, this.#window)];
    }
    this.#tailParts.push(piece);
    this.#tailUnits += piece.length;
    if (this.#tailUnits > 2 * this.#window) {
      // Amortised: compact only when the buffer has doubled.
      const tail = lastUnits(this.#tailParts, this.#window);
      this.#tailParts = [tail];
      this.#tailUnits = tail.length;
    }
  }

  /** The source for the preview; releases the buffers. */
  take(totalBytes: number): PreviewSource & { readonly scan: PreviewScan | undefined } {
    const source = { head: this.#headParts.join(''), tail: this.#tailParts.join(''), totalBytes, scan: this.#scanner?.finish() };
    this.drop();
    return source;
  }

  /** Releases the buffers. */
  drop(): void {
    this.#headParts = [];
    this.#headUnits = 0;
    this.#tailParts = [];
    this.#tailUnits = 0;
    this.#scanner = undefined;
  }
}

/** The first `n` code units of the concatenation of `parts`, copying no more than that. */
function firstUnits(parts: readonly string[], n: number): string {
  const taken: string[] = [];
  let units = 0;
  for (const part of parts) {
    if (units >= n) break;
    const piece = part.length <= n - units ? part : part.slice(0, n - units);
    taken.push(piece);
    units += piece.length;
  }
  return detach(taken.join(''));
}

/** The last `n` code units of the concatenation of `parts`, copying no more than that. */
function lastUnits(parts: readonly string[], n: number): string {
  const taken: string[] = [];
  let units = 0;
  for (let i = parts.length - 1; i >= 0 && units < n; i--) {
    const part = parts[i] as string;
    const piece = part.length <= n - units ? part : part.slice(part.length - (n - units));
    taken.push(piece);
    units += piece.length;
  }
  return detach(taken.reverse().join(''));
}

/**
 * Copies a string that may be a slice of a much larger one. V8 represents a slice as a
 * view that keeps its parent alive, which would defeat the O(window) bound; concatenating
 * and slicing again makes V8 flatten into a fresh string of the slice's own size.
 */
function detach(text: string): string {
  return text.length < 64 ? text : (text + ' ').slice(0, -1);
}
