// The index answers a search the same way whichever plan finds its candidates: straight
// from FTS5 when every indexed artifact is in scope, or joined with the chunk rows and
// filtered by artifact when the index also holds other sessions.
import { sessionId, type SpillSearchHit } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSpillSearch } from './index.js';
import { saveText as save } from '@spillway/test-support/save-text';

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'TypeError', 'json_max_depth', 'commit 0123456789abcdef', 'Package: zlib', 'diff --git a/x b/x', 'error', 'errors'];
const line = fc.array(fc.constantFrom(...WORDS), { maxLength: 8 }).map((w) => w.join(' '));
const artifact = fc.array(line, { minLength: 1, maxLength: 700 }).map((lines) => lines.join('\n'));
const query = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));

/** Hits with each locator replaced by the position of its text among the saved ones. */
function comparable(hits: readonly SpillSearchHit[], locators: readonly string[]): unknown[] {
  return hits.map((h) => ({ ...h, locator: locators.indexOf(h.locator) }));
}

describe('candidate plans', () => {
  it('answers a session the same whether or not the index also holds an artifact of another session', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(artifact, { minLength: 1, maxLength: 4 }), fc.array(query, { minLength: 1, maxLength: 4 }), async (texts, queries) => {
        const s = sessionId('mine');
        const alone = createMemoryBackend();
        const shared = createMemoryBackend();
        const alonePaths: string[] = [];
        const sharedPaths: string[] = [];
        for (const t of texts) {
          alonePaths.push(await save(alone, s, t));
          sharedPaths.push(await save(shared, s, t));
        }
        // An empty artifact has a row and no chunks: it changes no BM25 statistic, but a
        // session-scoped search no longer has every indexed artifact in scope.
        await save(shared, sessionId('other'), '');
        const a = createSpillSearch({ reader: alone.reader, catalog: alone.catalog });
        const b = createSpillSearch({ reader: shared.reader, catalog: shared.catalog });
        try {
          expect((await b.refresh()).indexed).toBe(texts.length + 1);
          for (const q of queries) {
            const x = await a.search({ query: q, sessionId: s, maxResults: 10 });
            const y = await b.search({ query: q, sessionId: s, maxResults: 10 });
            expect(comparable(y.hits, sharedPaths)).toEqual(comparable(x.hits, alonePaths));
            expect(y.more).toBe(x.more);
          }
        } finally {
          await a.close();
          await b.close();
        }
      }),
      { numRuns: 25 },
    );
  });
});
