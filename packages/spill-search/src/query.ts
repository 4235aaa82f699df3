/**
 * A model's query, read as plain words and quoted phrases. Nothing the model writes is
 * ever FTS5 syntax: every term becomes a quoted string of letter-and-digit tokens, so
 * `NEAR(`, `*`, `^`, `col:` and stray quotes can only ever be words.
 */
import { tokensOf } from './tokens.js';

/** One term of a query: a single token, or a phrase of adjacent tokens. */
export interface QueryTerm {
  /** The tokens, in order (one for a plain word). */
  readonly tokens: readonly string[];
  /** The term as FTS5 reads it: a quoted string. */
  readonly fts: string;
  /** True when the model quoted it or it was one word made of several tokens. */
  readonly phrase: boolean;
}

/** The terms a search looks for, each once. */
export interface ParsedQuery {
  readonly terms: readonly QueryTerm[];
}

/** The most terms one query uses; the rest of a very long query is ignored. */
export const MAX_QUERY_TERMS = 24;

/**
 * Words that carry no meaning for a lookup ("which version of curl is installed"); they
 * are dropped from unquoted text unless nothing else is left.
 */
const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does doing done for from had has have how i if in into ' +
    'is it its me my of on or our so than that the their them then there these they this those to was we were ' +
    'what when where which while who whom whose why will with would you your show find tell give get list use ' +
    'used using there here any some all about me please does should'
  ).split(' '),
);

function term(tokens: readonly string[], quoted: boolean): QueryTerm {
  return { tokens, fts: `"${tokens.join(' ')}"`, phrase: quoted || tokens.length > 1 };
}

/** Reads a query into terms. An empty result means the query holds no word at all. */
export function parseQuery(query: string): ParsedQuery {
  const quoted: string[] = [];
  // Balanced pairs of double quotes are phrases; a quote left over is just a separator.
  const rest = query.replace(/"([^"]*)"/g, (_, inner: string) => {
    quoted.push(inner);
    return ' ';
  });
  const candidates: { tokens: string[]; quoted: boolean }[] = [];
  for (const phrase of quoted) {
    const tokens = tokensOf(phrase);
    if (tokens.length > 0) candidates.push({ tokens, quoted: true });
  }
  const words: { tokens: string[]; quoted: boolean }[] = [];
  for (const word of rest.split(/[\s"]+/)) {
    const tokens = tokensOf(word);
    if (tokens.length > 0) words.push({ tokens, quoted: false });
  }
  const meaningful = words.filter((w) => w.tokens.length > 1 || !STOPWORDS.has(w.tokens[0] ?? ''));
  candidates.push(...(meaningful.length > 0 || candidates.length > 0 ? meaningful : words));
  const seen = new Set<string>();
  const terms: QueryTerm[] = [];
  for (const c of candidates) {
    const t = term(c.tokens, c.quoted);
    if (seen.has(t.fts)) continue;
    seen.add(t.fts);
    terms.push(t);
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  return { terms };
}

/** The FTS5 expression that matches chunks holding any of the terms. */
export function anyOf(terms: readonly QueryTerm[]): string {
  return terms.map((t) => t.fts).join(' OR ');
}

/** The FTS5 expression that matches chunks holding every term. */
export function allOf(terms: readonly QueryTerm[]): string {
  return terms.map((t) => t.fts).join(' AND ');
}
