import { sessionId as brandSessionId, type SpillSearcher } from '@spillway/core';
import { checkSpillSearchToolOptions, offeredSpillTools } from '@spillway/tools';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { toolFromSpec, type LangChainToolCall } from './tool-from-spec.js';

/** The call a `spill_search` session function is asked about. */
export type SpillSearchCall = LangChainToolCall;

/** Options of {@link createSpillSearchTool}. */
export interface SpillSearchToolOptions {
  /**
   * What answers the searches, such as `await createBackendSearch(backend)` from
   * `@spillway/search` (an optional install: it carries SQLite).
   */
  readonly searcher: SpillSearcher;
  /**
   * The session whose spills are searched: a string, or a function of the call. Omitted:
   * the run's `configurable.thread_id`, as the middleware's spills use.
   */
  readonly sessionId?: string | ((call: SpillSearchCall) => string | undefined) | undefined;
  /** Byte cap on one answer. Default 4 KiB. */
  readonly maxSearchBytes?: number | undefined;
}

/** Every option {@link createSpillSearchTool} accepts; any other is refused at construction. */
const SPILL_SEARCH_TOOL_OPTIONS: readonly (keyof SpillSearchToolOptions)[] = Object.freeze(['searcher', 'sessionId', 'maxSearchBytes']);

function sessionOf(option: SpillSearchToolOptions['sessionId'], call: SpillSearchCall): string | undefined {
  try {
    const value: unknown = typeof option === 'string' ? option : typeof option === 'function' ? option(call) : call.configurable?.thread_id;
    return typeof value === 'string' && value !== '' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `spill_search` as a LangChain tool: ranked snippets across the session's spills, each
 * with its locator and line range for `spill_read`. It answers a `ToolMessage` whose
 * `artifact` holds the snippets; a bad argument or a failing index answers
 * `status: "error"`. Nothing throws.
 *
 * @throws TypeError when `searcher` is missing.
 */
export function createSpillSearchTool(options: SpillSearchToolOptions): DynamicStructuredTool {
  if (typeof (options as Partial<SpillSearchToolOptions> | undefined)?.searcher?.search !== 'function') {
    throw new TypeError('createSpillSearchTool needs { searcher }, such as await createBackendSearch(backend) from @spillway/search.');
  }
  checkSpillSearchToolOptions(options, { caller: 'createSpillSearchTool', accepted: SPILL_SEARCH_TOOL_OPTIONS });
  const { searcher } = options;
  const limits = options.maxSearchBytes === undefined ? {} : { maxSearchBytes: options.maxSearchBytes };
  // The registry offers exactly spill_search for a searcher alone.
  const [spec] = offeredSpillTools({ searcher });
  if (spec === undefined) throw new TypeError('createSpillSearchTool: @spillway/tools offers no tool for a searcher.');
  return toolFromSpec(spec, { searcher }, (call) => {
    const id = sessionOf(options.sessionId, call);
    // No session: the tool answers an error the model can read.
    return id === undefined ? limits : { ...limits, sessionId: brandSessionId(id) };
  });
}
