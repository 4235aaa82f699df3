import { createMemoryBackend } from '@spillway/memory';
import { describe, expect, it } from 'vitest';
import { SEARCH_PACKAGE, SEARCH_SKIP_NOTE, loadDefaultSearch } from './search-loader.js';

function notFound(specifier: string): Error {
  return Object.assign(new Error(`Cannot find package '${specifier}' imported from /x/search-loader.js`), { code: 'ERR_MODULE_NOT_FOUND' });
}

describe('loading the default searcher', () => {
  it('answers a skip note that says how to turn the search tests on when the package is not installed', async () => {
    const loaded = await loadDefaultSearch((specifier) => Promise.reject(notFound(specifier)));
    expect(loaded).toEqual({ skip: SEARCH_SKIP_NOTE });
    expect(SEARCH_SKIP_NOTE).toContain('pnpm add -D @spillway/search');
    expect(SEARCH_SKIP_NOTE).toContain('search:');
  });

  it('rejects when the package is there but broken, instead of skipping quietly', async () => {
    await expect(loadDefaultSearch(() => Promise.reject(new SyntaxError('Unexpected token')))).rejects.toThrow('Unexpected token');
    // A dependency of the package that is missing is a broken install, not a missing package.
    const inner = Object.assign(new Error("Cannot find package 'libsql' imported from /x/node_modules/@spillway/search/dist/database.js"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(loadDefaultSearch(() => Promise.reject(inner))).rejects.toBe(inner);
    await expect(loadDefaultSearch(() => Promise.resolve({}))).rejects.toThrow(TypeError);
  });

  it('calls createBackendSearch of the package with the backend, its index in memory', async () => {
    const seen: unknown[] = [];
    const searcher = { search: () => Promise.resolve({ hits: [], more: false }) };
    const loaded = await loadDefaultSearch((specifier) => {
      expect(specifier).toBe(SEARCH_PACKAGE);
      return Promise.resolve({ createBackendSearch: (backend: unknown, options: unknown) => (seen.push(backend, options), Promise.resolve(searcher)) });
    });
    if (!('factory' in loaded)) throw new Error('no factory');
    const backend = createMemoryBackend();
    await expect(loaded.factory(backend, { backend })).resolves.toBe(searcher);
    expect(seen).toEqual([backend, { location: ':memory:' }]);
  });

  it('finds @spillway/search where it is installed, as in this repository', async () => {
    const loaded = await loadDefaultSearch();
    expect('factory' in loaded).toBe(true);
  });
});
