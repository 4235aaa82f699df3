import type { SpillBackend } from '@spillway/core';
import type { ConformanceSearchFactory } from './options.js';

/** The optional peer that provides the default searcher. */
export const SEARCH_PACKAGE = '@spillway/search';

/** How to turn the search tests on, for the note of a skipped one. */
export const SEARCH_SKIP_NOTE =
  `search tests skipped: ${SEARCH_PACKAGE} is not installed. Install it next to @spillway/conformance ` +
  '(pnpm add -D @spillway/search), or pass describeSpillBackend({ search: (backend) => yourSearcher }); search: false turns this note off';

/** The default searcher factory, or the reason there is none. */
export type LoadedSearch = { readonly factory: ConformanceSearchFactory } | { readonly skip: string };

/** Imports a module by name (a seam, so the missing-package path can be tested). */
export type ModuleImporter = (specifier: string) => Promise<unknown>;

const importModule: ModuleImporter = (specifier) => import(specifier);

/** True when `error` says that `specifier` itself is not installed (not one of its own imports). */
function isMissing(error: unknown, specifier: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  const names = [`'${specifier}'`, `"${specifier}"`, `url ${specifier} `].some((form) => message.includes(form));
  return names && (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || /Cannot find (module|package)|Failed to load url/.test(message));
}

/**
 * Loads `createBackendSearch` from `@spillway/search` when it is installed, for a
 * searcher whose index is in memory. A missing
 * package answers a skip note; a package that is there but broken (no such export, or
 * an import that throws for another reason) rejects, because hiding that would skip
 * tests silently.
 */
export async function loadDefaultSearch(importer: ModuleImporter = importModule): Promise<LoadedSearch> {
  let loaded: unknown;
  try {
    loaded = await importer(SEARCH_PACKAGE);
  } catch (error) {
    if (isMissing(error, SEARCH_PACKAGE)) return { skip: SEARCH_SKIP_NOTE };
    throw error;
  }
  const create = (loaded as { createBackendSearch?: unknown } | null)?.createBackendSearch;
  if (typeof create !== 'function') {
    throw new TypeError(`${SEARCH_PACKAGE} was found but exports no createBackendSearch function; install a version that matches @spillway/conformance.`);
  }
  // The index in memory: on disk it would land beside the backend's storage (next to a
  // local root), where the fixture's cleanup does not know to remove it.
  const factory: ConformanceSearchFactory = (backend: SpillBackend) =>
    (create as (b: SpillBackend, o: { location: string }) => ReturnType<ConformanceSearchFactory>)(backend, { location: ':memory:' });
  return { factory };
}
