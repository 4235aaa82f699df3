// An artifact of a local root rewritten in place while the session's listing version stays:
// the read-back notices, answers none of its chunks, and the next search lists and indexes it
// anew.
import { appendFileSync, chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionId, type ListOptions, type SpillCatalog } from '@spillway/core';
import { createLocalBackend } from '@spillway/local';
import { createSpillSearch } from '@spillway/search';
import { saveText as save } from '@spillway/test-support/save-text';
import { describe, expect, it } from 'vitest';

describe('a local artifact rewritten in place', () => {
  it('answers no chunk of an artifact rewritten in place, and lists and indexes it anew on the next search', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spill-search-version-'));
    chmodSync(dir, 0o700);
    try {
      const backend = createLocalBackend({ root: join(dir, 'root'), createRoot: true });
      const s = sessionId('rewritten');
      const locator = await save(backend, s, 'the disk quota was exceeded\n'.repeat(20));
      let scope = '';
      for await (const entry of backend.catalog.list({ sessionId: s })) scope = entry.session;
      let lists = 0;
      // A version that never moves: only the read-back can notice the rewrite.
      const catalog: SpillCatalog = {
        list: (options?: ListOptions) => {
          lists += 1;
          return backend.catalog.list(options);
        },
        delete: (l, options) => backend.catalog.delete(l, options),
        listingVersion: () => Promise.resolve({ scope, token: 'fixed' }),
      };
      const search = createSpillSearch({ reader: backend.reader, catalog });
      try {
        expect((await search.search({ query: 'disk quota', sessionId: s })).hits.length).toBeGreaterThan(0);
        appendFileSync(locator, 'zebra crossing\n');
        expect((await search.search({ query: 'disk quota', sessionId: s })).hits).toEqual([]);
        expect(lists).toBe(1);
        const again = await search.search({ query: 'zebra', sessionId: s });
        expect(lists).toBe(2);
        expect(again.hits[0]?.text).toContain('zebra crossing');
      } finally {
        await search.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
