import type { SpillBackend } from '@spillway/core';
import { checkSpillToolOptions, offeredSpillTools, type SpillToolOptions } from '@spillway/tools';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { toolFromSpec } from './tool-from-spec.js';

/** Options of {@link createSpillTools}. */
export interface SpillToolsOptions {
  /** The backend the spills went to. It must have a `reader`. */
  readonly backend: SpillBackend;
  /** Byte cap on one `spill_read` answer. Default: the reader's default (32 KiB). */
  readonly maxReadBytes?: number | undefined;
  /** `maxMatches` when the model gives none. Default: the reader's default (100). */
  readonly defaultMaxMatches?: number | undefined;
}

/** Every option {@link createSpillTools} accepts; any other is refused at construction. */
const SPILL_TOOLS_OPTIONS: readonly (keyof SpillToolsOptions)[] = Object.freeze(['backend', 'maxReadBytes', 'defaultMaxMatches']);

/**
 * `spill_read` and `spill_grep` as LangChain tools, with JSON Schema inputs, answered
 * through the backend's reader. Each answers a `ToolMessage` whose content is the text for
 * the model and whose `artifact` is the reader's answer; a bad argument, a forged or
 * expired locator, or a bad pattern answers `status: "error"` with text the model can act
 * on. Nothing throws, so no agent run ends because of a retrieval.
 *
 * `createSpillMiddleware` adds these to the agent for you; use this for an agent built
 * without the middleware.
 *
 * @throws TypeError when `backend` has no `reader`, for an option it does not know, or
 * for a `maxReadBytes` or `defaultMaxMatches` that is not a positive whole number.
 */
export function createSpillTools(options: SpillToolsOptions): DynamicStructuredTool[] {
  checkSpillToolOptions(options, { caller: 'createSpillTools', accepted: SPILL_TOOLS_OPTIONS });
  const reader = (options as Partial<SpillToolsOptions> | undefined)?.backend?.reader;
  if (reader === undefined) {
    throw new TypeError('The spill tools need a backend with a reader (createMemoryBackend() and createLocalBackend() have one).');
  }
  const limits: SpillToolOptions = {
    ...(options.maxReadBytes === undefined ? {} : { maxReadBytes: options.maxReadBytes }),
    ...(options.defaultMaxMatches === undefined ? {} : { defaultMaxMatches: options.defaultMaxMatches }),
  };
  // Every registry tool that needs no more than a reader (spill_search needs a searcher).
  return offeredSpillTools({ reader }).map((spec) => toolFromSpec(spec, { reader }, () => limits));
}
