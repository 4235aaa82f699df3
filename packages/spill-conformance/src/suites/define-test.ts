import { it, type TestContext } from 'vitest';
import { withHarness, type Harness } from '../harness.js';
import type { ResolvedConformanceOptions, SpillBackendFixture } from '../options.js';

/** A conformance test body: a fresh harness and vitest's test context. */
export type ConformanceBody<F extends SpillBackendFixture> = (harness: Harness<F>, ctx: TestContext) => Promise<void>;

/** Registers one vitest test that runs `body` against a fresh fixture. */
export type DefineTest<F extends SpillBackendFixture> = (title: string, body: ConformanceBody<F>) => void;

/** Binds {@link DefineTest} to one backend's options. */
export function testDefiner<F extends SpillBackendFixture>(options: ResolvedConformanceOptions<F>): DefineTest<F> {
  return (title, body) => {
    it(title, (ctx) => withHarness(options, (harness) => body(harness, ctx)), options.testTimeoutMs);
  };
}
