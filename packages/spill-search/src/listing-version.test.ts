// A search over a session whose listing the catalog vouches is unchanged answers from the
// index without listing the session again, the same answer as with a listing.
import { sessionId, type ListOptions, type SpillCatalog, type SpillListingVersion } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import { describe, expect, it } from 'vitest';
import { saveText as save } from '@spillway/test-support/save-text';
import { createSpillSearch } from './index.js';

describe('a session whose listing is unchanged', () => {
  it('is not listed again while its version stays, and is once it moves', async () => {
    const backend = createMemoryBackend();
    const s = sessionId('versioned');
    await save(backend, s, 'alpha beta\nthe disk quota was exceeded\n');
    let lists = 0;
    let version: SpillListingVersion | undefined;
    let scope = '';
    for await (const entry of backend.catalog.list({ sessionId: s })) scope = entry.session;
    const catalog: SpillCatalog = {
      list: (options?: ListOptions) => {
        lists += 1;
        return backend.catalog.list(options);
      },
      delete: (locator, options) => backend.catalog.delete(locator, options),
      listingVersion: () => Promise.resolve(version),
    };
    const search = createSpillSearch({ reader: backend.reader, catalog });
    try {
      // No version: every search lists.
      const plain = await search.search({ query: 'disk quota', sessionId: s });
      await search.search({ query: 'disk quota', sessionId: s });
      expect(lists).toBe(2);

      version = { scope, token: 'v1' };
      expect(await search.search({ query: 'disk quota', sessionId: s })).toEqual(plain);
      expect(lists).toBe(3);
      expect(await search.search({ query: 'disk quota', sessionId: s })).toEqual(plain);
      expect(await search.refresh({ sessionId: s })).toEqual({ indexed: 0, removed: 0, lines: 0, busy: false });
      expect(lists).toBe(3);

      // A new artifact comes with a new version: listed, indexed and answered.
      await save(backend, s, 'gamma\nthe disk quota again\n');
      version = { scope, token: 'v2' };
      const after = await search.search({ query: 'disk quota', sessionId: s });
      expect(lists).toBe(4);
      expect(after.hits).toHaveLength(2);
      expect(await search.search({ query: 'disk quota', sessionId: s })).toEqual(after);
      expect(lists).toBe(4);
    } finally {
      await search.close();
    }
  });
});
