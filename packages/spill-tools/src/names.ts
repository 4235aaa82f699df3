/**
 * The names of the model-facing tools. A prompt or a model's habit carries over from one
 * harness to the next only if every surface uses these exact names.
 */

/** The name of the tool that reads lines of a spilled result back. */
export const SPILL_READ_TOOL = 'spill_read';
/** The name of the tool that searches a spilled result. */
export const SPILL_GREP_TOOL = 'spill_grep';
/** The name of the tool that searches every spilled result of the session. */
export const SPILL_SEARCH_TOOL = 'spill_search';

/** Every model-facing tool's name: a surface adds them to the policy's `skipTools`. */
export const SPILL_TOOL_NAMES: readonly [typeof SPILL_READ_TOOL, typeof SPILL_GREP_TOOL, typeof SPILL_SEARCH_TOOL] = [
  SPILL_READ_TOOL,
  SPILL_GREP_TOOL,
  SPILL_SEARCH_TOOL,
];

/** One of {@link SPILL_TOOL_NAMES}. */
export type SpillToolName = (typeof SPILL_TOOL_NAMES)[number];
