/**
 * A searcher for a whole backend, with the index where that backend's data is: next to a
 * local backend's root on disk, in memory for the memory backend and for every other
 * backend (an S3 store, say), where each process keeps its own cache and fills it from
 * the store on its first search.
 */
import path from 'node:path';
import { SpillError } from '@spillway/core';
import type { SpillBackend } from '@spillway/core';
import { INDEX_FILE_NAME, indexDirFor } from './index-file.js';
import { createSpillSearch, type SpillSearch, type SpillSearchOptions } from './spill-search.js';

/** Options for {@link createBackendSearch}. */
export interface BackendSearchOptions extends Omit<SpillSearchOptions, 'reader' | 'catalog' | 'location'> {
  /** Where the index lives, instead of the default for the backend. */
  readonly location?: string;
}

/** True when the backend can be searched: it has a reader and a catalog. */
export function isSearchable(backend: SpillBackend): backend is SpillBackend & Required<Pick<SpillBackend, 'reader' | 'catalog'>> {
  return backend.reader !== undefined && backend.catalog !== undefined;
}

/**
 * The default index location for a backend: `<root>.search/index.sqlite` beside a local
 * backend's root, `':memory:'` otherwise.
 */
export async function defaultIndexLocation(backend: SpillBackend): Promise<string> {
  const root = (backend as { root?: unknown }).root;
  if (backend.name === 'local' && typeof root === 'function') {
    const dir = indexDirFor(await (root as () => Promise<string>).call(backend));
    return path.join(dir, INDEX_FILE_NAME);
  }
  return ':memory:';
}

/**
 * Makes a searcher over a backend that has a reader and a catalog, its index in the
 * default place for that backend unless `location` says otherwise. A backend without
 * them rejects with `SPILL_INVALID_INPUT`.
 */
export async function createBackendSearch(backend: SpillBackend, options: BackendSearchOptions = {}): Promise<SpillSearch> {
  if (!isSearchable(backend)) {
    throw new SpillError('SPILL_INVALID_INPUT', `The ${backend.name} backend cannot be searched: search needs a backend with a reader and a catalog.`);
  }
  const location = options.location ?? (await defaultIndexLocation(backend));
  return createSpillSearch({ ...options, reader: backend.reader, catalog: backend.catalog, location });
}
