/**
 * The contract test suite for spillway backends. A backend's own test file calls
 * {@link describeSpillBackend}. The parts for backend authors' own tests live on subpaths:
 * `@spillway/conformance/oracle` (the reference reader, the oracle for `read`/`grep`),
 * `@spillway/conformance/arbitraries` (fast-check arbitraries),
 * `@spillway/conformance/inputs` (hostile inputs, samples, naming examples),
 * `@spillway/conformance/search` (the search tests alone, for a searcher's own tests) and
 * `@spillway/conformance/text` (text helpers).
 *
 * @packageDocumentation
 */
export { describeSpillBackend } from './describe-spill-backend.js';
export type {
  Awaitable,
  ConformanceSearchFactory,
  ConformanceSearcher,
  DescribeSpillBackendOptions,
  PropertyOptions,
  RestoreStorage,
  SpillBackendFixture,
  SpillBackendHooks,
} from './options.js';
export { resolveConformanceOptions } from './options.js';
export type { ResolvedConformanceOptions } from './options.js';
export { ConformanceFailure, readWhole } from './harness.js';
export type { PageSize } from './harness.js';
