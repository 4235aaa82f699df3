import type { ToolResult } from '@spillway/policy';
import type { ToolResultPart } from 'ai';

/** What a tool's `toModelOutput` answers (the AI SDK names this type but does not export it). */
export type ToolResultOutput = ToolResultPart['output'];

/**
 * What the AI SDK itself sends the model for a tool's output when the tool has no
 * `toModelOutput`: a string as text, anything else as JSON (`undefined` as `null`).
 */
export function defaultModelOutput(output: unknown): ToolResultOutput {
  return typeof output === 'string' ? { type: 'text', value: output } : { type: 'json', value: (output ?? null) as never };
}

/**
 * The model output as the policy's {@link ToolResult}, or `undefined` when it is not
 * something the policy may spill (an error, a denied execution, an unknown type).
 *
 * JSON is measured and stored as the JSON text a provider sends (`JSON.stringify`), so the
 * cap applies to what would have reached the model. A `content` output maps part by part:
 * any part that is not text (an image, a file) makes the policy leave it as it is.
 */
export function toPolicyResult(output: ToolResultOutput): ToolResult | undefined {
  switch (output.type) {
    case 'text':
      return { content: [{ type: 'text', text: output.value }] };
    case 'json': {
      const text = JSON.stringify(output.value) as string | undefined;
      return text === undefined ? undefined : { content: [{ type: 'text', text }] };
    }
    case 'content':
      return { content: output.value };
    default:
      return undefined;
  }
}

/** The text the policy answered with, as the model output that replaces the original. */
export function fromPolicyResult(original: ToolResultOutput, result: ToolResult): ToolResultOutput {
  const texts: string[] = [];
  for (const block of result.content) {
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
  }
  const value = texts.join('');
  const providerOptions = 'providerOptions' in original ? original.providerOptions : undefined;
  return providerOptions === undefined ? { type: 'text', value } : { type: 'text', value, providerOptions };
}
