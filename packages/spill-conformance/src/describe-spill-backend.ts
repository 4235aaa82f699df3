import { describe } from 'vitest';
import { resolveConformanceOptions, type DescribeSpillBackendOptions, type SpillBackendFixture } from './options.js';
import { describeBytes } from './suites/bytes.js';
import { describeCatalog } from './suites/catalog.js';
import { describeFailedSaves } from './suites/failures.js';
import { describeIsolation } from './suites/isolation.js';
import { describeModel } from './suites/model.js';
import { describeProperties } from './suites/properties.js';
import { describeReader } from './suites/reader.js';
import { describeSaveText } from './suites/save.js';
import { describeSearch } from './suites/search.js';
import { describeSeam } from './suites/seam.js';
import { describeSaveTextStream } from './suites/stream.js';

/**
 * Registers the spillway backend contract as vitest tests, inside one `describe` named
 * after the backend. Call it at the top level of a test file.
 *
 * Every test makes a fresh fixture with `create` and cleans it up afterwards. Tests for
 * an optional capability run only when the backend declares it (`backend.reader`,
 * `backend.catalog`); tests that need a hook the caller did not give are skipped with a
 * note saying which. Failures are reported by error code, never by message. The search
 * tests run over a backend with both, through the `search` option's searcher or, by
 * default, `@spillway/search` when it is installed (skipped with a note when it is not).
 *
 * @example
 * import { describeSpillBackend } from '@spillway/conformance';
 * import { createMemoryBackend } from '@spillway/memory';
 *
 * describeSpillBackend({
 *   name: 'memory',
 *   create: () => ({ backend: createMemoryBackend({ maxBytes: 64 * 1024 * 1024 }) }),
 *   hooks: { maxArtifactBytes: 64 * 1024 * 1024 },
 * });
 *
 * @throws TypeError when the options are malformed (see {@link resolveConformanceOptions}).
 */
export function describeSpillBackend<F extends SpillBackendFixture>(options: DescribeSpillBackendOptions<F>): void {
  const resolved = resolveConformanceOptions(options);
  describe(`spill backend conformance: ${resolved.name}`, () => {
    describeSeam(resolved);
    describeSaveText(resolved);
    describeSaveTextStream(resolved);
    describeFailedSaves(resolved);
    describeIsolation(resolved);
    describeReader(resolved);
    describeCatalog(resolved);
    describeBytes(resolved);
    describeProperties(resolved);
    describeModel(resolved);
    describeSearch(resolved);
  });
}
