/**
 * The contract test suite for spillway backends. A backend's own test file calls
 * {@link describeSpillBackend}; the reference reader (the oracle for `read`/`grep`
 * semantics), the fast-check arbitraries and the hostile inputs are exported too, for
 * backend authors' own tests.
 *
 * @packageDocumentation
 */
export { describeSpillBackend } from './describe-spill-backend.js';
export type {
  Awaitable,
  DescribeSpillBackendOptions,
  PropertyOptions,
  RestoreStorage,
  SpillBackendFixture,
  SpillBackendHooks,
} from './options.js';
export { resolveConformanceOptions } from './options.js';
export type { ResolvedConformanceOptions } from './options.js';
export {
  ReferenceArtifact,
  checkGrepArguments,
  checkReadArguments,
  checkGrepResult,
  checkReadResult,
  escapeRegExp,
  referenceGrep,
  referenceRead,
  splitLines,
} from './reference-reader.js';
export type { ReferenceGrepArguments, ReferenceGrepHit, ReferenceReadArguments, ReferenceReadKind } from './reference-reader.js';
export {
  DIFFERENTIAL_PATTERNS,
  chunkedContentArbitrary,
  contentArbitrary,
  differentialGrepArbitrary,
  differentialReadOptionsArbitrary,
  differentialTextArbitrary,
  grepQueryArbitrary,
  linesContentArbitrary,
  loneSurrogateArbitrary,
  readOptionsArbitrary,
  sessionIdArbitrary,
  splitAt,
  suggestedNameArbitrary,
  toChunkSource,
} from './arbitraries.js';
export type { DifferentialGrep, ChunkDelivery, ChunkedContent, ChunkedContentArbitraryOptions, ContentArbitraryOptions, GrepQuery } from './arbitraries.js';
export { HOSTILE_SESSION_IDS, HOSTILE_SUGGESTED_NAMES } from './hostile-inputs.js';
export { SAMPLE_CONTENTS, makeLargeContent } from './samples.js';
export { cutToBytes, isCodePointBoundary, isWellFormed, toStoredText } from './text.js';
export { ConformanceFailure, readWhole } from './harness.js';
export type { PageSize } from './harness.js';
