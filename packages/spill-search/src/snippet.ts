/**
 * Making a snippet from a chunk: the chunk's lines are read back through the backend's
 * reader (the index keeps no text), the line that holds the most of the query is the
 * centre, and lines are added above and below it while the snippet fits its byte cap.
 */
import type { QueryTerm } from './query.js';
import { cutToUtf8Bytes } from '@spillway/core';
import { byteLength, windowAround } from './text.js';
import { camelPartsOf, isWordChar, lightStem, tokensOf } from './tokens.js';

/** A snippet: lines `startLine`..`endLine`, verbatim unless `truncated`. */
export interface Snippet {
  readonly startLine: number;
  readonly endLine: number;
  readonly text: string;
  readonly truncated: boolean;
  /** The line the snippet grew around. */
  readonly bestLine: number;
}

/** How much one line of a snippet shows at most when it is not the centre line. */
const OTHER_LINE_MAX_BYTES = 320;

/** A character outside ASCII, where lower-casing a whole line and one of its words may differ. */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * How well a line covers the query: the summed weights of the terms it holds. A word (a
 * term) is held when the light stem of one of the line's tokens, or of one of the parts of
 * its camelCase identifiers, is the word's; a phrase when its tokens stand in a row among
 * the line's.
 *
 * Worked out lazily, as most lines of a chunk hold few of the terms: in an ASCII line each
 * token and each part, lower-cased, is a substring of the line lower-cased, and contains
 * its own light stem; so a term whose stem (a phrase: whose first token) is not in the line
 * is not held, and the line is not split into tokens for it. The parts are only found for
 * a word that no token holds. In an ASCII line the tokens are not split out at all: each
 * place the stem (the phrase's first token) starts a token is looked at where it stands
 * (see {@link hasStemmedWord} and {@link hasPhrase}).
 */
export function lineScore(line: string, terms: readonly QueryTerm[], weights: readonly number[]): number {
  const lower = NON_ASCII.test(line) ? undefined : line.toLowerCase();
  let tokens: string[] | undefined;
  let stems: Set<string> | undefined;
  let partStems: Set<string> | undefined;
  let joined: string | undefined;
  let score = 0;
  for (let i = 0; i < terms.length; i += 1) {
    const term = terms[i];
    if (term === undefined) continue;
    let has: boolean;
    if (term.tokens.length === 1) {
      const stem = lightStem(term.tokens[0] ?? '');
      if (lower !== undefined && !lower.includes(stem)) has = false;
      else {
        if (lower !== undefined) has = hasStemmedWord(lower, stem);
        else {
          tokens ??= tokensOf(line);
          stems ??= new Set(tokens.map(lightStem));
          has = stems.has(stem);
        }
        has ||= (partStems ??= new Set(camelPartsOf(line).map(lightStem))).has(stem);
      }
    } else if (lower !== undefined) has = lower.includes(term.tokens[0] ?? '') && hasPhrase(lower, term.tokens);
    else {
      tokens ??= tokensOf(line);
      joined ??= ` ${tokens.join(' ')} `;
      has = joined.includes(` ${term.tokens.join(' ')} `);
    }
    if (has) score += weights[i] ?? 1;
  }
  return score;
}

/**
 * Whether a token of an ASCII line, lower-cased (`lower`), has `stem` as its light stem. A
 * light stem is a prefix of its token, so only a token that starts where `stem` is found
 * can have it: tokens are runs of ASCII letters and digits, lower-cased, as `tokensOf` finds
 * them in such a line.
 */
export function hasStemmedWord(lower: string, stem: string): boolean {
  if (stem === '') return false;
  for (let at = lower.indexOf(stem); at >= 0; at = lower.indexOf(stem, at + 1)) {
    if (at > 0 && isWordChar(lower.charCodeAt(at - 1))) continue;
    let end = at + stem.length;
    while (end < lower.length && isWordChar(lower.charCodeAt(end))) end += 1;
    if (lightStem(lower.slice(at, end)) === stem) return true;
  }
  return false;
}

/**
 * Whether `words` stand in a row among the tokens of an ASCII line, lower-cased (`lower`):
 * what joining the line's tokens and the words with spaces and looking for the one in the
 * other finds, which no empty word can be part of.
 */
export function hasPhrase(lower: string, words: readonly string[]): boolean {
  const first = words[0];
  if (first === undefined || words.includes('')) return false;
  for (let at = lower.indexOf(first); at >= 0; at = lower.indexOf(first, at + 1)) {
    if (at > 0 && isWordChar(lower.charCodeAt(at - 1))) continue;
    let p = at;
    for (let j = 0; j < words.length; j += 1) {
      const word = words[j] ?? '';
      if (!lower.startsWith(word, p)) break;
      let end = p + word.length;
      if (end < lower.length && isWordChar(lower.charCodeAt(end))) break;
      if (j === words.length - 1) return true;
      while (end < lower.length && !isWordChar(lower.charCodeAt(end))) end += 1;
      if (end === lower.length) break;
      p = end;
    }
  }
  return false;
}

/** Fields of a line looked at for {@link fieldScore}: names and ids come early in a record. */
const MAX_FIELDS = 48;
/** Punctuation around a field that does not make it another word (`"openssl",` is `openssl`). */
const FIELD_EDGES = /^[\s"'`([{<]+|[\s"'`)\]}>,;:.]+$/g;

/**
 * How much of the query a line holds as whole fields: a term counts when one of the
 * line's whitespace-separated fields, bar the punctuation around it, is exactly that term
 * (`openssl` in `ii  openssl  3.0`, not in `perl-openssl-defaults`), weighted less the
 * later the field comes, since a record names its subject early.
 */
export function fieldScore(line: string, terms: readonly QueryTerm[], weights: readonly number[]): number {
  const fields = line.split(/\s+/, MAX_FIELDS + 1);
  let score = 0;
  for (let i = 0; i < terms.length; i += 1) {
    const want = terms[i]?.tokens.join(' ');
    if (want === undefined || want === '') continue;
    let at = -1;
    for (let j = 0, k = 0; j < fields.length && k < MAX_FIELDS; j += 1) {
      const field = (fields[j] ?? '').replace(FIELD_EDGES, '');
      if (field === '') continue;
      if (tokensOf(field).join(' ') === want) {
        at = k;
        break;
      }
      k += 1;
    }
    if (at >= 0) score += (weights[i] ?? 1) / (1 + at);
  }
  return score;
}

function firstMatchIndex(line: string, terms: readonly QueryTerm[]): number {
  const lower = line.toLowerCase();
  if (lower.length !== line.length) return 0;
  let best = -1;
  for (const term of terms) {
    const at = lower.indexOf(term.tokens[0] ?? '');
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  return Math.max(0, best);
}

/**
 * Grows a snippet in `lines` (numbered from `firstLine`) around the best line among
 * `candidates` (inclusive line numbers), within `maxBytes` of text.
 */
export function growSnippet(
  lines: readonly string[],
  firstLine: number,
  candidates: { readonly from: number; readonly to: number },
  terms: readonly QueryTerm[],
  weights: readonly number[],
  maxBytes: number,
): Snippet | undefined {
  if (lines.length === 0 || maxBytes <= 0) return undefined;
  const lastLine = firstLine + lines.length - 1;
  const from = Math.max(firstLine, candidates.from);
  const to = Math.min(lastLine, candidates.to);
  // None of the chunk's lines was read (a read cut short): there is nothing to show.
  if (from > to) return undefined;
  // The centre: the line that holds the most of the query; of equals, the one that holds
  // it as whole fields (the record that is about the query, not one that mentions it).
  let best = from;
  let bestScore = -1;
  let bestFields = -1;
  for (let n = from; n <= to; n += 1) {
    const line = lines[n - firstLine] ?? '';
    const s = lineScore(line, terms, weights);
    if (s < bestScore || s <= 0) {
      if (bestScore < 0) {
        best = n;
        bestScore = s;
      }
      continue;
    }
    const f = fieldScore(line, terms, weights);
    if (s > bestScore || f > bestFields) {
      best = n;
      bestScore = s;
      bestFields = f;
    }
  }
  const shown = new Map<number, string>();
  let truncated = false;
  const centre = lines[best - firstLine] ?? '';
  let centreText = centre;
  if (byteLength(centre) > maxBytes) {
    centreText = windowAround(centre, firstMatchIndex(centre, terms), maxBytes);
    truncated = true;
  }
  shown.set(best, centreText);
  let used = byteLength(centreText);
  let lo = best;
  let hi = best;
  let up = true;
  let down = true;
  // Alternate above and below; each added line costs its bytes plus one for the `\n`.
  while (up || down) {
    for (const dir of [-1, 1] as const) {
      if ((dir < 0 && !up) || (dir > 0 && !down)) continue;
      const n = dir < 0 ? lo - 1 : hi + 1;
      if (n < firstLine || n > lastLine) {
        if (dir < 0) up = false;
        else down = false;
        continue;
      }
      const raw = lines[n - firstLine] ?? '';
      let text = raw;
      if (byteLength(raw) > OTHER_LINE_MAX_BYTES) text = cutToUtf8Bytes(raw, OTHER_LINE_MAX_BYTES);
      const cost = byteLength(text) + 1;
      if (used + cost > maxBytes) {
        if (dir < 0) up = false;
        else down = false;
        continue;
      }
      if (text !== raw) truncated = true;
      shown.set(n, text);
      used += cost;
      if (dir < 0) lo = n;
      else hi = n;
    }
  }
  const out: string[] = [];
  for (let n = lo; n <= hi; n += 1) out.push(shown.get(n) ?? '');
  return { startLine: lo, endLine: hi, text: out.join('\n'), truncated, bestLine: best };
}
