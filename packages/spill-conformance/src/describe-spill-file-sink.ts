import { describe } from 'vitest';
import { resolveFileSinkOptions, type DescribeSpillFileSinkOptions } from './file-sink-options.js';
import type { SpillBackendFixture } from './options.js';
import { describeFileSink } from './suites/file-sink.js';

/**
 * Registers the file-sink conformance tests inside one `describe` named after the backend:
 * the contract of the Node-only `SpillFileSink` of `@spillway/core/file-sink`, for a
 * backend that offers one (`fileSinkOf(backend)` answers it). Run it beside
 * `describeSpillBackend`, which proves the portable contract.
 *
 * It checks that the temporary file stays invisible until publish (the catalog does not
 * list it; with `hooks.listStored` and `hooks.locatorOf`, the reader refuses it by
 * locator), positioned `write` and `read`, `size`, `truncate` (refused after publish),
 * `publish` (the exact size, a locator read back byte for byte, write refused after it with
 * `SPILL_STORAGE_FAILED`), that a failed publish (an aborted signal; with
 * `hooks.breakPublish`, a storage fault) or a close without publish leaves nothing behind,
 * that `close` is idempotent, never rejects and closes the descriptor, that an aborted or
 * malformed open leaves nothing, and that a child process (`sh`) given the descriptor as
 * stdout and stderr writes into the artifact in write order. Node only: it spawns `sh`.
 *
 * @example
 * import { describeSpillFileSink } from '@spillway/conformance/file-sink';
 * import { createLocalBackend } from '@spillway/local';
 *
 * describeSpillFileSink({
 *   name: 'local',
 *   create: () => {
 *     const root = mkdtempSync(join(tmpdir(), 'sink-')); // from node:fs, node:os and node:path
 *     return { backend: createLocalBackend({ root }), root, cleanup: () => rmSync(root, { recursive: true }) };
 *   },
 *   hooks: {
 *     listStored: ({ root }) =>
 *       readdirSync(root, { recursive: true, withFileTypes: true })
 *         .filter((entry) => entry.isFile())
 *         .map((entry) => relative(root, join(entry.parentPath, entry.name))),
 *     locatorOf: (file, { root }) => join(root, file),
 *   },
 * });
 *
 * @throws TypeError when the options are malformed: an unknown option or hook (a typo
 * would otherwise skip tests silently), a hook that is not a function, a missing `name` or
 * `create`, a count that is not a positive integer.
 */
export function describeSpillFileSink<F extends SpillBackendFixture>(options: DescribeSpillFileSinkOptions<F>): void {
  const resolved = resolveFileSinkOptions(options);
  describe(`spill file sink conformance: ${resolved.base.name}`, () => {
    describeFileSink(resolved);
  });
}
