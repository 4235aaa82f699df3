// Helpers for driving a real generateText loop with the AI SDK's mock model.
import type { MockLanguageModelV3 } from 'ai/test';

/** The prompt a mock model receives. */
export type Prompt = Parameters<MockLanguageModelV3['doGenerate']>[0]['prompt'];
/** What a mock model answers. */
export type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model answer that calls one tool. */
export function toolCall(toolCallId: string, toolName: string, input: unknown): GenerateResult {
  return {
    content: [{ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls', raw: undefined },
    usage,
    warnings: [],
  };
}

/** A model answer that says `text` and stops. */
export function say(text: string): GenerateResult {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
}

/** The text of every tool result in a prompt, in order. */
export function toolResultTexts(prompt: Prompt): string[] {
  const texts: string[] = [];
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const output = part.output;
      texts.push(output.type === 'text' || output.type === 'error-text' ? output.value : JSON.stringify(output));
    }
  }
  return texts;
}
