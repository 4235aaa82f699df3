/**
 * Token estimates and distinctive strings: the two measures every figure of an audit
 * rests on.
 */

import { spanHash } from './string-table.js';

const encoder = new TextEncoder();

/** UTF-8 size of `text` in bytes. */
export function utf8Bytes(text: string): number {
  return typeof Buffer === 'undefined' ? encoder.encode(text).length : Buffer.byteLength(text, 'utf8');
}

/**
 * Estimated tokens for `bytes` UTF-8 bytes: one token per 4 bytes, rounded up. The same
 * rule `spillway stats` uses; real tokenizers vary by model and content (code and
 * non-English text take more tokens per byte), so treat the figures as estimates.
 */
export function estimateTokens(bytes: number): number {
  return Math.ceil(bytes / 4);
}

/** The shortest distinctive string, in UTF-16 code units. */
export const MIN_DISTINCTIVE_LENGTH = 6;

// A candidate is a run of letters, digits and the characters paths, ids and versions are
// made of: `[\p{L}\p{N}_./\-@#~+]+`. ASCII is classed by table; other code points by a
// sticky Unicode class, so a surrogate pair is one code point, as a `u` regular expression sees it.
const ASCII_RUN = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-@#~+') ASCII_RUN[c.charCodeAt(0)] = 1;
const OTHER_RUN = /[\p{L}\p{N}]/uy;
const DOT = 0x2e;
const DASH = 0x2d;
const SLASH = 0x2f;
const UNDERSCORE = 0x5f;

/** Code units of the run character at `i`: 0 when there is none. */
function runUnits(text: string, i: number, code: number): number {
  if (code < 128) return ASCII_RUN[code] ?? 0;
  OTHER_RUN.lastIndex = i;
  return OTHER_RUN.test(text) ? OTHER_RUN.lastIndex - i : 0;
}

function isTrimmed(code: number): boolean {
  return code === DOT || code === DASH || code === SLASH;
}

/** Whether `text[from, to)` holds a digit, a slash, a dot or an underscore. */
function hasMark(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0x30 && c <= 0x39) || c === SLASH || c === DOT || c === UNDERSCORE) return true;
  }
  return false;
}

/**
 * The distinctive strings of `text`: runs of letters, digits and `_ . / - @ # ~ +`, with
 * leading and trailing `.`, `-` and `/` removed, at least {@link MIN_DISTINCTIVE_LENGTH}
 * long and holding a digit, a slash, a dot or an underscore. Paths (`src/app.ts`), ids
 * (`req_7f3a9c`), versions (`1.18.33`), hashes and needles (`ERR-4242`) are distinctive;
 * plain words are not, because an agent can write them without having read them.
 * A path also gives its parts that qualify on their own (`src/deep/mod_42.ts` gives
 * `mod_42.ts` too). Stops after `limit` distinct strings.
 */
export function distinctiveStrings(text: string, limit = Number.POSITIVE_INFINITY): Set<string> {
  const found = new Set<string>();
  forEachDistinctive(text, (s) => {
    found.add(s);
    return found.size >= limit;
  });
  return found;
}

/**
 * Calls `take` with each distinctive string of `text[rangeStart, rangeEnd)` in order (a path, then its
 * parts; repeats included), and where the run it comes from starts after trimming (the same
 * for a path and its parts), until it answers `true`. One pass over the text, and a string is
 * cut out of it only when it qualifies. `rangeStart` must not be inside a run, and
 * `rangeEnd` must be the text's end or just after a line break, for the strings to be the text's own.
 * Answers where it stopped: just after the run `take` stopped at, else `rangeEnd`.
 */
export function forEachDistinctive(text: string, take: (s: string, at: number) => boolean, rangeStart = 0, rangeEnd = text.length): number {
  return forEachDistinctiveSpan(text, (start, end, _hash, at) => take(text.slice(start, end), at), rangeStart, rangeEnd);
}

/**
 * {@link forEachDistinctive} without cutting: `take` gets each string as `text[start, end)`
 * with its {@link spanHash}, so a caller that only looks strings up allocates nothing.
 */
export function forEachDistinctiveSpan(text: string, take: (start: number, end: number, hash: number, at: number) => boolean, rangeStart = 0, rangeEnd = text.length): number {
  const n = rangeEnd;
  let i = rangeStart;
  while (i < n) {
    let units = runUnits(text, i, text.charCodeAt(i));
    if (units === 0) {
      i++;
      continue;
    }
    const runStart = i;
    while (units > 0) {
      i += units;
      units = i < n ? runUnits(text, i, text.charCodeAt(i)) : 0;
    }
    let start = runStart;
    let end = i;
    while (start < end && isTrimmed(text.charCodeAt(start))) start++;
    while (end > start && isTrimmed(text.charCodeAt(end - 1))) end--;
    // A part is no longer than its path: a path too short gives nothing.
    if (end - start < MIN_DISTINCTIVE_LENGTH) continue;
    if (hasMark(text, start, end) && take(start, end, spanHash(text, start, end), start)) return i;
    for (let from = start, first = true; from < end; first = false) {
      let to = from;
      while (to < end && text.charCodeAt(to) !== SLASH) to++;
      if (first && to === end) break; // not a path
      let a = from;
      let b = to;
      while (a < b && isTrimmed(text.charCodeAt(a))) a++;
      while (b > a && isTrimmed(text.charCodeAt(b - 1))) b--;
      if (b - a >= MIN_DISTINCTIVE_LENGTH && hasMark(text, a, b) && take(a, b, spanHash(text, a, b), start)) return i;
      from = to + 1;
    }
  }
  return n;
}
