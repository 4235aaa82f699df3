// Where an object store's search index is cached: one private file per endpoint, bucket
// and prefix, under $XDG_CACHE_HOME (absolute only) or ~/.cache, or none when turned off.
import { describe, expect, it } from 'vitest';
import { searchCacheDir, storeIndexPlace } from './search-support.js';
import type { ResolvedStore } from './store.js';

const store = (bucket: string, prefix: string): ResolvedStore => ({ url: `s3://${bucket}/${prefix}`, bucket, prefix, source: 'option' });

describe('storeIndexPlace', () => {
  it('keys the cache file by endpoint, bucket and prefix', () => {
    const at = (s: ResolvedStore, env: Record<string, string> = {}) => storeIndexPlace(s, { XDG_CACHE_HOME: '/c', ...env }, '/home/u').location;
    const base = at(store('b', 'p'));
    expect(base).toMatch(/^\/c\/spillway\/search\/[0-9a-f]{32}\/index\.sqlite$/);
    expect(at(store('b', 'p'))).toBe(base);
    expect(new Set([base, at(store('b', 'q')), at(store('c', 'p')), at(store('b', 'p'), { AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000' })]).size).toBe(4);
    // The bucket and prefix cannot run together into another store's key.
    expect(at(store('ab', 'c'))).not.toBe(at(store('a', 'bc')));
  });

  it('uses ~/.cache unless XDG_CACHE_HOME is absolute, and memory when turned off', () => {
    expect(searchCacheDir({}, '/home/u')).toBe('/home/u/.cache/spillway/search');
    expect(searchCacheDir({ XDG_CACHE_HOME: 'relative' }, '/home/u')).toBe('/home/u/.cache/spillway/search');
    expect(storeIndexPlace(store('b', 'p'), { SPILLWAY_SEARCH_CACHE: '0' }, '/home/u').location).toBe(':memory:');
    expect(storeIndexPlace(store('b', 'p'), {}, '/home/u', false).location).toBe(':memory:');
  });
});
