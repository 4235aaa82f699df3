import { describe } from 'vitest';
import { resolveConformanceOptions, type DescribeSpillBackendOptions, type SpillBackendFixture } from './options.js';
import { describeSearch } from './suites/search.js';

/**
 * Registers only the search tests of `describeSpillBackend`, inside one `describe` named
 * after the backend: for a searcher's own tests, over backends that prove the rest of the
 * contract elsewhere. Pass the searcher under test as `search`.
 *
 * @example
 * import { describeSpillSearch } from '@spillway/conformance/search';
 * import { createMemoryBackend } from '@spillway/memory';
 * import { createBackendSearch } from '@spillway/search';
 *
 * describeSpillSearch({
 *   name: 'memory',
 *   create: () => ({ backend: createMemoryBackend() }),
 *   search: (backend) => createBackendSearch(backend),
 * });
 *
 * @throws TypeError when the options are malformed (see `resolveConformanceOptions`).
 */
export function describeSpillSearch<F extends SpillBackendFixture>(options: DescribeSpillBackendOptions<F>): void {
  const resolved = resolveConformanceOptions(options);
  describe(`spill search conformance: ${resolved.name}`, () => {
    describeSearch(resolved);
  });
}
