import { sessionId as brandSessionId, type SpillSearcher } from '@spillway/core';
import { checkSpillSearchToolOptions, offeredSpillTools, type SpillSearchArgs, type SpillSearchToolAnswer, type SpillToolCallOptions } from '@spillway/tools';
import type { Tool } from 'ai';
import { toolFromSpec } from './tool-from-spec.js';

/** Options of {@link spillSearchTools}. */
export interface SpillSearchToolsOptions {
  /**
   * What answers the searches, such as `await createBackendSearch(backend)` from
   * `@spillway/search` (an optional install: it carries SQLite).
   */
  readonly searcher: SpillSearcher;
  /**
   * The session whose spills are searched: the `sessionId` given to `withSpill`, or a
   * function of the call. A function that answers nothing makes the call a tool error.
   */
  readonly sessionId: string | ((call: { readonly toolCallId: string }) => string | undefined);
  /** Byte cap on one answer. Default 4 KiB. */
  readonly maxSearchBytes?: number | undefined;
  /** `maxResults` when the model gives none. */
  readonly defaultMaxResults?: number | undefined;
}

/** Every option {@link spillSearchTools} accepts; any other is refused at construction. */
const SPILL_SEARCH_TOOLS_OPTIONS: readonly (keyof SpillSearchToolsOptions)[] = Object.freeze(['searcher', 'sessionId', 'maxSearchBytes', 'defaultMaxResults']);

/** `spill_search` as an AI SDK tool. */
// A type literal, not an interface, so that it is assignable to the AI SDK's `ToolSet`.
export type SpillSearchTools = {
  /** Ranked snippets across every spilled result of the session. */
  readonly spill_search: Tool<SpillSearchArgs, SpillSearchToolAnswer>;
};

/**
 * `spill_search` as an AI SDK tool: ranked snippets across the session's spills, each
 * with its locator and line range for `spill_read`. A bad argument or a failing index
 * reaches the model as a tool error it can read; nothing throws.
 *
 * @throws TypeError when `searcher` or `sessionId` is missing.
 *
 * @example
 * const searcher = await createBackendSearch(backend);
 * const tools = { ...withSpill(myTools, { backend, sessionId: 'chat-1' }), ...spillTools({ backend }), ...spillSearchTools({ searcher, sessionId: 'chat-1' }) };
 */
export function spillSearchTools(options: SpillSearchToolsOptions): SpillSearchTools {
  const given = options as Partial<SpillSearchToolsOptions> | undefined;
  if (typeof given?.searcher?.search !== 'function') {
    throw new TypeError('spillSearchTools needs { searcher }, such as await createBackendSearch(backend) from @spillway/search.');
  }
  const session = given.sessionId;
  if (typeof session !== 'function' && (typeof session !== 'string' || session === '')) {
    throw new TypeError('spillSearchTools needs { sessionId }: the session given to withSpill, or a function of the call.');
  }
  checkSpillSearchToolOptions(given, { caller: 'spillSearchTools', accepted: SPILL_SEARCH_TOOLS_OPTIONS });
  const { searcher } = given as SpillSearchToolsOptions;
  const limits = {
    ...(options.maxSearchBytes === undefined ? {} : { maxSearchBytes: options.maxSearchBytes }),
    ...(options.defaultMaxResults === undefined ? {} : { defaultMaxResults: options.defaultMaxResults }),
  };
  const optionsOf = ({ toolCallId }: { readonly toolCallId: string }): SpillToolCallOptions => {
    let id: string | undefined;
    try {
      id = typeof session === 'string' ? session : session({ toolCallId });
    } catch {
      id = undefined;
    }
    // No session: the tool answers an error the model can read.
    return { ...limits, ...(typeof id === 'string' && id !== '' ? { sessionId: brandSessionId(id) } : {}) };
  };
  // Every registry tool that needs no more than a searcher.
  const tools: Record<string, Tool> = {};
  for (const spec of offeredSpillTools({ searcher })) tools[spec.name] = toolFromSpec(spec, { searcher }, optionsOf);
  return tools as SpillSearchTools;
}
