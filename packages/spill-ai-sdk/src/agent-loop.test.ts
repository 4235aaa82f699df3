// The adapter in a real AI SDK agent loop: `generateText` with tools, driven offline by the
// AI SDK's own mock model, and the UI round trip through `convertToModelMessages`.
import { sessionId as brandSessionId, spillLocator } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import { parseSpillNotice } from '@spillway/policy/notice';
import { bigLog, NEEDLE, NEEDLE_LINE } from '@spillway/test-support/big-log';
import { convertToModelMessages, generateText, jsonSchema, stepCountIs, tool, type UIMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { spillTools, withSpill } from './index.js';
import { say, toolCall, toolResultTexts, type Prompt } from './test-loop.js';

const CAP = 4096;

async function countArtifacts(backend: ReturnType<typeof createMemoryBackend>, session: string): Promise<number> {
  let n = 0;
  for await (const _ of backend.catalog.list({ sessionId: brandSessionId(session) })) n++;
  return n;
}

describe('withSpill and spillTools in a generateText loop', () => {
  it('spills a 200 KB result, the model greps it back, and the full output stays in the steps', async () => {
    const log = bigLog();
    expect(log.length).toBeGreaterThan(190_000);
    const backend = createMemoryBackend();
    const prompts: Prompt[] = [];
    let locator = '';
    const model = new MockLanguageModelV3({
      doGenerate: ({ prompt }) => {
        prompts.push(prompt);
        if (prompts.length === 1) return Promise.resolve(toolCall('call-1', 'fetchLogs', { service: 'api' }));
        if (prompts.length === 2) {
          const notice = parseSpillNotice(toolResultTexts(prompt)[0] ?? '');
          locator = notice?.locator ?? '';
          return Promise.resolve(toolCall('call-2', 'spill_grep', { locator, pattern: 'disk quota' }));
        }
        return Promise.resolve(say('Shard 17 ran out of disk quota.'));
      },
    });
    const fetchLogs = tool({
      description: 'Fetch the logs of a service.',
      inputSchema: jsonSchema<{ service: string }>({ type: 'object', properties: { service: { type: 'string' } }, required: ['service'] }),
      execute: ({ service }) => (service === 'api' ? log : ''),
    });
    const result = await generateText({
      model,
      prompt: 'Why did the api fail?',
      tools: {
        ...withSpill({ fetchLogs }, { backend, maxInlineBytes: CAP, sessionId: 'chat-1' }),
        ...spillTools({ backend }),
      },
      stopWhen: stepCountIs(5),
    });

    expect(prompts).toHaveLength(3);
    // Step 2's prompt holds only the preview and the notice, within the cap.
    const [shown] = toolResultTexts(prompts[1] ?? []);
    expect(shown).toBeDefined();
    expect(new TextEncoder().encode(shown).length).toBeLessThanOrEqual(CAP);
    expect(shown).not.toContain(NEEDLE);
    expect(log.startsWith((shown ?? '').slice(0, 200))).toBe(true);
    const notice = parseSpillNotice(shown ?? '');
    expect(notice?.locator).toBe(locator);
    expect(locator).toMatch(/^spill\+memory:\/\//);
    expect(JSON.stringify(prompts[1])).not.toContain(NEEDLE);

    // Step 3's prompt holds the matching line, found by spill_grep.
    const grepAnswer = toolResultTexts(prompts[2] ?? [])[1];
    expect(grepAnswer).toContain(`${String(NEEDLE_LINE)}: ${NEEDLE}`);

    // The full output stays in the steps, for the UI.
    const first = result.steps[0]?.toolResults[0];
    expect(first?.toolName).toBe('fetchLogs');
    expect(first?.output).toBe(log);
    expect(result.text).toBe('Shard 17 ran out of disk quota.');
    expect(await countArtifacts(backend, 'chat-1')).toBe(1);

    // The stored artifact is the full output.
    const read = await backend.reader.read(spillLocator(locator), { maxBytes: 1 << 20, limit: 10_000 });
    expect(read.text).toBe(log);
  });

  it('converting the UI messages twice stores one artifact, and both conversions show the same locator', async () => {
    const log = bigLog();
    const backend = createMemoryBackend();
    const fetchLogs = tool({ inputSchema: jsonSchema<{ service: string }>({ type: 'object' }), execute: () => log });
    const tools = withSpill({ fetchLogs }, { backend, maxInlineBytes: CAP, sessionId: 'chat-ui' });
    const ui: UIMessage[] = [
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Why did the api fail?' }] },
      {
        id: 'a1',
        role: 'assistant',
        parts: [{ type: 'tool-fetchLogs', toolCallId: 'call-9', state: 'output-available', input: { service: 'api' }, output: log }],
      },
    ];
    const once = await convertToModelMessages(ui, { tools });
    const twice = await convertToModelMessages(ui, { tools });
    const texts = (messages: typeof once): string[] => toolResultTexts(messages as Prompt);
    expect(texts(once)).toHaveLength(1);
    expect(texts(twice)).toEqual(texts(once));
    expect(parseSpillNotice(texts(once)[0] ?? '')?.locator).toMatch(/^spill\+memory:\/\//);
    expect(await countArtifacts(backend, 'chat-ui')).toBe(1);
    // A server that wraps its tools per request, over the same backend, remembers too.
    const again = withSpill({ fetchLogs }, { backend, maxInlineBytes: CAP, sessionId: 'chat-ui' });
    expect(texts(await convertToModelMessages(ui, { tools: again }))).toEqual(texts(once));
    expect(await countArtifacts(backend, 'chat-ui')).toBe(1);
  });
});
