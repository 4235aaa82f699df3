import type { SpillToolCallOptions, SpillToolServices, SpillToolSpec } from '@spillway/tools';
import { ToolMessage } from '@langchain/core/messages';
import { tool, type DynamicStructuredTool } from '@langchain/core/tools';

/** What a LangChain tool learns of its call at run time. */
export interface LangChainToolCall {
  /** The tool call's id. */
  readonly toolCallId: string;
  /** The run's `configurable` (LangGraph's `thread_id` and the rest), when there is one. */
  readonly configurable: Readonly<Record<string, unknown>> | undefined;
}

/**
 * One tool of the `@spillway/tools` registry as a LangChain tool: the spec's description
 * and schema, answered by the spec's run with the options of each call, as a
 * `ToolMessage` whose content is the text for the model and whose `artifact` is the data
 * (or the error's code). Nothing throws.
 */
export function toolFromSpec(
  spec: SpillToolSpec,
  services: SpillToolServices,
  optionsOf: (call: LangChainToolCall) => SpillToolCallOptions,
): DynamicStructuredTool {
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
      const answer = await spec.run(services, input, {
        ...optionsOf({ toolCallId, configurable: runtime.configurable }),
        ...(runtime.signal === undefined ? {} : { signal: runtime.signal }),
      });
      return new ToolMessage({
        content: answer.text,
        tool_call_id: toolCallId,
        name: spec.name,
        status: answer.isError ? 'error' : 'success',
        artifact: answer.isError ? { code: answer.code } : answer.data,
      });
    },
    {
      name: spec.name,
      description: spec.description,
      // A copy: the specs are shared by every surface, and a framework may annotate a schema.
      schema: structuredClone(spec.inputSchema) as unknown as Record<string, unknown>,
    },
  );
}
