/**
 * The spillway seam. Backends implement {@link SpillBackend}; the policy, the CLI and
 * retention depend only on these types. This package has no runtime dependencies and
 * imports nothing from Node, so it runs in browsers and edge runtimes too. The Node-only
 * file sink (storage through a descriptor) is outside this contract, on
 * `@spillway/core/file-sink`.
 *
 * @packageDocumentation
 */
export type { Brand, CallId, SessionId, SpillLocator } from './brand.js';
export { callId, sessionId, spillLocator } from './brand.js';
export type {
  GrepMatch,
  GrepOptions,
  GrepResult,
  ListOptions,
  ReadOptions,
  ReadResult,
  SaveBytesStreamSpill,
  SaveTextSpill,
  SaveTextStreamSpill,
  SpillBackend,
  SpillBackendSpecificationVersion,
  SpillCallOptions,
  SpillCatalog,
  SpillEntry,
  SpillListProblem,
  SpillOwner,
  SpillReader,
  SpillRef,
  SpillSource,
  SpillListingVersion,
  SweepTempResult,
} from './backend.js';
export {
  DEFAULT_GREP_MAX_LINE_BYTES,
  DEFAULT_GREP_MAX_MATCHES,
  DEFAULT_GREP_TIMEOUT_MS,
  DEFAULT_READ_LIMIT,
  DEFAULT_READ_MAX_BYTES,
  MAX_GREP_PATTERN_LENGTH,
} from './backend.js';
export type {
  SpillSearchHit,
  SpillSearchRequest,
  SpillSearchResult,
  SpillSearchSection,
  SpillSearcher,
} from './search.js';
export {
  DEFAULT_SEARCH_MAX_BYTES,
  DEFAULT_SEARCH_MAX_RESULTS,
  MAX_SEARCH_QUERY_LENGTH,
  MAX_SEARCH_RESULTS,
} from './search.js';
export type { SpillErrorCode, SpillErrorOptions } from './errors.js';
export { isSpillwayError, SPILLWAY_ERROR_MARKER, SpillwayError } from './spillway-error.js';
export {
  SPILL_ERROR_CODES,
  SPILL_ERROR_MARKER,
  SpillError,
  abortedError,
  isAbortSignalLike,
  isSpillError,
  isSpillErrorCode,
  raceAbort,
  throwIfAborted,
} from './errors.js';
export { SPILL_BACKEND_SPECIFICATION_VERSION, assertSpillBackendVersion } from './specification-version.js';
export { cutToUtf8Bytes, utf8ByteLength, utf8ByteLengthBounds, utf8ByteLengthPortable } from './utf8.js';
export {
  assertSaveRequestEnvelope,
  assertSaveTextRequest,
  assertSaveTextStreamRequest,
} from './validate.js';
export { assertSaveBytesStreamRequest, byteChunks } from './bytes.js';
export type { WholeNumberRange } from './whole-number.js';
export { wholeNumberProblem } from './whole-number.js';
export { checkOptionNames } from './option-names.js';
