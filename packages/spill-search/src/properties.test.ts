// Properties of every answer, over random artifacts and random queries on the memory
// backend: snippets are verbatim ranges of their artifacts at the lines they claim,
// answers stay within their byte bound, a deleted artifact is never answered, and no query
// text (FTS5 operators, quotes, parentheses, any Unicode) makes a search fail.
import { sessionId, type SpillCatalog, type SpillEntry, type SpillLocator } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import { runSpillSearch } from '@spillway/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSpillSearch } from './index.js';
import { saveText as save } from '@spillway/test-support/save-text';
import { expectVerbatim } from './test-search-suite.js';

const WORDS = ['alpha', 'beta', 'gamma', 'TypeError', 'json_max_depth', 'src/a.ts:12', 'commit', 'Package:', 'diff', 'NEAR(', '"', '*', 'é', '日本', '😀'];
const line = fc.oneof(
  fc.array(fc.constantFrom(...WORDS), { maxLength: 12 }).map((w) => w.join(' ')),
  fc.string({ unit: 'grapheme', maxLength: 60 }).map((s) => s.replace(/\n/g, ' ')),
  fc.constantFrom('commit 0123456789abcdef', 'diff --git a/x b/x', 'Package: zlib', `${'long '.repeat(400)}alpha`),
);
const artifact = fc.array(line, { minLength: 1, maxLength: 120 }).map((lines) => lines.join('\n'));
const query = fc.oneof(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map((w) => w.join(' ')), fc.string({ maxLength: 40 }));

describe('search properties', () => {
  it('answers only verbatim ranges at the lines they claim, within the byte budget', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(artifact, { minLength: 1, maxLength: 4 }), query, fc.integer({ min: 64, max: 3000 }), async (texts, q, maxBytes) => {
        const backend = createMemoryBackend();
        const s = sessionId('p');
        for (const t of texts) await save(backend, s, t);
        const search = createSpillSearch({ reader: backend.reader, catalog: backend.catalog });
        try {
          const { hits } = await search.search({ query: q, sessionId: s, maxBytes, maxResults: 10 });
          let used = 0;
          for (const hit of hits) {
            await expectVerbatim(backend, hit);
            used += Buffer.byteLength(hit.text) + (hit.section === undefined ? 0 : Buffer.byteLength(hit.section.text) + 1);
          }
          expect(used).toBeLessThanOrEqual(maxBytes);
        } finally {
          await search.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('never answers a deleted artifact', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), fc.boolean(), async (deleteThese, searchFirst) => {
        const backend = createMemoryBackend();
        const s = sessionId('d');
        const search = createSpillSearch({ reader: backend.reader, catalog: backend.catalog });
        try {
          const locators: SpillLocator[] = [];
          for (let i = 0; i < deleteThese.length; i += 1) locators.push(await save(backend, s, `wombat number ${String(i)}\nmore text\n`));
          if (searchFirst) await search.search({ query: 'wombat', sessionId: s });
          const deleted = new Set<string>();
          for (let i = 0; i < deleteThese.length; i += 1) {
            const locator = locators[i];
            if (deleteThese[i] === true && locator !== undefined) {
              await backend.catalog.delete(locator);
              deleted.add(locator);
            }
          }
          const { hits } = await search.search({ query: 'wombat', sessionId: s, maxResults: 50 });
          for (const h of hits) expect(deleted.has(h.locator)).toBe(false);
          expect(hits.length).toBe(deleteThese.length - deleted.size);
        } finally {
          await search.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('takes any query text as plain words: the search resolves and the tool answers within its bound', async () => {
    const backend = createMemoryBackend();
    const s = sessionId('h');
    await save(backend, s, 'NEAR(alpha beta) * ^ "quoted" body:col {a b} AND OR NOT\nplain words here\n');
    const search = createSpillSearch({ reader: backend.reader, catalog: backend.catalog });
    try {
      const hostile = fc.oneof(
        fc.string({ maxLength: 80 }),
        fc.string({ unit: 'binary', maxLength: 80 }),
        fc.array(fc.constantFrom('NEAR(', ')', '*', '^', '"', ':', 'AND', 'OR', 'NOT', '{', '}', '+', '-', 'body:', 'alpha'), { maxLength: 10 }).map((w) => w.join('')),
      );
      await fc.assert(
        fc.asyncProperty(hostile, fc.integer({ min: 200, max: 4096 }), async (q, maxSearchBytes) => {
          await expect(search.search({ query: q, sessionId: s })).resolves.toBeDefined();
          const answer = await runSpillSearch(search, { query: q }, { sessionId: s, maxSearchBytes });
          expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(maxSearchBytes);
        }),
        { numRuns: 300 },
      );
    } finally {
      await search.close();
    }
  });

  it('answers the same whatever order the catalog lists artifacts saved at different times in', async () => {
    // Equal texts score equally: only a fixed tie order keeps the answer from following the listing.
    const text = fc.constantFrom('alpha beta\ngamma', 'alpha\nbeta gamma alpha', 'TypeError: alpha', 'beta');
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 2, maxLength: 8 }), fc.constantFrom('alpha', 'beta gamma', 'alpha TypeError'), fc.integer(), async (texts, q, seed) => {
        const backend = createMemoryBackend();
        const s = sessionId('o');
        for (const t of texts) await save(backend, s, t);
        // The entries as saved, a second apart (saves of one millisecond keep the listing's order).
        const listed: SpillEntry[] = [];
        for await (const entry of backend.catalog.list({ sessionId: s })) listed.push({ ...entry, createdAt: new Date(Date.UTC(2026, 0, 1) + listed.length * 1000) });
        const listing = (entries: readonly SpillEntry[]): SpillCatalog => ({
          ...backend.catalog,
          list: async function* () {
            await Promise.resolve();
            yield* entries; // all of one session, the one searched
          },
        });
        // The same entries in another order: a rotation, reversed for even seeds.
        const shift = Math.abs(seed) % listed.length;
        const shuffled = [...listed.slice(shift), ...listed.slice(0, shift)];
        if (seed % 2 === 0) shuffled.reverse();
        const answer = async (catalog: SpillCatalog) => {
          const search = createSpillSearch({ reader: backend.reader, catalog });
          try {
            return (await search.search({ query: q, sessionId: s, maxResults: 10 })).hits.map((h) => [h.locator, h.startLine, h.endLine]);
          } finally {
            await search.close();
          }
        };
        expect(await answer(listing(shuffled))).toEqual(await answer(listing(listed)));
      }),
      { numRuns: 40 },
    );
  });
});
