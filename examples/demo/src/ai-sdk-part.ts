/**
 * The demo's Vercel AI SDK part: a real `generateText` agent loop, driven by the AI SDK's
 * own mock model (no provider, no network), with the tools wrapped by `withSpill` and the
 * model reading back through `spillTools`.
 *
 * @packageDocumentation
 */
import { spillTools, withSpill } from '@spillway/ai-sdk';
import { sessionId as brandSessionId, utf8ByteLength } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import { parseSpillNotice } from '@spillway/policy/notice';
import { convertToModelMessages, generateText, jsonSchema, stepCountIs, tool, type UIMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { NEEDLE, fetchedPage } from './data.js';

/** What the part needs to print: the demo's printer has these. */
export interface DemoPrinter {
  title(text: string): void;
  step(n: number, text: string): void;
  note(text: string): void;
  /** Shows text exactly as the model receives it. */
  model(text: string): void;
}

/** What the AI SDK part observed, for its test. */
export interface AiSdkSummary {
  /** UTF-8 size of the page the tool returned. */
  readonly pageBytes: number;
  /** UTF-8 size of what the model saw of it in step 2. */
  readonly shownBytes: number;
  /** The locator the model saw. */
  readonly locator: string | undefined;
  /** The line `spill_grep` found the needle on, as the model saw it. */
  readonly needleLine: number | undefined;
  /** `steps[0].toolResults[0].output` is the whole page. */
  readonly fullOutputInSteps: boolean;
  /** Artifacts in the session after two `convertToModelMessages`. */
  readonly artifactsAfterTwoConversions: number;
  /** Both conversions showed the model the same text. */
  readonly conversionsAgree: boolean;
}

type Prompt = Parameters<MockLanguageModelV3['doGenerate']>[0]['prompt'];
type Answer = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const callTool = (toolCallId: string, toolName: string, input: unknown): Answer => ({
  content: [{ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage,
  warnings: [],
});
const say = (text: string): Answer => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] });

/** The text of the tool results in the last message of a prompt. */
function lastToolText(prompt: Prompt | readonly unknown[]): string {
  const last = prompt.at(-1) as Prompt[number] | undefined;
  if (last?.role !== 'tool') return '';
  return last.content
    .map((part) => (part.type === 'tool-result' && (part.output.type === 'text' || part.output.type === 'error-text') ? part.output.value : ''))
    .join('\n');
}

/** Runs the AI SDK part. `cap` is the demo's `maxInlineBytes`. */
export async function aiSdkPart(out: DemoPrinter, cap: number): Promise<AiSdkSummary> {
  const session = 'demo-ai-sdk-chat';
  const backend = createMemoryBackend();
  const page = fetchedPage();
  const pageBytes = utf8ByteLength(page);
  const web_fetch = tool({
    description: 'Fetch a web page as text.',
    inputSchema: jsonSchema<{ url: string }>({ type: 'object', properties: { url: { type: 'string' } }, required: ['url'] }),
    execute: () => page,
  });
  const tools = { ...withSpill({ web_fetch }, { backend, maxInlineBytes: cap, sessionId: session }), ...spillTools({ backend }) };

  out.title('Pass 3: a Vercel AI SDK agent (generateText, the SDK’s own mock model)');
  out.note(`tools: { ...withSpill({ web_fetch }, { backend, maxInlineBytes: ${String(cap)}, sessionId }), ...spillTools({ backend }) }`);

  let locator: string | undefined;
  let shownBytes = 0;
  let needleLine: number | undefined;
  let turn = 0;
  const model = new MockLanguageModelV3({
    doGenerate: ({ prompt }) => {
      turn++;
      const seen = lastToolText(prompt);
      if (turn === 1) {
        out.step(1, 'the model calls web_fetch("https://docs.example.test/handbook")');
        return Promise.resolve(callTool('call-1', 'web_fetch', { url: 'https://docs.example.test/handbook' }));
      }
      if (turn === 2) {
        shownBytes = utf8ByteLength(seen);
        locator = parseSpillNotice(seen)?.locator;
        out.note(`the tool returned ${String(pageBytes)} bytes; toModelOutput spilled them. The next model call gets:`);
        out.model(seen);
        out.step(2, `the model calls spill_grep(locator, "${NEEDLE}")`);
        return Promise.resolve(callTool('call-2', 'spill_grep', { locator, pattern: NEEDLE, literal: true }));
      }
      if (turn === 3) {
        out.model(seen);
        needleLine = Number(/^(\d+): /m.exec(seen)?.[1] ?? Number.NaN);
        if (Number.isNaN(needleLine)) needleLine = undefined;
        out.step(3, `…and reads around it: spill_read(locator, offset ${String((needleLine ?? 2) - 1)}, limit 3)`);
        return Promise.resolve(callTool('call-3', 'spill_read', { locator, offset: (needleLine ?? 2) - 1, limit: 3 }));
      }
      out.model(seen);
      return Promise.resolve(say(`The handbook mentions ${NEEDLE} on line ${String(needleLine)}.`));
    },
  });

  const result = await generateText({ model, prompt: `Where does the handbook mention ${NEEDLE}?`, tools, stopWhen: stepCountIs(6) });
  const output: unknown = result.steps[0]?.toolResults[0]?.output;
  const fullOutputInSteps = output === page;
  out.step(4, `the answer: "${result.text}"`);
  out.note(`steps[0].toolResults[0].output still holds all ${String(typeof output === 'string' ? utf8ByteLength(output) : 0)} bytes, for the UI.`);

  // A chat UI sends its whole history back on every request; convertToModelMessages calls
  // toModelOutput again each time. The spill is remembered per toolCallId.
  const ui: UIMessage[] = [
    { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Where is the token?' }] },
    {
      id: 'a1',
      role: 'assistant',
      parts: [{ type: 'tool-web_fetch', toolCallId: 'call-1', state: 'output-available', input: { url: 'https://docs.example.test/handbook' }, output: page }],
    },
  ];
  const first = lastToolText(await convertToModelMessages(ui, { tools }));
  const second = lastToolText(await convertToModelMessages(ui, { tools }));
  let artifacts = 0;
  for await (const _ of backend.catalog.list({ sessionId: brandSessionId(session) })) artifacts++;
  out.step(5, 'the UI messages go through convertToModelMessages twice (two more requests of the chat)');
  out.note(`same locator both times: ${String(first === second && parseSpillNotice(first)?.locator === locator)}; artifacts in the session: ${String(artifacts)}.`);

  return {
    pageBytes,
    shownBytes,
    locator,
    needleLine,
    fullOutputInSteps,
    artifactsAfterTwoConversions: artifacts,
    conversionsAgree: first === second && first !== '',
  };
}
