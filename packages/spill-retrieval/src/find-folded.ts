/**
 * A linear-time substring search (Knuth-Morris-Pratt) for a needle in a string: at most
 * two steps per character of the text, whatever the needle, so that a long repetitive
 * needle (`a…ab…a`) over a long repetitive text costs a pass, not a pass per character.
 * It checks the clock as it goes, so a search over a huge line still stops at the deadline.
 */

/** Finds the needle at or after `from` in `text`, or -1. `tick` is called every few thousand steps; it throws to stop. */
export type FindText = (text: string, from: number, tick?: () => void) => number;

/** Below this length the engine's own `indexOf` is used: its worst case is then a small multiple of a pass. */
const SHORT_NEEDLE = 32;
/** Characters searched between two calls of `tick`. */
const TICK_EVERY = 1 << 16;

/** A {@link FindText} for `needle`. */
export function textFinder(needle: string): FindText {
  const m = needle.length;
  if (m === 0) return (_text, from) => from;
  if (m < SHORT_NEEDLE) {
    return (text, from, tick) => {
      tick?.();
      return text.indexOf(needle, from);
    };
  }
  // fail[j]: the length of the longest proper border of needle[0..j].
  const fail = new Int32Array(m);
  for (let j = 1, k = 0; j < m; j++) {
    while (k > 0 && needle.charCodeAt(j) !== needle.charCodeAt(k)) k = fail[k - 1] ?? 0;
    if (needle.charCodeAt(j) === needle.charCodeAt(k)) k++;
    fail[j] = k;
  }
  return (text, from, tick) => {
    let k = 0;
    let nextTick = from + TICK_EVERY;
    for (let i = from; i < text.length; i++) {
      if (i >= nextTick) {
        tick?.();
        nextTick = i + TICK_EVERY;
      }
      const c = text.charCodeAt(i);
      while (k > 0 && c !== needle.charCodeAt(k)) k = fail[k - 1] ?? 0;
      if (c === needle.charCodeAt(k)) k++;
      if (k === m) return i - m + 1;
    }
    return -1;
  };
}
