/**
 * The audit's `spill_search` check, on the real search: each output is saved alone into a
 * memory backend and searched, with its index in memory, as the tool searches a session
 * (its default answer size), so the answer is the one a model would have got.
 */
import type { SearchOutput } from '@spillway/audit';
import { callId, sessionId } from '@spillway/core';

const SESSION = sessionId('audit');

/** What {@link loadSearchOutput} loads: the search and the memory backend (injectable, to test a failure to load). */
export type SearchModules = () => Promise<readonly [typeof import('@spillway/search'), typeof import('@spillway/memory'), typeof import('@spillway/tools')]>;

const modules: SearchModules = () => Promise.all([import('@spillway/search'), import('@spillway/memory'), import('@spillway/tools')]);

/**
 * A {@link SearchOutput} on `@spillway/search`, or `undefined` when the search cannot run
 * here (libsql or its binary does not load): one search of a probe text is made first, so
 * the audit learns that before it relies on the answers.
 */
export async function loadSearchOutput(load: SearchModules = modules): Promise<SearchOutput | undefined> {
  let search: SearchOutput;
  try {
    const [{ createBackendSearch }, { createMemoryBackend }, { runSpillSearch }] = await load();
    search = async (output, query) => {
      const backend = createMemoryBackend({ maxBytes: Buffer.byteLength(output) + 1 });
      await backend.saveText({ owner: { sessionId: SESSION }, source: { toolName: 'audit', callId: callId('audit-1') }, suggestedName: 'output.txt', content: output });
      const searcher = await createBackendSearch(backend, { location: ':memory:' });
      try {
        const answer = await runSpillSearch(searcher, { query }, { sessionId: SESSION });
        if (!answer.isError) return answer.data.hits.map((h) => h.text);
        // A query of no searchable word is refused: nothing is found. Any other failure is the audit's.
        if (answer.code === 'SPILL_INVALID_INPUT') return [];
        throw new Error(answer.text);
      } finally {
        await searcher.close();
      }
    };
    const probe = await search('spillway audit probe_4711\n', 'probe_4711');
    if (!probe.some((t) => t.includes('probe_4711'))) return undefined;
  } catch {
    return undefined;
  }
  return search;
}
