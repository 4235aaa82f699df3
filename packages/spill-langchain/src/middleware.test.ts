import { sessionId as brandSessionId, spillLocator } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import { createSpillPolicy } from '@spillway/policy';
import { SPILL_TOOL_NAMES, spillReadTool } from '@spillway/tools';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createSpillMiddleware, createSpillTools, SPILL_MIDDLEWARE_NAME, type SpillArtifact } from './index.js';

const CAP = 1024;
const big = (): string => Array.from({ length: 1000 }, (_, i) => `row ${String(i).padStart(14, '0')}`).join('\n');

type Wrap = NonNullable<ReturnType<typeof createSpillMiddleware>['wrapToolCall']>;

/** Calls the middleware's wrapToolCall directly, with a handler that answers `answer`. */
async function wrap(middleware: ReturnType<typeof createSpillMiddleware>, answer: unknown, threadId?: string): Promise<unknown> {
  const hook = middleware.wrapToolCall as Wrap;
  const request = {
    toolCall: { name: 'fetch', args: {}, id: 'call-1' },
    tool: undefined,
    state: { messages: [] },
    runtime: threadId === undefined ? {} : { configurable: { thread_id: threadId } },
  };
  return hook(request as never, () => answer as ToolMessage);
}

async function count(backend: ReturnType<typeof createMemoryBackend>, session?: string): Promise<number> {
  let n = 0;
  for await (const _ of backend.catalog.list(session === undefined ? {} : { sessionId: brandSessionId(session) })) n++;
  return n;
}

describe('createSpillMiddleware', () => {
  it('is a named middleware that adds spill_read and spill_grep', () => {
    const middleware = createSpillMiddleware({ backend: createMemoryBackend(), maxInlineBytes: CAP });
    expect(middleware.name).toBe(SPILL_MIDDLEWARE_NAME);
    expect((middleware.tools ?? []).map((t) => (t as { name: string }).name)).toEqual(SPILL_TOOL_NAMES.filter((n) => n !== 'spill_search'));
    expect(createSpillMiddleware({ backend: createMemoryBackend(), maxInlineBytes: CAP, retrieval: false }).tools).toEqual([]);
    const { reader: _reader, ...writeOnly } = createMemoryBackend();
    expect(createSpillMiddleware({ backend: writeOnly, maxInlineBytes: CAP }).tools).toEqual([]);
  });

  it('spills string content, keeps the message fields, and puts the locator and the tool artifact in artifact', async () => {
    const backend = createMemoryBackend();
    const text = big();
    const original = new ToolMessage({ content: text, tool_call_id: 'call-1', name: 'fetch', id: 'm1', artifact: { rows: 1000 } });
    const out = (await wrap(createSpillMiddleware({ backend, maxInlineBytes: CAP }), original, 'thread-1')) as ToolMessage;
    expect(ToolMessage.isInstance(out)).toBe(true);
    expect(out).not.toBe(original);
    expect(original.content).toBe(text); // never mutated
    expect([out.tool_call_id, out.name, out.id]).toEqual(['call-1', 'fetch', 'm1']);
    expect(new TextEncoder().encode(out.content as string).length).toBeLessThanOrEqual(CAP);
    const artifact = out.artifact as SpillArtifact;
    expect(artifact.toolArtifact).toEqual({ rows: 1000 });
    expect((await backend.reader.read(spillLocator(artifact.locator), { maxBytes: 1 << 20, limit: 1e6 })).text).toBe(text);
    expect(await count(backend, 'thread-1')).toBe(1);
  });

  it('spills text blocks joined, and leaves content with an image as it is', async () => {
    const backend = createMemoryBackend();
    const middleware = createSpillMiddleware({ backend, maxInlineBytes: CAP, sessionId: 's' });
    const blocks = new ToolMessage({ content: [{ type: 'text', text: big() }, { type: 'text', text: big() }], tool_call_id: 'call-1' });
    expect(((await wrap(middleware, blocks)) as ToolMessage).artifact).toMatchObject({ locator: expect.any(String) as string });
    const image = new ToolMessage({
      content: [{ type: 'text', text: big() }, { type: 'image_url', image_url: 'data:image/png;base64,AAAA' }],
      tool_call_id: 'call-1',
    });
    expect(await wrap(middleware, image)).toBe(image);
    expect(await count(backend)).toBe(1);
  });

  it('leaves small results, and everything when the policy is disabled', async () => {
    const backend = createMemoryBackend();
    const small = new ToolMessage({ content: 'ok', tool_call_id: 'call-1' });
    expect(await wrap(createSpillMiddleware({ backend, maxInlineBytes: CAP }), small, 't')).toBe(small);
    const large = new ToolMessage({ content: big(), tool_call_id: 'call-1' });
    expect(await wrap(createSpillMiddleware({ backend }), large, 't')).toBe(large);
    expect(await count(backend)).toBe(0);
  });

  it('falls back to one session per middleware without a thread id; a sessionId function that throws keeps the result', async () => {
    const backend = createMemoryBackend();
    const middleware = createSpillMiddleware({ backend, maxInlineBytes: CAP });
    await wrap(middleware, new ToolMessage({ content: big(), tool_call_id: 'a' }));
    await wrap(middleware, new ToolMessage({ content: big(), tool_call_id: 'b' }));
    const sessions = new Set<string>();
    for await (const e of backend.catalog.list()) sessions.add(e.session);
    expect(sessions.size).toBe(1);
    const throwing = createSpillMiddleware({
      backend,
      maxInlineBytes: CAP,
      sessionId: () => {
        throw new Error('no user');
      },
    });
    const message = new ToolMessage({ content: big(), tool_call_id: 'c' });
    expect(await wrap(throwing, message, 't')).toBe(message);
  });

  it('takes a ready policy, with the retrieval backend given apart', async () => {
    const backend = createMemoryBackend();
    const policy = createSpillPolicy({ backend, maxInlineBytes: CAP });
    const middleware = createSpillMiddleware({ policy, retrieval: backend });
    expect(middleware.tools).toHaveLength(2);
    expect(((await wrap(middleware, new ToolMessage({ content: big(), tool_call_id: 'x' }), 't')) as ToolMessage).artifact).toBeDefined();
    expect(createSpillMiddleware({ policy }).tools).toEqual([]);
    expect(() => createSpillMiddleware({ policy, maxInlineBytes: 1 } as never)).toThrow(/either/);
  });

  it('refuses bad configuration at construction', () => {
    const backend = createMemoryBackend();
    expect(() => createSpillMiddleware({ backend, maxInlineBytes: -1 })).toThrow(TypeError);
    expect(() => createSpillMiddleware({ backend, maxInlineByte: 1 } as never)).toThrow(/maxInlineByte/);
    // Named as what the user called, listing the middleware's own options beside the policy's.
    expect(() => createSpillMiddleware({ backend, maxReadByte: 10 } as never)).toThrow(
      new TypeError(
        'createSpillMiddleware does not know the option "maxReadByte"; the options are backend, maxInlineBytes, skipTools, previewBytes, ' +
          'saveTimeoutMs, onEvent, noticeReader, preview, policy, sessionId, retrieval, maxReadBytes, search.',
      ),
    );
    expect(() => createSpillMiddleware({ backend, sessionId: '' })).toThrow(TypeError);
    expect(() => createSpillMiddleware(undefined as never)).toThrow(TypeError);
    // Named as what was called, with a reader or without one.
    for (const retrieval of [undefined, false] as const) {
      expect(() => createSpillMiddleware({ backend, retrieval, maxReadBytes: 0 })).toThrow(
        new TypeError('createSpillMiddleware: maxReadBytes must be a whole number, at least 1; got 0.'),
      );
    }
  });

  it('goes where createAgent takes middleware (types)', () => {
    const middleware = createSpillMiddleware({ backend: createMemoryBackend(), maxInlineBytes: CAP });
    const agent = (): unknown => createAgent({ model: fakeModel(), tools: [], middleware: [middleware] });
    expectTypeOf(agent).toBeFunction();
    expectTypeOf<SpillArtifact['locator']>().toEqualTypeOf<string>();
  });
});

describe('createSpillTools', () => {
  it('answers a tool call with a ToolMessage carrying the reader data as artifact', async () => {
    const backend = createMemoryBackend();
    const [read] = createSpillTools({ backend, maxReadBytes: 64 });
    expect(read?.name).toBe('spill_read');
    expect(read?.description).toBe(spillReadTool.description);
    const ref = await backend.saveText({
      owner: { sessionId: brandSessionId('s') },
      source: { toolName: 't', callId: 'c' as never },
      suggestedName: 'x.txt',
      content: 'one\ntwo\nthree\n',
    });
    const answer = (await read?.invoke({ type: 'tool_call', id: 'tc-1', name: 'spill_read', args: { locator: ref.locator, offset: 2 } })) as ToolMessage;
    expect(ToolMessage.isInstance(answer)).toBe(true);
    expect(answer.tool_call_id).toBe('tc-1');
    expect(answer.content).toMatch(/^two\nthree\n/);
    expect(answer.artifact).toMatchObject({ startLine: 2, endLine: 3 });
  });

  it('refuses a backend without a reader', () => {
    expect(() => createSpillTools({ backend: {} as never })).toThrow(/reader/);
  });

  it('refuses a bad or unknown option at construction, naming createSpillTools and what it accepts', () => {
    const backend = createMemoryBackend();
    expect(() => createSpillTools({ backend, maxReadByte: 10 } as never)).toThrow(
      new TypeError('createSpillTools does not know the option "maxReadByte"; the options are backend, maxReadBytes, defaultMaxMatches.'),
    );
    expect(() => createSpillTools({ backend, maxReadBytes: -1 })).toThrow(
      new TypeError('createSpillTools: maxReadBytes must be a whole number, at least 1; got -1.'),
    );
    expect(() => createSpillTools({ backend, defaultMaxMatches: 0 })).toThrow(
      new TypeError('createSpillTools: defaultMaxMatches must be a whole number, at least 1; got 0.'),
    );
    expect(createSpillTools({ backend, maxReadBytes: 1, defaultMaxMatches: 1 })).toHaveLength(2);
  });
});

describe('LangChain behaviour the README states', () => {
  it('a tool that throws ends the run once any middleware wraps tool calls (LangChain treats it as a middleware error)', async () => {
    const failing = tool(
      () => {
        throw new Error('upstream down');
      },
      { name: 'flaky', description: 'Fails.', schema: { type: 'object', properties: {} } },
    );
    const model = fakeModel()
      .respondWithTools([{ name: 'flaky', args: {}, id: 'c1' }])
      .respond(new AIMessage('done'));
    const agent = createAgent({ model, tools: [failing], middleware: [createSpillMiddleware({ backend: createMemoryBackend(), maxInlineBytes: CAP })] });
    await expect(agent.invoke({ messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow(/upstream down/);
  });
});
