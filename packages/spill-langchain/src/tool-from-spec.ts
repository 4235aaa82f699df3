import type { SpillToolCallOptions, SpillToolServices, SpillToolSpec } from '@spillway/tools';
import { ToolMessage } from '@langchain/core/messages';
import { tool, ToolInputParsingException, type DynamicStructuredTool } from '@langchain/core/tools';

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
  const answer = async (input: unknown, runtime: ToolRuntime): Promise<ToolMessage> => {
    const toolCallId = runtime.toolCall?.id ?? '';
    const answered = await spec.run(services, input, {
      ...optionsOf({ toolCallId, configurable: runtime.configurable }),
      ...(runtime.signal === undefined ? {} : { signal: runtime.signal }),
    });
    return new ToolMessage({
      content: answered.text,
      tool_call_id: toolCallId,
      name: spec.name,
      status: answered.isError ? 'error' : 'success',
      artifact: answered.isError ? { code: answered.code } : answered.data,
    });
  };
  const made = tool(answer, {
    name: spec.name,
    description: spec.description,
    // A copy: the specs are shared by every surface, and a framework may annotate a schema.
    schema: structuredClone(spec.inputSchema) as unknown as Record<string, unknown>,
  });
  // LangChain checks the arguments against the schema before the tool runs, and answers a
  // mismatch (`offset: 0`) with its own message and a stack trace. The spec checks them too,
  // as on every other surface: a call LangChain refuses is answered by the spec instead,
  // with its text and code, and the schema the model sees stays the same.
  const checked = made.invoke.bind(made);
  made.invoke = (async (input: unknown, config?: unknown) => {
    try {
      return await checked(input, config as Parameters<typeof checked>[1]);
    } catch (error) {
      if (!(error instanceof ToolInputParsingException)) throw error;
      const call = toolCallOf(input);
      const runtime = (typeof config === 'object' && config !== null ? config : {}) as ToolRuntime;
      return answer(call === undefined ? input : call.args, call?.id === undefined ? runtime : { ...runtime, toolCall: { id: call.id } });
    }
  });
  return made;
}

/** What the tool reads of its run's config: the call's id, the signal and `configurable`. */
interface ToolRuntime {
  readonly toolCall?: { readonly id?: string | undefined } | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly configurable?: Record<string, unknown> | undefined;
}

/** The tool call `arg` is, when LangChain was given one (`{ type: 'tool_call', args, id }`) rather than bare arguments. */
function toolCallOf(arg: unknown): { readonly args: unknown; readonly id: string | undefined } | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  const call = arg as { type?: unknown; args?: unknown; id?: unknown };
  if (call.type !== 'tool_call' || !('args' in call)) return undefined;
  return { args: call.args, id: typeof call.id === 'string' ? call.id : undefined };
}
