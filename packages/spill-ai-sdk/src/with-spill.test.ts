import { sessionId as brandSessionId, SpillError, spillLocator, type SpillBackend } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import { createSpillPolicy, type SpillEvent } from '@spillway/policy';
import { parseSpillNotice } from '@spillway/policy/notice';
import { generateText, jsonSchema, stepCountIs, tool, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { withSpill, type ToolResultOutput } from './index.js';
import { say, toolCall, toolResultTexts, type Prompt } from './test-loop.js';

const CAP = 1024;
const big = (n = 20_000): string => Array.from({ length: n / 20 }, (_, i) => `row ${String(i).padStart(14, '0')}`).join('\n');

type Call = { toolCallId: string; input: unknown; output: unknown };
function modelOutputOf(tools: ToolSet, name: string): (call: Call) => Promise<ToolResultOutput> {
  const fn = tools[name]?.toModelOutput;
  if (fn === undefined) throw new Error(`${name} has no toModelOutput`);
  return async (call) => fn(call);
}

async function artifacts(backend: ReturnType<typeof createMemoryBackend>, session?: string): Promise<string[]> {
  const found: string[] = [];
  for await (const e of backend.catalog.list(session === undefined ? {} : { sessionId: brandSessionId(session) })) found.push(e.locator);
  return found;
}

const echo = tool({ inputSchema: jsonSchema<{ text: string }>({ type: 'object' }), execute: ({ text }) => text });

describe('withSpill', () => {
  it('leaves a small string output as the AI SDK would send it, and stores nothing', async () => {
    const backend = createMemoryBackend();
    const out = modelOutputOf(withSpill({ echo }, { backend, maxInlineBytes: CAP, sessionId: 's' }), 'echo');
    expect(await out({ toolCallId: 'c1', input: {}, output: 'hello' })).toEqual({ type: 'text', value: 'hello' });
    expect(await artifacts(backend)).toEqual([]);
  });

  it('measures and stores a non-string output as JSON text; under the cap it stays JSON', async () => {
    const backend = createMemoryBackend();
    const out = modelOutputOf(withSpill({ echo }, { backend, maxInlineBytes: CAP, sessionId: 's' }), 'echo');
    const small = { rows: [1, 2, 3] };
    expect(await out({ toolCallId: 'c1', input: {}, output: small })).toEqual({ type: 'json', value: small });
    expect(await out({ toolCallId: 'c0', input: {}, output: undefined })).toEqual({ type: 'json', value: null });
    const large = { rows: Array.from({ length: 500 }, (_, i) => ({ id: i, name: `item ${String(i)}` })) };
    const shown = await out({ toolCallId: 'c2', input: {}, output: large });
    expect(shown.type).toBe('text');
    const notice = parseSpillNotice((shown as { value: string }).value);
    expect(notice).toBeDefined();
    const read = await backend.reader.read(spillLocator(notice?.locator ?? ''), { maxBytes: 1 << 20 });
    expect(read.text).toBe(JSON.stringify(large));
  });

  it('chains onto an existing toModelOutput, such as an MCP tool content answer', async () => {
    const backend = createMemoryBackend();
    const text = big();
    const seen: Call[] = [];
    const mcpLike = tool({
      inputSchema: jsonSchema<Record<string, never>>({ type: 'object' }),
      execute: () => ({ content: [{ type: 'text', text }] }),
      toModelOutput: ({ toolCallId, input, output }) => {
        seen.push({ toolCallId, input, output });
        return { type: 'content', value: output.content.map((c) => ({ type: 'text' as const, text: c.text })) };
      },
    });
    const out = modelOutputOf(withSpill({ mcpLike }, { backend, maxInlineBytes: CAP, sessionId: 's' }), 'mcpLike');
    const output = { content: [{ type: 'text', text }] };
    const shown = await out({ toolCallId: 'c1', input: { q: 1 }, output });
    expect(seen).toEqual([{ toolCallId: 'c1', input: { q: 1 }, output }]);
    expect(shown.type).toBe('text');
    expect((shown as { value: string }).value.length).toBeLessThanOrEqual(CAP);
    const [locator] = await artifacts(backend, 's');
    expect((await backend.reader.read(spillLocator(locator ?? ''), { maxBytes: 1 << 20, limit: 1e6 })).text).toBe(text);
  });

  it('leaves a content answer with an image as it is', async () => {
    const backend = createMemoryBackend();
    // Parts built outside the union's context: inside it, the linter reports `type` as the deprecated `media` part's.
    const text = { type: 'text', text: big() } as const;
    const image = { type: 'image-data', data: 'AAAA', mediaType: 'image/png' } as const;
    const answer: ToolResultOutput = { type: 'content', value: [text, image] };
    const pic = tool({ inputSchema: jsonSchema({ type: 'object' }), execute: () => 1, toModelOutput: () => answer });
    const out = modelOutputOf(withSpill({ pic }, { backend, maxInlineBytes: CAP, sessionId: 's' }), 'pic');
    expect(await out({ toolCallId: 'c1', input: {}, output: 1 })).toBe(answer);
    expect(await artifacts(backend)).toEqual([]);
  });

  it('answers the same locator for the same call, concurrently too, and stores once', async () => {
    const backend = createMemoryBackend();
    const out = modelOutputOf(withSpill({ echo }, { backend, maxInlineBytes: CAP, sessionId: 's' }), 'echo');
    const text = big();
    const answers = await Promise.all([1, 2, 3].map(() => out({ toolCallId: 'same', input: {}, output: text })));
    answers.push(await out({ toolCallId: 'same', input: {}, output: text }));
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(await artifacts(backend)).toHaveLength(1);
    // Another call id is another artifact.
    await out({ toolCallId: 'other', input: {}, output: text });
    expect(await artifacts(backend)).toHaveLength(2);
  });

  it('shares what was spilled between wrappings over one backend only when they spill alike', async () => {
    const backend = createMemoryBackend();
    const wrapped = (maxInlineBytes: number) => modelOutputOf(withSpill({ echo }, { backend, maxInlineBytes, sessionId: 's' }), 'echo');
    const text = big();
    const a = await wrapped(CAP)({ toolCallId: 'same', input: {}, output: text });
    expect(await wrapped(CAP)({ toolCallId: 'same', input: {}, output: text })).toEqual(a);
    expect(await artifacts(backend)).toHaveLength(1);
    const b = await wrapped(CAP * 2)({ toolCallId: 'same', input: {}, output: text });
    expect(new TextEncoder().encode((b as { value: string }).value).length).toBeGreaterThan(CAP);
    expect(await artifacts(backend)).toHaveLength(2);
  });

  it('stores again for each call when rememberCalls is 0 (what the memory prevents)', async () => {
    const backend = createMemoryBackend();
    const out = modelOutputOf(withSpill({ echo }, { backend, maxInlineBytes: CAP, sessionId: 's', rememberCalls: 0 }), 'echo');
    await out({ toolCallId: 'same', input: {}, output: big() });
    await out({ toolCallId: 'same', input: {}, output: big() });
    expect(await artifacts(backend)).toHaveLength(2);
  });

  it('forgets the oldest call beyond rememberCalls', async () => {
    const backend = createMemoryBackend();
    const out = modelOutputOf(withSpill({ echo }, { backend, maxInlineBytes: CAP, sessionId: 's', rememberCalls: 2 }), 'echo');
    for (const id of ['a', 'b', 'c', 'a']) await out({ toolCallId: id, input: {}, output: big() });
    expect(await artifacts(backend)).toHaveLength(4);
    for (const id of ['c', 'a']) await out({ toolCallId: id, input: {}, output: big() });
    expect(await artifacts(backend)).toHaveLength(4);
  });

  it('spills again when a reused call id brings a different output', async () => {
    const backend = createMemoryBackend();
    const out = modelOutputOf(withSpill({ echo }, { backend, maxInlineBytes: CAP, sessionId: 's' }), 'echo');
    const a = await out({ toolCallId: 'call-1', input: {}, output: big() });
    const b = await out({ toolCallId: 'call-1', input: {}, output: big(40_000) });
    expect(a).not.toEqual(b);
    expect(await artifacts(backend)).toHaveLength(2);
  });

  it('keys the session by a function of the call; a throwing one leaves the output as it was', async () => {
    const backend = createMemoryBackend();
    const tools = withSpill(
      { echo },
      {
        backend,
        maxInlineBytes: CAP,
        sessionId: ({ input }) => {
          const chat = (input as { chat?: string }).chat;
          if (chat === 'boom') throw new Error('no chat');
          return chat;
        },
      },
    );
    const out = modelOutputOf(tools, 'echo');
    await out({ toolCallId: 'c1', input: { chat: 'chat-a' }, output: big() });
    expect(await artifacts(backend, 'chat-a')).toHaveLength(1);
    const text = big();
    expect(await out({ toolCallId: 'c2', input: { chat: 'boom' }, output: text })).toEqual({ type: 'text', value: text });
    expect(await out({ toolCallId: 'c3', input: {}, output: text })).toEqual({ type: 'text', value: text });
    expect(await artifacts(backend)).toHaveLength(1);
  });

  it('names each artifact after its call', async () => {
    const backend = createMemoryBackend();
    const out = modelOutputOf(withSpill({ echo }, { backend, maxInlineBytes: CAP, sessionId: 's' }), 'echo');
    await out({ toolCallId: 'call_XYZ', input: {}, output: big() });
    const names: string[] = [];
    for await (const e of backend.catalog.list()) names.push(e.name);
    expect(names).toEqual(['echo-call_XYZ.txt']);
  });

  it('takes a ready policy, and skips the retrieval tools by default', async () => {
    const backend = createMemoryBackend();
    const events: SpillEvent[] = [];
    const policy = createSpillPolicy({ backend, maxInlineBytes: CAP, onEvent: (e) => events.push(e) });
    const out = modelOutputOf(withSpill({ echo }, { policy, sessionId: 's' }), 'echo');
    expect((await out({ toolCallId: 'c1', input: {}, output: big() })).type).toBe('text');
    expect(events.map((e) => e.type)).toEqual(['spilled']);
    const viaOptions = withSpill({ spill_read: echo }, { backend, maxInlineBytes: CAP, sessionId: 's' });
    const text = big();
    expect(await modelOutputOf(viaOptions, 'spill_read')({ toolCallId: 'c2', input: {}, output: text })).toEqual({ type: 'text', value: text });
  });

  it('passes provider-executed tools through unwrapped', () => {
    const provider = { type: 'provider', id: 'x.search', args: {}, inputSchema: jsonSchema({ type: 'object' }) } as const;
    const tools = withSpill({ provider }, { backend: createMemoryBackend(), maxInlineBytes: CAP });
    expect(tools.provider).toBe(provider);
  });

  it('refuses bad configuration at construction', () => {
    const backend = createMemoryBackend();
    expect(() => withSpill({ echo }, { backend, maxInlineBytes: -1 })).toThrow(TypeError);
    expect(() => withSpill({ echo }, { backend, maxInlineBytes: CAP, rememberCalls: 1.5 })).toThrow(TypeError);
    expect(() => withSpill({ echo }, { backend, maxInlineBytes: CAP, sessionId: '' })).toThrow(TypeError);
    expect(() => withSpill({ echo }, { backend, maxInlineByte: CAP } as never)).toThrow(/maxInlineByte/);
    // Named as what the user called, listing the adapter's own options beside the policy's.
    expect(() => withSpill({ echo }, { backend, maxInlineBytes: 600, bogus: 1 } as never)).toThrow(
      new TypeError(
        'withSpill does not know the option "bogus"; the options are backend, maxInlineBytes, skipTools, previewBytes, saveTimeoutMs, ' +
          'onEvent, noticeReader, preview, policy, sessionId, rememberCalls, search.',
      ),
    );
    const policy = createSpillPolicy({ backend, maxInlineBytes: CAP });
    expect(() => withSpill({ echo }, { policy, maxInlineBytes: CAP } as never)).toThrow(/either/);
    expect(() => withSpill({ echo }, null as never)).toThrow(TypeError);
  });
});

describe('withSpill when storage fails', () => {
  const failing = (how: 'reject' | 'throw'): SpillBackend => ({
    specificationVersion: 'v1',
    name: 'failing',
    saveText: () => {
      if (how === 'throw') throw new Error('disk on fire');
      return Promise.reject(new SpillError('SPILL_NO_SPACE', 'full'));
    },
    saveTextStream: () => Promise.reject(new SpillError('SPILL_NO_SPACE', 'full')),
  });

  for (const how of ['reject', 'throw'] as const) {
    it(`leaves the output as it was when the save ${how}s, in a real loop, with no tool error`, async () => {
      const text = big();
      const events: SpillEvent[] = [];
      const prompts: Prompt[] = [];
      const model = new MockLanguageModelV3({
        doGenerate: ({ prompt }) => {
          prompts.push(prompt);
          return Promise.resolve(prompts.length === 1 ? toolCall('c1', 'echo', { text }) : say('done'));
        },
      });
      const result = await generateText({
        model,
        prompt: 'go',
        tools: withSpill({ echo }, { backend: failing(how), maxInlineBytes: CAP, sessionId: 's', onEvent: (e) => events.push(e) }),
        stopWhen: stepCountIs(3),
      });
      expect(result.steps[0]?.content.some((p) => p.type === 'tool-error')).toBe(false);
      expect(result.steps[0]?.toolResults[0]?.output).toBe(text);
      expect(toolResultTexts(prompts[1] ?? [])).toEqual([text]);
      expect(events).toMatchObject([{ type: 'kept', reason: how === 'throw' ? 'save-threw' : 'save-rejected' }]);
      expect(result.text).toBe('done');
    });
  }
});
