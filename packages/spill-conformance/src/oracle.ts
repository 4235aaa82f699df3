/**
 * The reference reader: `read` and `grep` as core's TSDoc defines them, over a plain
 * string, sharing no code with the retrieval engine. Published as
 * `@spillway/conformance/oracle`, for backend authors' own differential tests.
 *
 * @packageDocumentation
 */
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
