// The middleware in a real createAgent loop, driven offline by LangChain's own fake model.
import { sessionId as brandSessionId, SpillError, type SpillBackend } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import { type SpillEvent } from '@spillway/policy';
import { parseSpillNotice } from '@spillway/policy/notice';
import { bigLog, NEEDLE, NEEDLE_LINE } from '@spillway/test-support/big-log';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { Command } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { createSpillMiddleware, type SpillArtifact } from './index.js';

const CAP = 4096;

const fetchLogs = (log: string) =>
  tool(() => log, {
    name: 'fetch_logs',
    description: 'Fetch the logs of a service.',
    schema: { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] },
  });

function toolMessages(messages: readonly BaseMessage[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
}

function textOf(message: BaseMessage | undefined): string {
  const content = message?.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
}

async function artifacts(backend: ReturnType<typeof createMemoryBackend>, session?: string): Promise<number> {
  let n = 0;
  for await (const _ of backend.catalog.list(session === undefined ? {} : { sessionId: brandSessionId(session) })) n++;
  return n;
}

describe('createSpillMiddleware in a createAgent loop', () => {
  it('spills a 200 KB result, the next model call sees the preview, and spill_grep finds the line', async () => {
    const log = bigLog();
    const backend = createMemoryBackend();
    let locator = '';
    const model = fakeModel()
      .respondWithTools([{ name: 'fetch_logs', args: { service: 'api' }, id: 'call-1' }])
      .respond((messages) => {
        locator = parseSpillNotice(textOf(toolMessages(messages)[0]))?.locator ?? '';
        return new AIMessage({ content: '', tool_calls: [{ name: 'spill_grep', args: { locator, pattern: 'disk quota' }, id: 'call-2', type: 'tool_call' }] });
      })
      .respond(new AIMessage('Shard 17 ran out of disk quota.'));
    const agent = createAgent({
      model,
      tools: [fetchLogs(log)],
      middleware: [createSpillMiddleware({ backend, maxInlineBytes: CAP })],
    });
    const result = await agent.invoke(
      { messages: [{ role: 'user', content: 'Why did the api fail?' }] },
      { configurable: { thread_id: 'thread-7' } },
    );

    expect(model.callCount).toBe(3);
    // The second model call sees the preview and the notice, not the full result.
    const seen = toolMessages(model.calls[1]?.messages ?? []);
    expect(seen).toHaveLength(1);
    const shown = textOf(seen[0]);
    expect(new TextEncoder().encode(shown).length).toBeLessThanOrEqual(CAP);
    expect(shown).not.toContain(NEEDLE);
    expect(log.startsWith(shown.slice(0, 200))).toBe(true);
    expect(locator).toMatch(/^spill\+memory:\/\//);
    expect(seen[0]?.artifact).toMatchObject({ locator, omittedBytes: expect.any(Number) as number } satisfies Partial<SpillArtifact>);

    // The third model call sees the line spill_grep found.
    const third = toolMessages(model.calls[2]?.messages ?? []);
    expect(third.map((m) => m.name)).toEqual(['fetch_logs', 'spill_grep']);
    expect(textOf(third[1])).toContain(`${String(NEEDLE_LINE)}: ${NEEDLE}`);
    expect(third[1]?.status).toBe('success');

    // The artifact is the full result, under the thread's session.
    expect(await artifacts(backend, 'thread-7')).toBe(1);
    expect(await artifacts(backend)).toBe(1);
    const [entry] = await (async () => {
      const all = [];
      for await (const e of backend.catalog.list({ sessionId: brandSessionId('thread-7') })) all.push(e);
      return all;
    })();
    expect(entry?.locator).toBe(locator);
    expect(entry?.bytes).toBe(new TextEncoder().encode(log).length);
    expect(textOf(result.messages.at(-1))).toBe('Shard 17 ran out of disk quota.');
  });

  it('answers a forged locator as a tool error the model reads, and the run goes on', async () => {
    const backend = createMemoryBackend();
    const model = fakeModel()
      .respondWithTools([{ name: 'spill_read', args: { locator: '/etc/passwd' }, id: 'c1' }])
      .respond(new AIMessage('ok'));
    const agent = createAgent({ model, tools: [], middleware: [createSpillMiddleware({ backend, maxInlineBytes: CAP })] });
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'x' }] });
    const [answer] = toolMessages(result.messages);
    expect(answer?.status).toBe('error');
    expect(textOf(answer)).toContain('SPILL_INVALID_LOCATOR');
    expect(textOf(result.messages.at(-1))).toBe('ok');
  });

  it('answers arguments the schema refuses as every surface does: the code and what to fix, no stack trace', async () => {
    const backend = createMemoryBackend();
    const model = fakeModel()
      .respondWithTools([
        { name: 'spill_read', args: { locator: 'spill+memory://x', offset: 0 }, id: 'c1' },
        { name: 'spill_grep', args: { locator: 'spill+memory://x', pattern: 'a', maxMatches: -1 }, id: 'c2' },
      ])
      .respond(new AIMessage('ok'));
    const agent = createAgent({ model, tools: [], middleware: [createSpillMiddleware({ backend, maxInlineBytes: CAP })] });
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'x' }] });
    const answers = toolMessages(result.messages);
    expect(answers.map((m) => [m.tool_call_id, m.status, m.artifact as unknown])).toEqual([
      ['c1', 'error', { code: 'SPILL_INVALID_INPUT' }],
      ['c2', 'error', { code: 'SPILL_INVALID_INPUT' }],
    ]);
    expect(textOf(answers[0])).toMatch(/^spill_read failed \(SPILL_INVALID_INPUT\): .*offset/);
    expect(textOf(answers[1])).toMatch(/^spill_grep failed \(SPILL_INVALID_INPUT\): .*maxMatches/);
    for (const answer of answers) expect(textOf(answer)).not.toMatch(/expected schema|\n\s+at /);
    expect(textOf(result.messages.at(-1))).toBe('ok');
  });

  it('uses sessionId over the thread id', async () => {
    const backend = createMemoryBackend();
    const model = fakeModel()
      .respondWithTools([{ name: 'fetch_logs', args: { service: 'api' }, id: 'c1' }])
      .respond(new AIMessage('done'));
    const agent = createAgent({
      model,
      tools: [fetchLogs(bigLog())],
      middleware: [createSpillMiddleware({ backend, maxInlineBytes: CAP, sessionId: ({ configurable }) => `user-1/${String(configurable?.thread_id)}` })],
    });
    await agent.invoke({ messages: [{ role: 'user', content: 'x' }] }, { configurable: { thread_id: 't' } });
    expect(await artifacts(backend, 'user-1/t')).toBe(1);
    expect(await artifacts(backend, 't')).toBe(0);
  });

  it('passes a Command through unchanged', async () => {
    const backend = createMemoryBackend();
    const log = bigLog();
    const commanding = tool(
      (_input, runtime: { toolCall?: { id?: string } }) =>
        new Command({ update: { messages: [new ToolMessage({ content: log, tool_call_id: runtime.toolCall?.id ?? '', name: 'commanding' })] } }),
      { name: 'commanding', description: 'Answers with a Command.', schema: { type: 'object', properties: {} } },
    );
    const model = fakeModel()
      .respondWithTools([{ name: 'commanding', args: {}, id: 'c1' }])
      .respond(new AIMessage('done'));
    const agent = createAgent({ model, tools: [commanding], middleware: [createSpillMiddleware({ backend, maxInlineBytes: CAP })] });
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'x' }] }, { configurable: { thread_id: 't' } });
    expect(textOf(toolMessages(result.messages)[0])).toBe(log);
    expect(await artifacts(backend)).toBe(0);
  });

  for (const how of ['reject', 'throw'] as const) {
    it(`leaves the message as it was when the save ${how}s, with no tool error`, async () => {
      const log = bigLog();
      const failing: SpillBackend = {
        specificationVersion: 'v1',
        name: 'failing',
        saveText: () => {
          if (how === 'throw') throw new Error('disk on fire');
          return Promise.reject(new SpillError('SPILL_NO_SPACE', 'full'));
        },
        saveTextStream: () => Promise.reject(new SpillError('SPILL_NO_SPACE', 'full')),
      };
      const events: SpillEvent[] = [];
      const model = fakeModel()
        .respondWithTools([{ name: 'fetch_logs', args: { service: 'api' }, id: 'c1' }])
        .respond(new AIMessage('done'));
      const agent = createAgent({
        model,
        tools: [fetchLogs(log)],
        middleware: [createSpillMiddleware({ backend: failing, maxInlineBytes: CAP, onEvent: (e) => events.push(e) })],
      });
      const result = await agent.invoke({ messages: [{ role: 'user', content: 'x' }] }, { configurable: { thread_id: 't' } });
      const [message] = toolMessages(model.calls[1]?.messages ?? []);
      expect(textOf(message)).toBe(log);
      expect(message?.status).not.toBe('error');
      expect(message?.artifact).toBeUndefined();
      expect(events).toMatchObject([{ type: 'kept', reason: how === 'throw' ? 'save-threw' : 'save-rejected' }]);
      expect(textOf(result.messages.at(-1))).toBe('done');
    });
  }
});
