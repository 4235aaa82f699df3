// The index answers a search the same way whichever plan finds its candidates: straight
// from FTS5 when every indexed artifact is in scope, or joined with the chunk rows and
// filtered by artifact when the index also holds other sessions.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sessionId, type SpillLocator, type SpillSearchHit } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from './database.js';
import { createSpillSearch } from './index.js';
import { prepareSearchStatements } from './search-statements.js';
import { createRankingSource } from './search-source.js';
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

describe('the chunk count', () => {
  it('is the number of chunk rows after artifacts are indexed, dropped and indexed again', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'spill-search-count-'));
    try {
      let round = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(artifact, { minLength: 1, maxLength: 5 }), fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }), async (texts, dropped) => {
          const location = path.join(dir, `index-${String((round += 1))}.sqlite`);
          const backend = createMemoryBackend();
          const s = sessionId('mine');
          const locators: SpillLocator[] = [];
          for (const t of texts) locators.push(await save(backend, s, t));
          const search = createSpillSearch({ reader: backend.reader, catalog: backend.catalog, location });
          try {
            await search.refresh();
            // Some artifacts leave the store and the index; one more comes in.
            for (const [i, locator] of locators.entries()) if (dropped[i] === true) await backend.catalog.delete(locator);
            await save(backend, s, 'alpha beta\ngamma delta');
            await search.search({ query: 'alpha beta', sessionId: s });
          } finally {
            await search.close();
          }
          const db = await openDatabase(location);
          try {
            const st = prepareSearchStatements(db);
            const source = createRankingSource({ db, st, inScope: new Map(), memo: {}, lines: () => Promise.resolve(null) });
            const counted = (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
            expect(counted).toBeGreaterThan(0);
            expect(source.chunkCount()).toBe(counted);
          } finally {
            closeDatabase(db);
          }
        }),
        { numRuns: 15 },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is counted on an index made before the artifacts kept it, and kept from then on', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'spill-search-count-'));
    const location = path.join(dir, 'index.sqlite');
    const backend = createMemoryBackend();
    const s = sessionId('mine');
    const counts = async (): Promise<{ kept: number | null; counted: number; chunkCount: number }> => {
      const db = await openDatabase(location);
      try {
        const st = prepareSearchStatements(db);
        return {
          kept: (st.keptChunkCount.get() as { n: number | null }).n,
          counted: (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n,
          chunkCount: createRankingSource({ db, st, inScope: new Map(), memo: {}, lines: () => Promise.resolve(null) }).chunkCount(),
        };
      } finally {
        closeDatabase(db);
      }
    };
    const lines = (word: string, n: number): string => Array.from({ length: n }, (_, i) => `${word} ${String(i)}`).join('\n');
    try {
      const first = await save(backend, s, lines('alpha', 100));
      let search = createSpillSearch({ reader: backend.reader, catalog: backend.catalog, location });
      await search.refresh();
      await search.close();
      // As an index made before artifact rows kept their chunk count, with one chunk fewer.
      const old = await openDatabase(location);
      old.exec('ALTER TABLE artifacts DROP COLUMN chunks;');
      old.prepare('DELETE FROM chunks WHERE id = (SELECT max(id) FROM chunks)').run();
      closeDatabase(old);
      const before = await counts();
      expect(before.counted).toBeGreaterThan(1);
      expect(before.kept).toBe(before.counted);
      // A row written by a process that keeps no count: counted again, while it is not finished.
      const other = await openDatabase(location);
      other.prepare("INSERT INTO artifacts (locator, session, bytes, created, complete) VALUES ('elsewhere', 'x', 1, 0, 0)").run();
      const row = (other.prepare("SELECT id FROM artifacts WHERE locator = 'elsewhere'").get() as { id: number }).id;
      other.prepare('INSERT INTO chunks (artifact, start_line, end_line) VALUES (?, 1, 1)').run(row);
      other.prepare('UPDATE artifacts SET chunks = NULL').run();
      closeDatabase(other);
      const unfinished = await counts();
      expect(unfinished.kept).toBeNull();
      expect(unfinished.chunkCount).toBe(before.counted + 1);
      await backend.catalog.delete(first);
      await save(backend, s, lines('beta', 60));
      search = createSpillSearch({ reader: backend.reader, catalog: backend.catalog, location });
      expect((await search.refresh()).removed).toBe(2);
      await search.close();
      const after = await counts();
      expect(after.counted).toBeGreaterThan(0);
      expect(after.counted).not.toBe(before.counted);
      expect(after.kept).toBe(after.counted);
      expect(after.chunkCount).toBe(after.counted);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
