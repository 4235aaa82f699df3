/**
 * `@spillway/retrieval`: the one retrieval engine of spillway. A backend provides a byte
 * source per artifact ({@link SpillByteSource}); {@link createSpillReader} turns it into
 * a `SpillReader` whose `read` pages in linear time (a sparse line index per artifact)
 * and whose `grep` speaks one regular-expression dialect (RE2) on every backend and
 * runtime, answering every pattern in bounded time.
 *
 * @packageDocumentation
 */
export type { OpenSpillByteSource, SpillByteSource } from './byte-source.js';
export { DEFAULT_PREFERRED_READ_BYTES } from './byte-source.js';
export { createSpillReader, DEFAULT_LINE_INDEX_ARTIFACTS, DEFAULT_LINE_INDEX_STRIDE } from './create-spill-reader.js';
export type { CreateSpillReaderOptions, SpillRetrievalReader } from './create-spill-reader.js';
export { MAX_PATTERN_LENGTH } from './options.js';
export { MAX_LINE_SPAN } from './grep-lines.js';
export { WORKER_DESCRIPTORS } from './worker-pool.js';
export type { RegexWorkerOptions } from './worker-pool.js';
