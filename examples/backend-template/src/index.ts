/**
 * A minimal spillway backend to copy when writing a new one. It keeps artifacts in a
 * Map, implements the reader and the catalog, and passes `@spillway/conformance`.
 *
 * @packageDocumentation
 */
export { TEMPLATE_RETRIEVAL_HINT, createTemplateBackend } from './template-backend.js';
export type { TemplateArtifact, TemplateBackendOptions } from './template-backend.js';
export { TEMPLATE_URL_SCHEME, createSpillwayBackend } from './url-factory.js';
