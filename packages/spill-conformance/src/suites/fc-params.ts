import type fc from 'fast-check';
import type { ResolvedConformanceOptions, SpillBackendFixture } from '../options.js';

/** fast-check parameters from the suite's options. */
export function fcParams<F extends SpillBackendFixture>(options: ResolvedConformanceOptions<F>, numRuns: number): fc.Parameters<unknown> {
  return {
    numRuns,
    endOnFailure: options.endOnFailure,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  };
}
