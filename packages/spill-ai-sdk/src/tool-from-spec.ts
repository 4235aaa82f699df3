import type { SpillToolCallAnswer, SpillToolCallOptions, SpillToolServices, SpillToolSpec } from '@spillway/tools';
import { jsonSchema, tool, type JSONSchema7, type Tool } from 'ai';

/**
 * One tool of the `@spillway/tools` registry as an AI SDK tool: the spec's description
 * and schema, answered by the spec's run with the options of each call. The model sees
 * the answer's text, as an error when `isError` is set; the full answer is the output.
 */
export function toolFromSpec(
  spec: SpillToolSpec,
  services: SpillToolServices,
  optionsOf: (call: { readonly toolCallId: string }) => SpillToolCallOptions,
): Tool<unknown, SpillToolCallAnswer> {
  return tool<unknown, SpillToolCallAnswer>({
    description: spec.description,
    // A copy: the specs are shared by every surface, and a framework may annotate a schema.
    inputSchema: jsonSchema(structuredClone(spec.inputSchema) as unknown as JSONSchema7),
    execute: (input, { abortSignal, toolCallId }) =>
      spec.run(services, input, { ...optionsOf({ toolCallId }), ...(abortSignal ? { signal: abortSignal } : {}) }),
    toModelOutput: ({ output }) => modelOutput(output),
  });
}

// The output may come back from UI messages (JSON), so read it defensively.
function modelOutput(output: unknown): { type: 'text' | 'error-text'; value: string } {
  const answer = output as Partial<SpillToolCallAnswer> | null | undefined;
  const text = typeof answer?.text === 'string' ? answer.text : JSON.stringify(output ?? null);
  return { type: answer?.isError === true ? 'error-text' : 'text', value: text };
}
