/**
 * Spill oversized tool results in a LangChain.js agent: {@link createSpillMiddleware}
 * is one middleware for `createAgent` that stores what is too large, shows the model a
 * bounded preview plus a notice, and gives it `spill_read` and `spill_grep` to get the
 * rest back. Works with any `SpillBackend`.
 *
 * @packageDocumentation
 */
export { createSpillMiddleware, SPILL_MIDDLEWARE_NAME } from './middleware.js';
export type { SpillArtifact, SpillCallInfo, SpillMiddlewareAdapterOptions, SpillMiddlewareOptions } from './middleware.js';
export { createSpillTools } from './spill-tools.js';
export type { SpillToolsOptions } from './spill-tools.js';
export { createSpillSearchTool } from './search-tool.js';
export type { SpillSearchCall, SpillSearchToolOptions } from './search-tool.js';
