import type { SpillBackend } from '@spillway/core';
import { checkSpillToolOptions, offeredSpillTools, type SpillGrepArgs, type SpillReadArgs, type SpillToolAnswer } from '@spillway/tools';
import type { Tool } from 'ai';
import { toolFromSpec } from './tool-from-spec.js';

/** Options of {@link spillTools}. */
export interface SpillToolsOptions {
  /** The backend the spills went to. It must have a `reader`. */
  readonly backend: SpillBackend;
  /** Byte cap on one `spill_read` answer. Default: the reader's default (32 KiB). */
  readonly maxReadBytes?: number | undefined;
  /** `maxMatches` when the model gives none. Default: the reader's default (100). */
  readonly defaultMaxMatches?: number | undefined;
}

/** Every option {@link spillTools} accepts; any other is refused at construction. */
const SPILL_TOOLS_OPTIONS: readonly (keyof SpillToolsOptions)[] = Object.freeze(['backend', 'maxReadBytes', 'defaultMaxMatches']);

/**
 * The retrieval tools as AI SDK tools. Each call's output is the full
 * {@link SpillToolAnswer} (for the UI); the model sees its `text`, as an error when
 * `isError` is set.
 */
// A type literal, not an interface, so that it is assignable to the AI SDK's `ToolSet`.
export type SpillTools = {
  /** Reads lines of a spilled result back. */
  readonly spill_read: Tool<SpillReadArgs, SpillToolAnswer>;
  /** Searches a spilled result. */
  readonly spill_grep: Tool<SpillGrepArgs, SpillToolAnswer>;
};

/**
 * `spill_read` and `spill_grep` as AI SDK tools, with JSON Schema inputs, answered through
 * the backend's reader. A bad argument, a forged or expired locator, or a bad pattern
 * reaches the model as a tool error it can read (`error-text`); nothing throws.
 *
 * @throws TypeError when `backend` has no `reader`, for an option it does not know, or
 * for a `maxReadBytes` or `defaultMaxMatches` that is not a positive whole number.
 *
 * @example
 * const backend = createMemoryBackend();
 * const tools = { ...withSpill({ fetchPage }, { backend, maxInlineBytes: 16_000 }), ...spillTools({ backend }) };
 */
export function spillTools(options: SpillToolsOptions): SpillTools {
  checkSpillToolOptions(options, { caller: 'spillTools', accepted: SPILL_TOOLS_OPTIONS });
  const reader = (options as Partial<SpillToolsOptions> | undefined)?.backend?.reader;
  if (reader === undefined) {
    throw new TypeError('spillTools needs { backend } with a reader (createMemoryBackend() and createLocalBackend() have one).');
  }
  const limits = {
    ...(options.maxReadBytes === undefined ? {} : { maxReadBytes: options.maxReadBytes }),
    ...(options.defaultMaxMatches === undefined ? {} : { defaultMaxMatches: options.defaultMaxMatches }),
  };
  // Every registry tool that needs no more than a reader (spill_search needs a searcher).
  const tools: Record<string, Tool> = {};
  for (const spec of offeredSpillTools({ reader })) tools[spec.name] = toolFromSpec(spec, { reader }, () => limits);
  return tools as SpillTools;
}
