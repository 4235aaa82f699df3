/**
 * Case folding for case-insensitive literal grep: text and needle are both folded, then
 * searched with a linear-time matcher, so that no needle (however long and however
 * repetitive) costs more than a pass over the text.
 *
 * The fold agrees with the regex dialect's `ignoreCase` (JavaScript's `iu`, Unicode simple
 * case folding): two code points fold alike exactly when `/a/iu` matches `b`. Each code
 * point folds to one code point of the same UTF-16 length, so a folded text has the same
 * indices as the original: a match found in the folded text is at the same place in the
 * original, and line numbers and match windows need no mapping.
 *
 * No Node imports.
 */

/** Folded BMP code units, computed on first sight (-1: not yet). */
let bmp: Int32Array | undefined;
/** Folded astral code points. */
const astral = new Map<number, number>();

function escapeRegExp(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** Whether `/a/iu` matches `b`: the dialect's own notion of "the same letter". */
function sameLetter(a: string, b: string): boolean {
  return new RegExp(`^${escapeRegExp(a)}$`, 'iu').test(b);
}

/**
 * The fold of one code point: the lower case of its upper case, else its lower case,
 * whichever is one code point of the same UTF-16 length that the dialect takes for the
 * same letter; else the code point itself. (`ı` stays `ı`: its upper case `I` is not the
 * same letter under simple folding; `ſ`, `K` (Kelvin) and `µ` fold with `s`, `k` and `μ`.)
 */
export function foldCodePoint(cp: number): number {
  const c = String.fromCodePoint(cp);
  for (const candidate of [c.toUpperCase().toLowerCase(), c.toLowerCase()]) {
    if (candidate === c) return cp;
    const folded = candidate.codePointAt(0) ?? cp;
    if (candidate.length === c.length && String.fromCodePoint(folded) === candidate && sameLetter(c, candidate)) return folded;
  }
  return cp;
}

function foldUnit(table: Int32Array, unit: number): number {
  let f = table[unit] ?? -1;
  if (f === -1) {
    f = unit >= 0xd800 && unit <= 0xdfff ? unit : foldCodePoint(unit);
    table[unit] = f;
  }
  return f;
}

function foldAstral(cp: number): number {
  let f = astral.get(cp);
  if (f === undefined) {
    f = foldCodePoint(cp);
    astral.set(cp, f);
  }
  return f;
}

// eslint-disable-next-line no-control-regex -- the ASCII range is what is tested
const ASCII_ONLY = /^[\u0000-\u007f]*$/;
/** Code units converted to a string per call (under the engine's argument limit). */
const CHUNK = 8192;

/** `text` folded code point by code point; the same length as `text`, index for index. */
export function foldCase(text: string): string {
  // ASCII folds to its lower case (no non-ASCII letter is the fold of an ASCII one).
  if (ASCII_ONLY.test(text)) return text.toLowerCase();
  const table = (bmp ??= new Int32Array(0x10000).fill(-1));
  const out = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    if (u < 0x80) {
      out[i] = u >= 0x41 && u <= 0x5a ? u + 0x20 : u;
    } else if (u >= 0xd800 && u <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      const cp = foldAstral(((u - 0xd800) << 10) + (text.charCodeAt(i + 1) - 0xdc00) + 0x10000) - 0x10000;
      out[i] = 0xd800 + (cp >> 10);
      out[i + 1] = 0xdc00 + (cp & 0x3ff);
      i++;
    } else {
      out[i] = foldUnit(table, u);
    }
  }
  let folded = '';
  for (let at = 0; at < out.length; at += CHUNK) folded += String.fromCharCode(...out.subarray(at, at + CHUNK));
  return folded;
}
