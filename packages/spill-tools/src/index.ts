/**
 * The model-facing tools (`spill_read`, `spill_grep`, `spill_search`), defined once so
 * that every surface (the MCP proxy, the AI SDK and LangChain adapters, a hand-written
 * harness) offers them with the same names, arguments, descriptions and bounded answers.
 * Surfaces map {@link offeredSpillTools} onto their own tool type. No Node imports and no
 * backend: calls run through any reader and any searcher.
 *
 * @packageDocumentation
 */
export { DEFAULT_SPILL_ANSWER_BYTES, DEFAULT_SPILL_ANSWER_MATCHES, MIN_SPILL_ANSWER_BYTES } from './answer-bound.js';
export { SPILL_GREP_TOOL, SPILL_READ_TOOL, SPILL_SEARCH_TOOL, SPILL_TOOL_NAMES, type SpillToolName } from './names.js';
export { checkSpillSearchToolOptions, checkSpillToolOptions, type SpillToolAnswer, type SpillToolOptionsCaller, type SpillToolDefinition, type SpillToolJsonSchema, type SpillToolOptions } from './tool-call.js';
export { formatReadAnswer, runSpillRead, spillReadTool, type SpillReadArgs } from './read-tool.js';
export { formatGrepAnswer, runSpillGrep, spillGrepTool, type SpillGrepArgs } from './grep-tool.js';
export {
  formatSearchAnswer,
  runSpillSearch,
  spillSearchTool,
  type SpillSearchArgs,
  type SpillSearchToolAnswer,
  type SpillSearchToolDefinition,
  type SpillSearchToolOptions,
} from './search-tool.js';
export {
  offeredSpillTools,
  runSpillTool,
  spillToolSpec,
  spillToolSpecs,
  type SpillToolCallAnswer,
  type SpillToolCallOptions,
  type SpillToolRequirement,
  type SpillToolServices,
  type SpillToolSpec,
} from './registry.js';
export { withSurfaceDefaults, type SurfaceKind, type SurfacePolicyDefaults } from './surface-defaults.js';
