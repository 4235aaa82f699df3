import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { callId, isSpillError, sessionId, type SpillBackend } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { createBackendSearch, defaultIndexLocation } from './backend-search.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The memory backend, answering `indexHome` with `home` (a stand-in for any backend that has a place on disk). */
function withHome(home: string | undefined): SpillBackend {
  const memory = createMemoryBackend();
  return { ...memory, name: 'anything', indexHome: () => Promise.resolve(home) };
}

async function refusal(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the index location a backend asks for', () => {
  it('is index.sqlite in the directory indexHome answers, whatever the backend is called', async () => {
    expect(await defaultIndexLocation(withHome('/somewhere/root.search'))).toBe(path.join('/somewhere/root.search', 'index.sqlite'));
  });

  it('is memory when indexHome answers nothing or is absent', async () => {
    expect(await defaultIndexLocation(withHome(undefined))).toBe(':memory:');
    expect(await defaultIndexLocation(createMemoryBackend())).toBe(':memory:');
    // A backend named local without indexHome is not guessed at.
    expect(await defaultIndexLocation({ ...createMemoryBackend(), name: 'local', root: () => Promise.resolve('/nowhere') } as SpillBackend)).toBe(':memory:');
  });

  it('makes the index there, private, when the searcher opens', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'spill-search-home-'));
    dirs.push(base);
    const home = path.join(base, 'root.search');
    const backend = withHome(home);
    await backend.saveText({ owner: { sessionId: sessionId('s') }, source: { toolName: 't', callId: callId('c') }, suggestedName: 'a.txt', content: 'needle in here\n' });
    const search = await createBackendSearch(backend);
    try {
      const result = await search.search({ sessionId: sessionId('s'), query: 'needle' });
      expect(result.hits.length).toBe(1);
    } finally {
      await search.close();
    }
    expect(statSync(path.join(home, 'index.sqlite')).isFile()).toBe(true);
    expect(statSync(home).mode & 0o777).toBe(0o700);
  });

  it('refuses a backend of another specification version with SPILL_INVALID_INPUT', async () => {
    const other = { ...createMemoryBackend(), specificationVersion: 'v2' } as unknown as SpillBackend;
    for (const run of [() => defaultIndexLocation(other), () => createBackendSearch(other)]) {
      const error = await refusal(run);
      expect(isSpillError(error, 'SPILL_INVALID_INPUT')).toBe(true);
      expect((error as Error).message).toMatch(/specificationVersion 'v2', but @spillway\/search speaks 'v1'/);
    }
  });
});
