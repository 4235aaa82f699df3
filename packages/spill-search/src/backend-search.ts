/**
 * A searcher for a whole backend, with the index where the backend says it belongs (its
 * `indexHome`: beside a local backend's root on disk), else in memory (the memory backend,
 * an S3 store), where each process keeps its own cache and fills it from the store on its
 * first search.
 */
import path from 'node:path';
import { SpillError, assertSpillBackendVersion } from '@spillway/core';
import type { SpillBackend } from '@spillway/core';
import { INDEX_FILE_NAME } from './index-file.js';
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
 * The default index location for a backend: the index file in the directory its
 * `indexHome` answers (`<root>.search/index.sqlite` beside a local backend's root),
 * `':memory:'` when it answers `undefined` or has no `indexHome`.
 *
 * @throws SpillError `SPILL_INVALID_INPUT` for a backend of another specification version
 * (see `assertSpillBackendVersion`); what `indexHome` throws (an unsafe root, say).
 */
export async function defaultIndexLocation(backend: SpillBackend): Promise<string> {
  assertSpillBackendVersion(backend, '@spillway/search');
  const home = await backend.indexHome?.();
  return home === undefined ? ':memory:' : path.join(home, INDEX_FILE_NAME);
}

/**
 * Makes a searcher over a backend that has a reader and a catalog, its index in the
 * default place for that backend (see {@link defaultIndexLocation}) unless `location`
 * says otherwise. A backend without them, or of another specification version, rejects
 * with `SPILL_INVALID_INPUT`.
 */
export async function createBackendSearch(backend: SpillBackend, options: BackendSearchOptions = {}): Promise<SpillSearch> {
  assertSpillBackendVersion(backend, '@spillway/search');
  if (!isSearchable(backend)) {
    throw new SpillError('SPILL_INVALID_INPUT', `The ${backend.name} backend cannot be searched: search needs a backend with a reader and a catalog.`);
  }
  const location = options.location ?? (await defaultIndexLocation(backend));
  return createSpillSearch({ ...options, reader: backend.reader, catalog: backend.catalog, location });
}
