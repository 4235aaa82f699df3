import { createHash } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { xdgBaseDir } from '@spillway/core/xdg';
import {
  isSpillError,
  type SpillBackend,
  type SpillErrorCode,
  type SpillSearchRequest,
  type SpillSearchResult,
  type SpillSearcher,
} from '@spillway/core';
import { privateCacheDir } from './search-cache-dir.js';
import type { ResolvedStore } from './store.js';

/** Environment variable that turns the on-disk search cache of an object store off (`0`). */
export const SEARCH_CACHE_ENV = 'SPILLWAY_SEARCH_CACHE';

const INDEX_FILE = 'index.sqlite';

/** Where an object store's search index is kept, and whether a cache may be created there. */
export interface SearchIndexPlace {
  /** `':memory:'` or the index file, as named (under the unresolved cache base). */
  readonly location: string;
  /**
   * Makes and checks the cache directories (see {@link privateCacheDir}) before the index is
   * opened; resolves to the file to open (under the real path of the base). A refusal is a
   * `SPILL_UNSAFE_ROOT` `SpillError`.
   */
  prepare(): Promise<string>;
  /** Checks the cache directories without making any: the file to open, or `undefined` when none exists. */
  existing(): Promise<string | undefined>;
}

const inMemory: SearchIndexPlace = {
  location: ':memory:',
  prepare: () => Promise.resolve(':memory:'),
  existing: () => Promise.resolve(undefined),
};

/**
 * The endpoint a store's requests go to, as `openStore` picks it: the index of one
 * endpoint's bucket is never taken for another's.
 */
function endpointOf(env: Readonly<Record<string, string | undefined>>): string {
  return env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL ?? '';
}

/**
 * The per-user cache directory of object-store indexes: `$XDG_CACHE_HOME/spillway/search`,
 * else `~/.cache/spillway/search` (a relative `XDG_CACHE_HOME` is ignored, as the XDG spec asks).
 */
export function searchCacheDir(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return join(cacheBase(env, home), ...CACHE_DIRS);
}

/** The directories spillway keeps under the cache base, outermost first. */
const CACHE_DIRS = ['spillway', 'search'] as const;

function cacheBase(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return xdgBaseDir('cache', env, home);
}

/**
 * Where the index of a store lives for the CLI: a private file in the user's cache
 * directory, one per endpoint, bucket and prefix for `s3://` and one per URL otherwise
 * (`<cache>/<sha256 prefix>/index.sqlite`), so that a second `spillway search` over an
 * unchanged bucket reads nothing but the listing. `SPILLWAY_SEARCH_CACHE=0` or
 * `cache: false` keeps it in memory for the life of the process instead.
 */
export function storeIndexPlace(
  store: ResolvedStore,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  cache = true,
): SearchIndexPlace {
  if (!cache || env[SEARCH_CACHE_ENV] === '0') return inMemory;
  const base = cacheBase(env, home);
  // An S3 store by endpoint, bucket and prefix (as ever, so existing caches stay valid); any other by its URL.
  const identity = store.bucket === undefined ? [store.url] : [endpointOf(env), store.bucket, store.prefix ?? ''];
  const key = createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 32);
  return {
    location: join(base, ...CACHE_DIRS, key, INDEX_FILE),
    // Every directory down to the key's own, checked here: @spillway/search then checks the
    // key's directory again and the file, and opens it by a path nobody else can change.
    prepare: async () => join((await privateCacheDir(base, [...CACHE_DIRS, key], true)) ?? '', INDEX_FILE),
    existing: async () => {
      const dir = await privateCacheDir(base, [...CACHE_DIRS, key], false);
      return dir === undefined ? undefined : join(dir, INDEX_FILE);
    },
  };
}

/** A searcher that can be closed. */
export type ClosableSearcher = SpillSearcher & { close(): Promise<void> };

/**
 * A searcher over a backend that loads `@spillway/search` (and SQLite with it) on its
 * first search, so that a command or a proxy that never searches pays nothing. A backend
 * without a reader and a catalog cannot be searched: `undefined`. `place` says where the
 * index lives (the backend's default when omitted).
 */
export function lazySearcher(backend: SpillBackend, place?: SearchIndexPlace): ClosableSearcher | undefined {
  if (backend.reader === undefined || backend.catalog === undefined) return undefined;
  let made: Promise<ClosableSearcher> | undefined;
  const get = (): Promise<ClosableSearcher> => {
    made ??= (async () => {
      const { createBackendSearch } = await import('@spillway/search');
      if (place === undefined) return createBackendSearch(backend);
      return createBackendSearch(backend, { location: await place.prepare() });
    })();
    made.catch(() => {
      made = undefined;
    });
    return made;
  };
  return {
    search: async (request: SpillSearchRequest): Promise<SpillSearchResult> => (await get()).search(request),
    close: async () => {
      if (made !== undefined) await (await made.catch(() => undefined))?.close();
    },
  };
}

/** What compacting an existing search index did, for `spillway gc`. */
export type IndexGcOutcome =
  | {
      readonly location: string;
      /** Artifacts dropped because the store no longer lists them. */
      readonly removed: number;
      /** Artifacts indexed that were saved since the last search. */
      readonly indexed: number;
      /** The file's size before, with its write-ahead log. */
      readonly bytesBefore: number;
      /** The file's size after compaction. */
      readonly bytesAfter: number;
    }
  | {
      readonly location: string;
      /** Why the index could not be kept up: the index is left as it was. */
      readonly error: { readonly code: SpillErrorCode | undefined; readonly message: string };
    };

async function sizeOf(file: string): Promise<number | undefined> {
  try {
    const st = await lstat(file);
    return st.size;
  } catch {
    return undefined;
  }
}

function failure(location: string, error: unknown): IndexGcOutcome {
  return {
    location,
    error: {
      code: isSpillError(error) ? error.code : undefined,
      message: error instanceof Error ? error.message : String(error),
    },
  };
}

/**
 * Drops from an existing search index what the store no longer lists and compacts it
 * (`SpillSearch.gc`). No index file at `where`, or an index in memory: `undefined`, and
 * nothing is created. An object store's cache (a {@link SearchIndexPlace}) is opened only
 * when its directories pass the checks of `prepare`. A failure is answered, never thrown.
 */
export async function gcSearchIndex(backend: SpillBackend, where: string | SearchIndexPlace, signal?: AbortSignal): Promise<IndexGcOutcome | undefined> {
  if (backend.reader === undefined || backend.catalog === undefined) return undefined;
  let location: string;
  if (typeof where === 'string') location = where;
  else {
    try {
      const found = await where.existing();
      if (found === undefined) return undefined;
      location = found;
    } catch (error) {
      return failure(where.location, error);
    }
  }
  if (location === ':memory:') return undefined;
  const before = await sizeOf(location);
  if (before === undefined) return undefined;
  const wal = (await sizeOf(`${location}-wal`)) ?? 0;
  try {
    const { createBackendSearch } = await import('@spillway/search');
    const searcher = await createBackendSearch(backend, { location });
    try {
      const done = await searcher.gc(signal === undefined ? {} : { signal });
      return { location, removed: done.removed, indexed: done.indexed, bytesBefore: before + wal, bytesAfter: done.bytesAfter };
    } finally {
      await searcher.close();
    }
  } catch (error) {
    return failure(location, error);
  }
}
