// The shared spill_search contract, run against this adapter's real tool: withSpill's
// spill_search, its execute and then its toModelOutput (what the model is sent), answers
// each request exactly as the shared run does over the same backend.
import { createMemoryBackend } from '@spillway/memory';
import { createBackendSearch } from '@spillway/search';
import { expectSameSearchAnswers, saveSearchFixture, SEARCH_SESSION, sharedSearchRun } from '@spillway/test-support/search-answers';
import { jsonSchema, tool } from 'ai';
import { describe, it } from 'vitest';
import { withSpill } from './index.js';

describe('withSpill({ search }) answers spill_search as every surface does', () => {
  it('gives the shared run\'s answer to each request', async () => {
    const backend = createMemoryBackend();
    await saveSearchFixture(backend);
    const searcher = await createBackendSearch(backend);
    const shared = await createBackendSearch(backend);
    const noop = tool({ inputSchema: jsonSchema({ type: 'object' }), execute: () => 'ok' });
    const tools = withSpill({ noop }, { backend, maxInlineBytes: 4096, sessionId: SEARCH_SESSION, search: searcher });
    let calls = 0;
    try {
      await expectSameSearchAnswers(
        async (args) => {
          const options = { toolCallId: `s${String(++calls)}`, messages: [] };
          const output = await tools.spill_search.execute?.(args, options);
          const shown = await tools.spill_search.toModelOutput?.({ toolCallId: options.toolCallId, input: args, output: output as never });
          if (shown === undefined || (shown.type !== 'text' && shown.type !== 'error-text')) throw new Error('no text answer');
          return { text: shown.value, isError: shown.type === 'error-text' };
        },
        sharedSearchRun(shared),
      );
    } finally {
      await searcher.close();
      await shared.close();
    }
  });
});
