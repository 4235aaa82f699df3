import { sessionId as brandSessionId, type SpillSearcher } from '@spillway/core';
import { runSpillSearch, spillSearchTool } from '@spillway/policy/tools';
import { ToolMessage } from '@langchain/core/messages';
import { tool, type DynamicStructuredTool } from '@langchain/core/tools';

/** The call a `spill_search` session function is asked about. */
export interface SpillSearchCall {
  /** The tool call's id. */
  readonly toolCallId: string;
  /** The run's `configurable` (LangGraph's `thread_id` and the rest), when there is one. */
  readonly configurable: Readonly<Record<string, unknown>> | undefined;
}

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
  const { searcher } = options;
  return tool(
    async (
      input: unknown,
      runtime: {
        readonly toolCall?: { readonly id?: string | undefined } | undefined;
        readonly signal?: AbortSignal | undefined;
        readonly configurable?: Record<string, unknown> | undefined;
      },
    ) => {
      const toolCallId = runtime.toolCall?.id ?? '';
      const id = sessionOf(options.sessionId, { toolCallId, configurable: runtime.configurable });
      const answer =
        id === undefined
          ? { text: 'spill_search has no session to search for this run (give sessionId or a thread_id).', isError: true as const, code: 'SPILL_INVALID_INPUT' as const }
          : await runSpillSearch(searcher, input, {
              sessionId: brandSessionId(id),
              ...(options.maxSearchBytes === undefined ? {} : { maxSearchBytes: options.maxSearchBytes }),
              ...(runtime.signal === undefined ? {} : { signal: runtime.signal }),
            });
      return new ToolMessage({
        content: answer.text,
        tool_call_id: toolCallId,
        name: spillSearchTool.name,
        status: answer.isError ? 'error' : 'success',
        artifact: answer.isError ? { code: answer.code } : answer.data,
      });
    },
    {
      name: spillSearchTool.name,
      description: spillSearchTool.description,
      schema: structuredClone(spillSearchTool.inputSchema),
    },
  );
}
