/**
 * `@spillway/local/testing`: the local backend with its file-system calls replaced, for
 * fault-injection and soak tests of code built on it (a harness, retention, an adapter).
 * Wrap {@link nodeFsOps} to fail (`EMFILE`, `ENOSPC`, `EIO`…) or slow down chosen calls
 * and hand the table to {@link createLocalBackendWithFs}. Not for production: the
 * {@link FsOps} table follows the backend's internals and may gain members in any minor
 * release (spread `nodeFsOps` into yours, as below, and it keeps working).
 *
 * @example
 * const slowAndFlaky: FsOps = {
 *   ...nodeFsOps,
 *   write: async (...args) => {
 *     if (Math.random() < 0.01) throw Object.assign(new Error('ENOSPC: injected'), { code: 'ENOSPC' });
 *     return nodeFsOps.write(...args);
 *   },
 * };
 * const backend = createLocalBackendWithFs({ root }, slowAndFlaky);
 *
 * @packageDocumentation
 */
import { createLocalBackendWith } from './backend.js';
import type { LocalBackend, LocalBackendOptions } from './backend.js';
import type { FsOps } from './fs-ops.js';

export type { FsOps } from './fs-ops.js';
export { nodeFsOps } from './fs-ops.js';

/**
 * Creates a local backend, exactly as `createLocalBackend(options)` does, that makes
 * every file-system call through `ops`.
 *
 * @throws TypeError when the options are malformed (as `createLocalBackend`), or when
 * `ops` is not an object.
 */
export function createLocalBackendWithFs(options: LocalBackendOptions | undefined, ops: FsOps): LocalBackend {
  if (typeof ops !== 'object' || (ops as unknown) === null) throw new TypeError('createLocalBackendWithFs needs an FsOps table (spread nodeFsOps into it).');
  return createLocalBackendWith(options, { ops });
}
