import { sessionId as brandSessionId, type SpillSearcher } from '@spillway/core';
import {
  runSpillSearch,
  spillSearchTool,
  type SpillSearchArgs,
  type SpillSearchToolAnswer,
} from '@spillway/policy/tools';
import { jsonSchema, tool, type JSONSchema7, type Tool } from 'ai';

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
  const { searcher } = given as SpillSearchToolsOptions;
  return {
    spill_search: tool<SpillSearchArgs, SpillSearchToolAnswer>({
      description: spillSearchTool.description,
      inputSchema: jsonSchema<SpillSearchArgs>(structuredClone(spillSearchTool.inputSchema) as unknown as JSONSchema7),
      execute: async (input, { abortSignal, toolCallId }) => {
        let id: string | undefined;
        try {
          id = typeof session === 'string' ? session : session({ toolCallId });
        } catch {
          id = undefined;
        }
        if (typeof id !== 'string' || id === '') {
          return { text: 'spill_search has no session to search for this call.', isError: true, code: 'SPILL_INVALID_INPUT' };
        }
        return runSpillSearch(searcher, input, {
          sessionId: brandSessionId(id),
          ...(options.maxSearchBytes === undefined ? {} : { maxSearchBytes: options.maxSearchBytes }),
          ...(options.defaultMaxResults === undefined ? {} : { defaultMaxResults: options.defaultMaxResults }),
          ...(abortSignal ? { signal: abortSignal } : {}),
        });
      },
      toModelOutput: ({ output }) => {
        const answer = output as Partial<SpillSearchToolAnswer> | null | undefined;
        const text = typeof answer?.text === 'string' ? answer.text : JSON.stringify(output);
        return { type: answer?.isError === true ? 'error-text' : 'text', value: text };
      },
    }),
  };
}
