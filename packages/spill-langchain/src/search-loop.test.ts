// spill_search in a real createAgent loop, driven offline by LangChain's fake model: the
// middleware spills under the run's thread, and spill_search searches that thread's spills.
import { retrievalHintFor } from '@spillway/core/notice';
import { createMemoryBackend } from '@spillway/memory';
import { parseSpillNotice } from '@spillway/policy/notice';
import { createBackendSearch } from '@spillway/search';
import { bigLog, NEEDLE } from '@spillway/test-support/big-log';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { createSpillMiddleware, createSpillSearchTool } from './index.js';

function toolMessages(messages: readonly BaseMessage[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
}

function textOf(message: BaseMessage | undefined): string {
  const content = message?.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
}

describe('spill_search through the middleware in a createAgent loop', () => {
  it('searches the thread\'s spills, not another thread\'s, and spill_read follows the hit', async () => {
    const backend = createMemoryBackend();
    const searcher = await createBackendSearch(backend);
    let hit: { locator: string; startLine: number } | undefined;
    const logs = tool((input: { service: string }) => (input.service === 'api' ? bigLog() : 'nothing to see\n'.repeat(5000)), {
      name: 'fetch_logs',
      description: 'Fetch the logs of a service.',
      schema: { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] },
    });
    const middleware = createSpillMiddleware({ backend, maxInlineBytes: 4096, search: searcher });

    // Another thread's spill holds the same words: it must not be answered.
    const other = createAgent({
      model: fakeModel()
        .respondWithTools([{ name: 'fetch_logs', args: { service: 'api' }, id: 'o1' }])
        .respond(new AIMessage('done')),
      tools: [logs],
      middleware: [middleware],
    });
    await other.invoke({ messages: [{ role: 'user', content: 'go' }] }, { configurable: { thread_id: 'thread-other' } });
    const otherLocators = new Set<string>();
    for await (const e of backend.catalog.list()) otherLocators.add(e.locator);

    const model = fakeModel()
      .respondWithTools([{ name: 'fetch_logs', args: { service: 'api' }, id: 'c1' }])
      .respondWithTools([{ name: 'spill_search', args: { query: 'disk quota exceeded' }, id: 'c2' }])
      .respond((messages) => {
        const answer = textOf(toolMessages(messages)[1]);
        const m = /^\[1\] (\S+) lines? (\d+)/m.exec(answer);
        hit = m === null ? undefined : { locator: m[1] ?? '', startLine: Number(m[2]) };
        return new AIMessage({ content: '', tool_calls: [{ name: 'spill_read', args: { locator: hit?.locator ?? '', offset: hit?.startLine ?? 1, limit: 30 }, id: 'c3', type: 'tool_call' }] });
      })
      .respond(new AIMessage('Shard 17 ran out of disk quota.'));
    const agent = createAgent({ model, tools: [logs], middleware: [middleware] });
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'Why?' }] }, { configurable: { thread_id: 'thread-s' } });

    const seen = toolMessages(model.calls[2]?.messages ?? []);
    expect(seen.map((m) => m.name)).toEqual(['fetch_logs', 'spill_search']);
    expect(seen[1]?.status).toBe('success');
    const answer = textOf(seen[1]);
    expect(answer).toContain(NEEDLE);
    expect(new TextEncoder().encode(answer).length).toBeLessThanOrEqual(4096);
    expect(hit).toBeDefined();
    expect(otherLocators.has(hit?.locator ?? '')).toBe(false);
    const read = toolMessages(model.calls[3]?.messages ?? [])[2];
    expect(read?.name).toBe('spill_read');
    expect(textOf(read)).toContain(NEEDLE);
    expect(textOf(result.messages.at(-1))).toBe('Shard 17 ran out of disk quota.');
    await searcher.close();
  });

  it('the notice the model receives names spill_search when the middleware offers it, and not otherwise', async () => {
    const backend = createMemoryBackend();
    const searcher = await createBackendSearch(backend);
    const logs = tool(() => bigLog(), {
      name: 'fetch_logs',
      description: 'Fetch the logs.',
      schema: { type: 'object', properties: {} },
    });
    const noticeSeen = async (search: typeof searcher | undefined): Promise<string> => {
      const model = fakeModel()
        .respondWithTools([{ name: 'fetch_logs', args: {}, id: 'n1' }])
        .respond(new AIMessage('done'));
      const middleware = createSpillMiddleware({ backend, maxInlineBytes: 4096, ...(search === undefined ? {} : { search }) });
      const agent = createAgent({ model, tools: [logs], middleware: [middleware] });
      await agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, { configurable: { thread_id: `thread-${String(search !== undefined)}` } });
      return textOf(toolMessages(model.calls[1]?.messages ?? [])[0]);
    };
    const withSearch = await noticeSeen(searcher);
    expect(parseSpillNotice(withSearch)?.retrievalHint).toBe(retrievalHintFor('spill-tools-and-search'));
    expect(withSearch).toContain('spill_search');
    const without = await noticeSeen(undefined);
    expect(parseSpillNotice(without)?.retrievalHint).toBe(retrievalHintFor('spill-tools'));
    expect(without).not.toContain('spill_search');
    await searcher.close();
  });

  it('needs a searcher', () => {
    expect(() => createSpillSearchTool({} as never)).toThrow(TypeError);
  });

  it('refuses a bad limit or an unknown option when it is made, not on each search', () => {
    const searcher = { search: () => Promise.resolve({ hits: [], more: false }) };
    expect(() => createSpillSearchTool({ searcher, maxSearchBytes: 10 })).toThrow(/^createSpillSearchTool: maxSearchBytes must be a whole number, at least 1024; got 10\.$/);
    expect(() => createSpillSearchTool({ searcher, maxSearchByte: 4096 } as never)).toThrow(
      'createSpillSearchTool does not know the option "maxSearchByte"; the options are searcher, sessionId, maxSearchBytes.',
    );
    expect(createSpillSearchTool({ searcher, sessionId: 's', maxSearchBytes: 4096 }).name).toBe('spill_search');
  });
});
