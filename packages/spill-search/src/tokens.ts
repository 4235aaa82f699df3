/**
 * Words as the index sees them. The FTS5 `unicode61` tokenizer splits text into runs of
 * letters and digits, folded to lower case; these helpers reproduce that split in
 * JavaScript, so that a query is made of exactly the tokens the index holds.
 */

/** A run of letters or digits: one `unicode61` token. */
const TOKEN = /[\p{L}\p{N}]+/gu;
/**
 * Where an identifier turns: camelCase (`eE` in `TypeError`, `NP` in `JSONParser`) or
 * between letters and digits (`1n` in `1nodesource1`, `a2` in `sha256sum`).
 */
const CAMEL_TURN = /[a-z0-9][A-Z]|[A-Z][A-Z][a-z]|[A-Za-z][0-9]|[0-9][A-Za-z]/g;
/** Longer runs are not split into parts. */
const MAX_IDENTIFIER_LENGTH = 40;
/** The parts of a camelCase run. */
const CAMEL_PART = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+/g;

/** Whether a UTF-16 code unit is an ASCII letter or digit: a word's, in an ASCII line. */
export function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** The lower-case tokens of a text, in order. */
export function tokensOf(text: string): string[] {
  return (text.match(TOKEN) ?? []).map((t) => t.toLowerCase());
}

/**
 * The parts of every camelCase or letter-and-digit identifier in a text (`type error` for
 * `TypeError`, `nodesource` for `1nodesource1`), lower case, each once. The index appends them to a chunk so that a part matches on its own,
 * while the whole identifier stays one token where it stands.
 */
export function camelPartsOf(text: string): string[] {
  const parts = new Set<string>();
  let doneUpTo = 0;
  CAMEL_TURN.lastIndex = 0;
  for (let m = CAMEL_TURN.exec(text); m !== null; m = CAMEL_TURN.exec(text)) {
    if (m.index < doneUpTo) continue;
    // The whole ASCII identifier around the turn, found by walking out from it (linear,
    // where a regular expression for "a run holding a turn" backtracks).
    let from = m.index;
    while (from > 0 && isWordChar(text.charCodeAt(from - 1))) from -= 1;
    let to = m.index + 2;
    while (to < text.length && isWordChar(text.charCodeAt(to))) to += 1;
    doneUpTo = to;
    CAMEL_TURN.lastIndex = to;
    // A run this long is a hash or an encoded blob, not an identifier: its parts mean nothing.
    if (to - from > MAX_IDENTIFIER_LENGTH) continue;
    for (const part of text.slice(from, to).match(CAMEL_PART) ?? []) if (part.length > 1) parts.add(part.toLowerCase());
  }
  return [...parts];
}

/** Every token of a text, with the parts of its camelCase identifiers. */
export function tokenSetOf(text: string): Set<string> {
  const set = new Set(tokensOf(text));
  for (const part of camelPartsOf(text)) set.add(part);
  return set;
}

/**
 * A light stem for comparing words within a line (`depends` and `depend`, `installed` and
 * `install`); the index itself stems with FTS5's Porter stemmer.
 */
export function lightStem(token: string): string {
  if (token.length <= 4) return token;
  return token.replace(/(?:ing|ed|es|s|ly)$/, '');
}
