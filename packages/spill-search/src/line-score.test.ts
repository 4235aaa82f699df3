// lineScore looks at a line's words only for the terms that the line could hold: it must
// give exactly what looking at all of them gives, on any line and any query.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuery, type QueryTerm } from './query.js';
import { lineScore } from './snippet.js';
import { lightStem, tokenSetOf, tokensOf } from './tokens.js';

/** The score from every word of the line: each token and camelCase part, stemmed, in a set. */
function wordScore(line: string, terms: readonly QueryTerm[], weights: readonly number[]): number {
  const set = new Set([...tokenSetOf(line)].map(lightStem));
  let score = 0;
  for (let i = 0; i < terms.length; i += 1) {
    const term = terms[i];
    if (term === undefined) continue;
    const has = term.tokens.length === 1 ? set.has(lightStem(term.tokens[0] ?? '')) : ` ${tokensOf(line).join(' ')} `.includes(` ${term.tokens.join(' ')} `);
    if (has) score += weights[i] ?? 1;
  }
  return score;
}

const WORDS = ['install', 'installed', 'Installing', 'TypeError', 'typeerror', 'json_max_depth', 'JSONParser', 'sha256sum', 'errors', 'error', 'é', 'Résumé', 'ΟΔΟΣ', 'İstanbul', 'ſtraße', '日本', '😀', 'node', 'nodes', 'a', 'depends'];
const text = fc.oneof(
  fc.tuple(fc.array(fc.constantFrom(...WORDS), { maxLength: 10 }), fc.constantFrom(' ', '-', '.', "'", '/', '')).map(([w, sep]) => w.join(sep)),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ maxLength: 60 }),
);

// ASCII lines and queries made of near words (stems, prefixes, suffixes, digits, case), so
// that the scans of an ASCII line meet tokens that almost match at every place.
const PIECES = ['press', 'pressing', 'pres', 'install', 'installs', 'reinstall', 'node', 'nodes', 'no', 'de', 'es', 'ing', 'a', 'ab', 'abc', 'x1', '1x', 'TypeError', 'typeERROR', 'Get', 'type', 'EVP_CIPHER_get_type'];
const ascii = fc
  .array(fc.tuple(fc.constantFrom(...PIECES), fc.constantFrom('', ' ', '  ', '_', '-', '.', '"', '/', '0')), { maxLength: 8 })
  .map((parts) => parts.map(([w, sep]) => w + sep).join(''));

describe('lineScore', () => {
  it('equals the score worked out from the words, for ASCII lines and queries of near words', () => {
    fc.assert(
      fc.property(ascii, ascii, fc.boolean(), (line, q, quoted) => {
        const { terms } = parseQuery(quoted ? `"${q}"` : q);
        const weights = terms.map((_, i) => i + 1);
        expect(lineScore(line, terms, weights)).toBe(wordScore(line, terms, weights));
      }),
      { numRuns: 5000 },
    );
  });

  it('equals the score worked out from the words, for any line and query', () => {
    fc.assert(
      fc.property(text, text, (line, q) => {
        const { terms } = parseQuery(q);
        const weights = terms.map((_, i) => i + 1);
        expect(lineScore(line, terms, weights)).toBe(wordScore(line, terms, weights));
      }),
      { numRuns: 3000 },
    );
  });

  it('equals it on the lines of the quality corpus, for queries made of their words', () => {
    const dir = join(fileURLToPath(new URL('..', import.meta.url)), 'corpus', 'outputs');
    const lines = readdirSync(dir)
      .sort()
      .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').slice(0, 150));
    const words = [...new Set(lines.flatMap((l) => l.match(/[A-Za-z][A-Za-z0-9_]{2,}/g) ?? []))].sort();
    let held = 0;
    let none = 0;
    for (let i = 0; i < 24; i += 1) {
      const q = `${words[(i * 7919) % words.length] ?? 'error'} ${words[(i * 104729) % words.length] ?? 'install'}${i % 3 === 0 ? ' "no such"' : ''}`;
      const { terms } = parseQuery(q);
      const weights = terms.map(() => 1);
      for (const line of lines) {
        const score = lineScore(line, terms, weights);
        expect(score).toBe(wordScore(line, terms, weights));
        if (score > 0) held += 1;
        else none += 1;
      }
    }
    // Both sides of the shortcut were seen.
    expect(held).toBeGreaterThan(0);
    expect(none).toBeGreaterThan(0);
  });
});
