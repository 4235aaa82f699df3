// `spillway gc` and the hidden `gc-auto` keep the search index in check: after a real sweep,
// what the store no longer holds leaves the index, which is compacted; a dry run and a
// root without an index are left alone; a broken index is a warning, never a failed gc.
import { existsSync } from 'node:fs';
import { readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callId, sessionId, type SpillEntry } from '@spillway/core';
import { createLocalBackend } from '@spillway/local';
import { createBackendSearch, INDEX_FILE_NAME, indexDirFor } from '@spillway/search';
import { main } from '../main.js';
import { testIO } from '../test-io.js';
import { makePrivateDir, tempDirsPerTest } from '../test-temp-dirs.js';

const tmp = tempDirsPerTest('spillway-gc-index-');
const DAY = 86_400_000;
const SESSION = sessionId('rocks');

/** A log of `lines` lines that all carry `word`, with enough other words to make the index grow. */
function log(word: string, lines: number): string {
  return Array.from({ length: lines }, (_, i) => `${word} sample ${String(i)} grain ${(i * 2654435761 >>> 0).toString(36)} hardness ${String(i % 10)}`).join('\n');
}

interface Fixture {
  readonly root: string;
  readonly home: string;
  readonly index: string;
  /** The two old artifacts, as the catalog listed them, with their content. */
  readonly old: readonly { readonly entry: SpillEntry; readonly content: string }[];
}

async function fixture(): Promise<Fixture> {
  const base = tmp();
  const root = join(base, 'root');
  await makePrivateDir(root);
  const backend = createLocalBackend({ root });
  const save = (word: string) =>
    backend.saveText({ owner: { sessionId: SESSION }, source: { toolName: 'bash', callId: callId(word) }, suggestedName: `${word}.log`, content: log(word, 3000) });
  const longAgo = new Date(Date.now() - 10 * DAY);
  for (const word of ['quartzite', 'obsidian']) {
    const ref = await save(word);
    await utimes(ref.locator, longAgo, longAgo);
  }
  await save('granite');
  const old: { entry: SpillEntry; content: string }[] = [];
  for await (const entry of backend.catalog.list({ sessionId: SESSION })) {
    const content = await readFile(entry.locator, 'utf8');
    if (!content.startsWith('granite')) old.push({ entry, content });
  }
  // A search builds the index, as a user's first search does.
  const searcher = await createBackendSearch(backend);
  const found = await searcher.search({ query: 'quartzite', sessionId: SESSION });
  expect(found.hits.length).toBeGreaterThan(0);
  await searcher.close();
  const index = join(indexDirFor(root), INDEX_FILE_NAME);
  expect(existsSync(index)).toBe(true);
  return { root, home: join(base, 'home'), index, old };
}

async function cli(f: Pick<Fixture, 'root' | 'home'>, args: readonly string[]) {
  const { io, stdout, stderr } = testIO({ env: { SPILLWAY_ROOT: f.root }, homedir: f.home });
  const code = await main([...args], io);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

async function fileSize(file: string): Promise<number> {
  const wal = await stat(`${file}-wal`).then((s) => s.size, () => 0);
  return (await stat(file)).size + wal;
}

describe('spillway gc and the search index', () => {
  it('drops what the sweep deleted from the index and compacts it; the index file shrinks', async () => {
    const f = await fixture();
    const before = await fileSize(f.index);
    const ran = await cli(f, ['gc', '--older-than', '1d', '--grace', '0', '--json']);
    expect(ran.code).toBe(0);
    expect(ran.stderr).toBe('');
    const json = JSON.parse(ran.stdout) as { deleted: { count: number }; index: { location: string; removed: number; bytesBefore: number; bytesAfter: number; error: null } };
    expect(json.deleted.count).toBe(2);
    expect(json.index).toMatchObject({ location: f.index, removed: 2, error: null });
    // The write-ahead log may be folded into the file at any moment, so only the order is certain.
    expect(json.index.bytesAfter).toBeLessThan(json.index.bytesBefore);
    expect(json.index.bytesAfter).toBeLessThan(before);
    expect(await fileSize(f.index)).toBeLessThan(before);

    const backend = createLocalBackend({ root: f.root });
    const searcher = await createBackendSearch(backend);
    try {
      expect((await searcher.search({ query: 'quartzite', sessionId: SESSION })).hits).toEqual([]);
      expect((await searcher.search({ query: 'granite', sessionId: SESSION })).hits.length).toBeGreaterThan(0);
      // Put the deleted files back exactly as they were: an index that still held them
      // would take them as known; this one has dropped them, so it indexes them again.
      for (const { entry, content } of f.old) {
        await writeFile(entry.locator, content, { mode: 0o600, flag: 'wx' });
        await utimes(entry.locator, entry.createdAt, entry.createdAt);
      }
      expect((await searcher.refresh({ sessionId: SESSION })).indexed).toBe(2);
    } finally {
      await searcher.close();
    }
  });

  it('prints what it did to the index in the summary', async () => {
    const f = await fixture();
    const ran = await cli(f, ['gc', '--older-than', '1d', '--grace', '0']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^Search index: dropped 2 deleted artifacts; .* after compaction \(was .*\)\.$/m);
  });

  it('leaves the index alone on a dry run', async () => {
    const f = await fixture();
    const bytes = await readFile(f.index);
    const mtime = (await stat(f.index)).mtimeMs;
    const ran = await cli(f, ['gc', '--older-than', '1d', '--grace', '0', '--dry-run', '--json']);
    expect(ran.code).toBe(0);
    expect((JSON.parse(ran.stdout) as { index: unknown }).index).toBeNull();
    expect((await readFile(f.index)).equals(bytes)).toBe(true);
    expect((await stat(f.index)).mtimeMs).toBe(mtime);
    const human = await cli(f, ['gc', '--older-than', '1d', '--grace', '0', '--dry-run']);
    expect(human.stdout).not.toContain('Search index');
  });

  it('creates no index where there is none, and says nothing of one', async () => {
    const base = tmp();
    const root = join(base, 'root');
    await makePrivateDir(root);
    const backend = createLocalBackend({ root });
    await backend.saveText({ owner: { sessionId: SESSION }, source: { toolName: 'bash', callId: callId('x') }, suggestedName: 'x.log', content: log('basalt', 10) });
    const ran = await cli({ root, home: join(base, 'home') }, ['gc', '--older-than', '1d', '--json']);
    expect(ran.code).toBe(0);
    expect((JSON.parse(ran.stdout) as { index: unknown }).index).toBeNull();
    expect(existsSync(indexDirFor(root))).toBe(false);
    const human = await cli({ root, home: join(base, 'home') }, ['gc', '--older-than', '1d']);
    expect(human.stdout).not.toContain('Search index');
    expect(existsSync(indexDirFor(root))).toBe(false);
  });

  it('warns, saying to delete the cache, and still succeeds when the index cannot be used', async () => {
    const f = await fixture();
    // Replaced, never rewritten in place: SQLite really closes the fixture's connection only
    // once its statements are garbage-collected, and a -shm file truncated under its mapping
    // would kill this process with SIGBUS (seen in about one run in ten).
    for (const suffix of ['', '-wal', '-shm']) await rm(`${f.index}${suffix}`, { force: true });
    await writeFile(f.index, 'this is not an SQLite database\n'.repeat(200));
    const ran = await cli(f, ['gc', '--older-than', '1d', '--grace', '0', '--json']);
    expect(ran.code).toBe(0);
    const json = JSON.parse(ran.stdout) as { deleted: { count: number }; index: { location: string; error: { code: string | null; message: string } } };
    expect(json.deleted.count).toBe(2);
    expect(json.index.location).toBe(f.index);
    expect(json.index.error.message.length).toBeGreaterThan(0);
    expect(ran.stderr).toContain(`spillway: warning: the search index ${f.index} was not compacted`);
    expect(ran.stderr).toContain(`delete it (rm ${f.index}) and the next search rebuilds it`);

    const human = await cli(f, ['gc', '--older-than', '1d', '--grace', '0']);
    expect(human.code).toBe(0);
    expect(human.stdout).not.toContain('Search index');
    expect(human.stderr).toContain('only a cache of the store');
  });

  it('the automatic sweep compacts the index too', async () => {
    const f = await fixture();
    const before = await fileSize(f.index);
    const { io } = testIO({ env: { SPILLWAY_AUTO_GC_MAX_AGE: '1d' }, homedir: f.home });
    expect(await main(['gc-auto', '--root', f.root], io)).toBe(0);
    expect(f.old.every(({ entry }) => !existsSync(entry.locator))).toBe(true);
    expect(await fileSize(f.index)).toBeLessThan(before);
  });
});
