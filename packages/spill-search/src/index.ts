/**
 * Ranked search across spilled tool results. The index is SQLite FTS5 with BM25 (through
 * `libsql`), derived from any backend's reader and catalog: a cache that is brought up to
 * date on each search and can be deleted and rebuilt at any time.
 *
 * @packageDocumentation
 */
export { createSpillSearch, DEFAULT_MAX_SNIPPET_BYTES, MIN_SEARCH_MAX_BYTES } from './spill-search.js';
export type { SpillSearch, SpillSearchGc, SpillSearchOptions, SpillSearchProgress, SpillSearchRefresh, SpillSearchRefreshOptions } from './spill-search.js';
export { createBackendSearch, defaultIndexLocation, isSearchable } from './backend-search.js';
export type { BackendSearchOptions } from './backend-search.js';
export { indexDirFor, INDEX_FILE_NAME } from './index-file.js';
