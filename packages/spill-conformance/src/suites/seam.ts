import { SPILL_BACKEND_SPECIFICATION_VERSION } from '@spillway/core';
import { describe } from 'vitest';
import { fail } from '../harness.js';
import type { ResolvedConformanceOptions, SpillBackendFixture } from '../options.js';
import { testDefiner } from './define-test.js';

/**
 * Registers the tests of the seam itself: the specification version every consumer checks,
 * and the answer of the optional `indexHome` that search asks instead of guessing.
 */
export function describeSeam<F extends SpillBackendFixture>(options: ResolvedConformanceOptions<F>): void {
  const test = testDefiner(options);
  describe('seam', () => {
    test(`declares specificationVersion '${SPILL_BACKEND_SPECIFICATION_VERSION}'`, async (h) => {
      await Promise.resolve();
      const version = (h.backend as { specificationVersion?: unknown }).specificationVersion;
      if (version !== SPILL_BACKEND_SPECIFICATION_VERSION) {
        fail(`specificationVersion is ${version === undefined ? 'missing' : JSON.stringify(version)}; declare specificationVersion: '${SPILL_BACKEND_SPECIFICATION_VERSION}' on the backend object`);
      }
    });

    test('answers indexHome, when it has it, with a non-empty path or undefined, the same each time', async (h) => {
      const indexHome = (h.backend as { indexHome?: unknown }).indexHome;
      if (indexHome === undefined) return;
      if (typeof indexHome !== 'function') fail(`indexHome is a ${typeof indexHome}; it must be a method or absent`);
      const ask = (): Promise<unknown> => (indexHome as () => Promise<unknown>).call(h.backend);
      const first = await ask();
      if (first !== undefined && (typeof first !== 'string' || first === '')) fail(`indexHome answered ${JSON.stringify(first)}; answer a non-empty path or undefined`);
      // Saving must not move the index: a searcher opened before a save finds it after.
      await h.save('moves nothing\n');
      const second = await ask();
      if (second !== first) fail(`indexHome answered ${JSON.stringify(first)}, then ${JSON.stringify(second)} after a save; the answer must be stable`);
      if (typeof first === 'string') {
        for await (const entry of h.backend.catalog?.list() ?? []) {
          if (entry.locator === first || entry.locator.startsWith(`${first}/`)) fail(`the artifact ${entry.locator} lies inside indexHome ${first}; the index home is for derived data only`);
        }
      }
    });
  });
}
