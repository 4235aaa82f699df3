/**
 * Spill oversized tool results in a Vercel AI SDK agent: {@link withSpill} wraps a tool
 * set so that the model sees a bounded preview plus a notice, and {@link spillTools} gives
 * the model `spill_read` and `spill_grep` to get the rest back. Works with any
 * `SpillBackend`.
 *
 * @packageDocumentation
 */
export { withSpill, DEFAULT_REMEMBERED_CALLS } from './with-spill.js';
export type { SpillCallInfo, WithSpillAdapterOptions, WithSpillOptions } from './with-spill.js';
export { spillTools } from './spill-tools.js';
export type { SpillTools, SpillToolsOptions } from './spill-tools.js';
export type { ToolResultOutput } from './model-output.js';
export { spillSearchTools } from './search-tool.js';
export type { SpillSearchTools, SpillSearchToolsOptions } from './search-tool.js';
