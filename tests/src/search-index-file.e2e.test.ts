import { chmod, lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sessionId } from '@spillway/core';
import { createLocalBackend } from '@spillway/local';
import { afterEach, describe, expect, it } from 'vitest';
import { createBackendSearch, createSpillSearch, defaultIndexLocation, indexDirFor } from '@spillway/search';
import { saveText as save } from '@spillway/test-support/save-text';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'spill-search-file-'));
  dirs.push(d);
  return d;
}

describe('the index on disk', () => {
  it('lives next to a local backend root, in a 0700 directory, as a 0600 file', async () => {
    const dir = await tempDir();
    const root = path.join(dir, 'spills');
    const backend = createLocalBackend({ root, createRoot: true });
    const location = await defaultIndexLocation(backend);
    expect(location).toBe(path.join(dir, 'spills.search', 'index.sqlite'));
    expect(indexDirFor(root)).toBe(path.join(dir, 'spills.search'));
    const search = await createBackendSearch(backend);
    await save(backend, sessionId('f'), 'hello index file\n');
    expect((await search.search({ query: 'hello', sessionId: sessionId('f') })).hits).toHaveLength(1);
    expect((await lstat(path.dirname(location))).mode & 0o777).toBe(0o700);
    expect((await lstat(location)).mode & 0o777).toBe(0o600);
    await search.close();
    // Still there for the next process, which answers without rebuilding.
    const again = await createBackendSearch(backend);
    const refreshed = await again.refresh({ sessionId: sessionId('f') });
    expect(refreshed.indexed).toBe(0);
    expect((await again.search({ query: 'hello', sessionId: sessionId('f') })).hits).toHaveLength(1);
    await again.close();
  });

  it('refuses a symbolic link, a directory others can enter and a file others can read, with SPILL_UNSAFE_ROOT', async () => {
    const dir = await tempDir();
    const backend = createLocalBackend({ root: path.join(dir, 'root'), createRoot: true });
    const attempt = async (location: string) => {
      const search = createSpillSearch({ reader: backend.reader, catalog: backend.catalog, location });
      try {
        await search.search({ query: 'x' });
      } finally {
        await search.close();
      }
    };
    await mkdir(path.join(dir, 'ok'), { mode: 0o700 });
    await writeFile(path.join(dir, 'target'), '');
    await symlink(path.join(dir, 'target'), path.join(dir, 'ok', 'link.sqlite'));
    await expect(attempt(path.join(dir, 'ok', 'link.sqlite'))).rejects.toMatchObject({ code: 'SPILL_UNSAFE_ROOT' });

    await mkdir(path.join(dir, 'open'), { mode: 0o700 });
    await chmod(path.join(dir, 'open'), 0o755);
    await expect(attempt(path.join(dir, 'open', 'index.sqlite'))).rejects.toMatchObject({ code: 'SPILL_UNSAFE_ROOT' });

    await writeFile(path.join(dir, 'ok', 'shared.sqlite'), '', { mode: 0o644 });
    await chmod(path.join(dir, 'ok', 'shared.sqlite'), 0o644);
    await expect(attempt(path.join(dir, 'ok', 'shared.sqlite'))).rejects.toMatchObject({ code: 'SPILL_UNSAFE_ROOT' });

    await symlink(path.join(dir, 'ok'), path.join(dir, 'dirlink'));
    await expect(attempt(path.join(dir, 'dirlink', 'index.sqlite'))).rejects.toMatchObject({ code: 'SPILL_UNSAFE_ROOT' });
  });

  it('is rebuilt when deleted: it is a cache of the store', async () => {
    const dir = await tempDir();
    const backend = createLocalBackend({ root: path.join(dir, 'root'), createRoot: true });
    await save(backend, sessionId('r'), 'capybara facts\n');
    const first = await createBackendSearch(backend);
    expect((await first.search({ query: 'capybara' })).hits).toHaveLength(1);
    await first.close();
    await rm(indexDirFor(path.join(dir, 'root')), { recursive: true });
    const second = await createBackendSearch(backend);
    expect((await second.search({ query: 'capybara' })).hits).toHaveLength(1);
    const gc = await second.gc();
    expect(gc.bytesAfter).toBeGreaterThan(0);
    await second.close();
  });

  it('is settled when close returns: the write-ahead log is folded in, and nothing writes the file later', async () => {
    const dir = await tempDir();
    const root = path.join(dir, 'root');
    const backend = createLocalBackend({ root, createRoot: true });
    for (let i = 0; i < 20; i++) await save(backend, sessionId('w'), `line ${String(i)} of basalt\n`.repeat(400));
    const search = await createBackendSearch(backend);
    expect((await search.search({ query: 'basalt', sessionId: sessionId('w') })).hits.length).toBeGreaterThan(0);
    const location = search.location;
    await search.close();
    const walBytes = await stat(`${location}-wal`).then((s) => s.size, () => 0);
    expect(walBytes).toBe(0);
    const bytes = await readFile(location);
    const mtime = (await stat(location)).mtimeMs;
    // libsql closes SQLite's connection only when its statements are collected: provoke that
    // collection, which used to checkpoint the log into the file at that late moment.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    for (let i = 0; i < 3; i++) {
      collect();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await readFile(location)).equals(bytes)).toBe(true);
    expect((await stat(location)).mtimeMs).toBe(mtime);
  });
});
