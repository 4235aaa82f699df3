// The shared spill_search contract, run against this adapter's real tool: the middleware's
// spill_search, invoked with a tool call as an agent invokes it, answers each request
// exactly as the shared run does over the same backend.
import { createMemoryBackend } from '@spillway/memory';
import { runSpillSearch } from '@spillway/tools';
import { createBackendSearch } from '@spillway/search';
import { expectSameSearchAnswers, saveSearchFixture, SEARCH_SESSION, sharedSearchRun } from '@spillway/test-support/search-answers';
import type { ToolMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { describe, expect, it } from 'vitest';
import { createSpillMiddleware, createSpillSearchTool } from './index.js';

async function check(searchTool: StructuredToolInterface, shared: Parameters<typeof runSpillSearch>[0]): Promise<void> {
  let calls = 0;
  await expectSameSearchAnswers(
    async (args) => {
      const message = (await searchTool.invoke({ type: 'tool_call', id: `s${String(++calls)}`, name: 'spill_search', args: { ...args } }, { configurable: { thread_id: SEARCH_SESSION } })) as ToolMessage;
      if (typeof message.content !== 'string') throw new Error('no text answer');
      return { text: message.content, isError: message.status === 'error' };
    },
    sharedSearchRun(shared),
  );
}

describe('spill_search in LangChain answers as every surface does', () => {
  it('the middleware\'s tool and createSpillSearchTool give the shared run\'s answer to each request', async () => {
    const backend = createMemoryBackend();
    await saveSearchFixture(backend);
    const searcher = await createBackendSearch(backend);
    const shared = await createBackendSearch(backend);
    try {
      const middleware = createSpillMiddleware({ backend, maxInlineBytes: 4096, search: searcher });
      const fromMiddleware = (middleware.tools ?? []).find((t) => t.name === 'spill_search') as StructuredToolInterface | undefined;
      expect(fromMiddleware).toBeDefined();
      if (fromMiddleware !== undefined) await check(fromMiddleware, shared);
      await check(createSpillSearchTool({ searcher }), shared);
    } finally {
      await searcher.close();
      await shared.close();
    }
  });
});
