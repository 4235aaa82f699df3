/**
 * Shared parts for spillway backend authors, so that a backend holds only how bytes are
 * put, opened, listed and deleted: the contract's checks and encodings are written once
 * here. Imports nothing from Node, nor does the naming rule, its own subpath
 * `@spillway/backend-utils/naming`.
 *
 * @packageDocumentation
 */
export { bufferedSaves } from './buffered-saves.js';
export type { BufferedSaves, BufferedSavesOptions, SaveEnvelope } from './buffered-saves.js';
export { ContentStream, forEachChunk, notAString, streamFailed } from './content-stream.js';
export type { ContentChunks } from './content-stream.js';
export { callSignal, configInteger, configOptions, optionsBag, signalOf } from './options.js';
export type { IntegerRange } from './options.js';
export { randomBytes, randomHex } from './random-id.js';
export { Utf8Accumulator, tooLargeError } from './utf8-accumulator.js';
export { Utf8ChunkEncoder, isHighSurrogate } from './utf8-chunk-encoder.js';
