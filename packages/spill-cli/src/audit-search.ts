/**
 * The audit's `spill_search` check, on the real search: each output is saved alone into a
 * memory backend and searched, with its index in memory, as the tool searches a session
 * (its default answer size), so the answer is the one a model would have got.
 */
import type { SearchOutput } from '@spillway/audit';
import { callId, sessionId } from '@spillway/core';

const SESSION = sessionId('audit');

/** What {@link searchOutputOnDemand} loads: the search, the memory backend and the tool's run (injectable, to test a failure to load). */
export type SearchModules = () => Promise<readonly [typeof import('@spillway/search'), typeof import('@spillway/memory'), typeof import('@spillway/tools')]>;

const modules: SearchModules = () => Promise.all([import('@spillway/search'), import('@spillway/memory'), import('@spillway/tools')]);

/** A {@link SearchOutput} that loads the search on its first call, and tells afterwards whether it could. */
export interface OnDemandSearch {
  readonly search: SearchOutput;
  /** True once a call found that the search cannot run here (libsql or its binary does not load). */
  readonly unavailable: () => boolean;
}

/**
 * A {@link SearchOutput} on `@spillway/search`, loaded only when the audit has an output to
 * search (an audit with nothing needed later never loads libsql). Its first call also
 * searches a probe text: when that fails, the search cannot run here, and every call
 * answers `undefined`, which the audit takes as "skip the check".
 */
export function searchOutputOnDemand(load: SearchModules = modules): OnDemandSearch {
  let ready: Promise<SearchOutput | undefined> | undefined;
  let missing = false;
  const start = async (): Promise<SearchOutput | undefined> => {
    try {
      const [{ createBackendSearch }, { createMemoryBackend }, { runSpillSearch }] = await load();
      const search = async (output: string, query: string): Promise<string[]> => {
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
      return probe.some((t) => t.includes('probe_4711')) ? search : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    search: async (output, query) => {
      const search = await (ready ??= start());
      if (search === undefined) {
        missing = true;
        return undefined;
      }
      return search(output, query);
    },
    unavailable: () => missing,
  };
}
