// Two searchers of one index file in one process: indexing holds a write transaction while
// it awaits the reader, so the other must wait its turn rather than for the lock.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sessionId } from '@spillway/core';
import { createLocalBackend } from '@spillway/local';
import { afterEach, describe, expect, it } from 'vitest';
import { createBackendSearch } from '@spillway/search';
import { saveText as save } from '@spillway/test-support/save-text';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('one index file, two searchers in one process', () => {
  it('indexes with one while the other searches, and both answer', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'spill-search-shared-'));
    dirs.push(dir);
    const backend = createLocalBackend({ root: path.join(dir, 'spills'), createRoot: true });
    const s = sessionId('shared');
    // Several pages of the indexer's reads, so that its transaction spans awaits.
    const lines = Array.from({ length: 40_000 }, (_, i) => `line ${String(i)} of a long build log with some padding text`);
    lines.push('the wombat is at the very end');
    await save(backend, s, `${lines.join('\n')}\n`);
    const a = await createBackendSearch(backend);
    const b = await createBackendSearch(backend);
    try {
      const [refreshed, found] = await Promise.all([a.refresh({ sessionId: s }), b.search({ query: 'wombat', sessionId: s })]);
      expect(refreshed.indexed).toBe(1);
      expect(found.hits.some((h) => h.text.includes('the wombat is at the very end'))).toBe(true);
      expect((await a.search({ query: 'wombat', sessionId: s })).hits).toHaveLength(1);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
