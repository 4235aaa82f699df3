/**
 * For each prefilter trigger (see `rules/`), byte trigrams of which every text the trigger
 * matches holds at least one: the fast prefilter (`trigram-prefilter.ts`) admits the lines
 * that hold one, so it never misses a line the triggers admit. A class is the bytes allowed
 * at its place, as a string of byte values (`'Ee'`, or `'\xe2'` for a UTF-8 lead byte).
 * The bucket only spreads the fingerprints over the SIMD test's eight lanes so that few
 * bytes pass it by chance; `scripts/prefilter-buckets.mjs` chose them on the preview corpus.
 */

/** Every byte: a place a fingerprint does not constrain. */
export const ANY_BYTE = String.fromCharCode(...Array.from({ length: 256 }, (_, b) => b));
const DIGIT = '0123456789';
const LETTER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Three byte classes, tested in one of eight buckets. */
export interface Fingerprint {
  readonly classes: readonly [string, string, string];
  readonly bucket: number;
}

function fp(a: string, b: string, c: string, bucket: number): Fingerprint {
  return { classes: [a, b, c], bucket };
}

/** The fingerprints of each trigger, keyed by the trigger's source. Why each is necessary is beside it. */
export const TRIGGER_FINGERPRINTS: Readonly<Record<string, readonly Fingerprint[]>> = {
  '[Ff]atal|FATAL': [fp('Ff', 'Aa', 'Tt', 3)], // Fat, fat, FAT
  '[Pp]anic|PANIC': [fp('Pp', 'Aa', 'Nn', 5)],
  Segmentation: [fp('S', 'e', 'g', 1)],
  'core dumped': [fp('m', 'p', 'e', 0)],
  '[Aa]bort': [fp('b', 'o', 'r', 2)],
  '[Uu]ncaught': [fp('n', 'c', 'a', 5)],
  '[Uu]nhandled': [fp('n', 'h', 'a', 2)],
  Traceback: [fp('c', 'e', 'b', 5)],
  '"level":60': [fp('"', ':', '56', 0)], // `":6`
  '[Ee]rror|ERROR': [fp('Rr', 'Rr', 'Oo', 6)], // rro, RRO
  'ERR!': [fp('R', 'R', '!', 6)],
  '[Ee]xception': [fp('x', 'c', 'e', 0)],
  '[Ff]ail|FAIL': [fp('Ff', 'Aa', 'Ii', 5)],
  'not ok': [fp('t', ' ', 'o', 4)],
  // ✗ ✕ ✖ are E2 9C 97/95/96 in UTF-8, × is C3 97 (then anything, a line break included).
  '[✗✕✖×]': [fp('\xe2', '\x9c', '\x95\x96\x97', 7), fp('\xc3', '\x97', ANY_BYTE, 1)],
  '"level":50': [fp('"', ':', '56', 0)], // `":5`
  '\\bE\\d{4}\\b': [fp('E', DIGIT, DIGIT, 1)],
  'No such file': [fp('N', 'o', ' ', 2)],
  '[Pp]ermission denied': [fp('e', 'n', 'i', 5)],
  'not found': [fp('f', 'o', 'u', 3)],
  '[Cc]annot ': [fp('n', 'n', 'o', 4)],
  '[Uu]nable to': [fp('Uu', 'n', 'a', 5)],
  '[Aa]ssert': [fp('Aa', 's', 's', 6)],
  '[Ee]xpected': [fp('x', 'p', 'e', 0)],
  '[Rr]eceived': [fp('c', 'e', 'i', 5)],
  '\\x1b\\[3[12]m[-+] ': [fp('\x1b', '[', '3', 6)],
  '^[ \\t]{2,}[-+] {2,}\\S': [fp('-+', ' ', ' ', 2)], // the sign and the two spaces after it
  '^[ \\t]+at ': [fp(' \t', 'a', 't', 3)],
  'File "': [fp('e', ' ', '"', 2)],
  '\\.[A-Za-z]{1,5}[:(]\\d': [fp(LETTER, ':(', DIGIT, 7)], // the extension's last letter, then `:` or `(`, then a digit
  'HTTP\\/\\d(?:\\.\\d)?"? [45]': [fp('T', 'P', '/', 6)],
  '[Ss]tatus(?: code)?[ :=]+[45]': [fp('t', 'u', 's', 6)],
  '" [45]\\d\\d ': [fp('"', ' ', '45', 4)],
  '[Ee]xit': [fp('x', 'i', 't', 3)],
};
