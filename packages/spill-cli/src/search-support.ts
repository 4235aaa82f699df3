import type { SpillBackend, SpillSearchRequest, SpillSearchResult, SpillSearcher } from '@spillway/core';

/**
 * A searcher over a backend that loads `@spillway/search` (and SQLite with it) on its
 * first search, so that a command or a proxy that never searches pays nothing. A backend
 * without a reader and a catalog cannot be searched: `undefined`.
 */
export function lazySearcher(backend: SpillBackend): (SpillSearcher & { close(): Promise<void> }) | undefined {
  if (backend.reader === undefined || backend.catalog === undefined) return undefined;
  let made: Promise<SpillSearcher & { close(): Promise<void> }> | undefined;
  const get = (): Promise<SpillSearcher & { close(): Promise<void> }> => {
    made ??= import('@spillway/search').then((m) => m.createBackendSearch(backend));
    made.catch(() => {
      made = undefined;
    });
    return made;
  };
  return {
    search: async (request: SpillSearchRequest): Promise<SpillSearchResult> => (await get()).search(request),
    close: async () => {
      if (made !== undefined) await (await made.catch(() => undefined))?.close();
    },
  };
}
