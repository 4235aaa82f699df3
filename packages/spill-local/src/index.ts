/**
 * `@spillway/local`: the hardened private-file spillway backend. Content lands in
 * owner-only files at `<root>/session-<h>/<random>-<safe-name>`, created exclusively
 * without following symlinks, written in full, checked after the open and published
 * atomically with a no-clobber hard link. The reader and catalog treat every locator as
 * untrusted input.
 *
 * @packageDocumentation
 */
export { createLocalBackend, defaultLocalRoot, DEFAULT_MAX_OPEN_FILES, MIN_MAX_OPEN_FILES } from './backend.js';
export type { LocalBackend, LocalBackendOptions, LocalCatalog, LocalFileSink } from './backend.js';
export { LOCAL_RETRIEVAL_HINT } from './save.js';
export { localRootOf } from './locator-root.js';
