/**
 * `@spillway/s3`: a spillway backend on any S3-compatible object store. Artifacts land at
 * `<prefix>/session-<h>/<random>-<name>` (the naming rule every backend shares) with a conditional PutObject that never
 * overwrites, streams go up as multipart uploads in bounded memory (aborted on failure),
 * the reader works over ranged GetObjects, and the catalog pages through ListObjectsV2.
 *
 * @packageDocumentation
 */
export { createS3Backend, DEFAULT_PART_BYTES, MAX_PART_BYTES, MIN_PART_BYTES } from './backend.js';
export type { S3Backend, S3BackendOptions, S3Catalog } from './backend.js';
export { DEFAULT_READ_BYTES } from './byte-source.js';
export { DEFAULT_RETRY } from './request.js';
export type { RetrySettings } from './request.js';
export { CONTENT_TYPE, S3_RETRIEVAL_HINT } from './save.js';
export type { S3Encryption } from './save.js';
export { parseS3StoreUrl } from './store-url.js';
export type { S3StoreUrl } from './store-url.js';
