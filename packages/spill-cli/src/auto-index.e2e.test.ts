// After a spill into a store that has been searched, the index is brought up to date in a
// detached child, so that the next search finds the new output indexed; a store that was
// never searched, or SPILLWAY_AUTO_INDEX=off, starts nothing.
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTO_INDEX_LOCK, localIndexDir } from './auto-index.js';
import { ensureBuilt, spillway } from './test-bin.js';

interface Db {
  prepare(sql: string): { get(): unknown };
  close(): void;
}
const requireFromSearch = createRequire(createRequire(import.meta.url).resolve('@spillway/search/package.json'));
const Database = requireFromSearch('libsql') as new (file: string, options: { readonly: boolean }) => Db;

/** Artifacts indexed whole, read straight from the index file (a search would index first). */
function indexedCount(root: string): number {
  const db = new Database(join(localIndexDir(root), 'index.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM artifacts WHERE complete = 1').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the background indexer has let go of the index (up to 30 s). */
async function settled(root: string): Promise<void> {
  const lock = join(localIndexDir(root), AUTO_INDEX_LOCK);
  for (let i = 0; i < 300 && existsSync(lock); i++) await sleep(100);
  expect(existsSync(lock), 'the background indexer still holds its lock').toBe(false);
}

const PRINT = (needle: string) => `for (let i = 0; i < 20000; i++) console.log(i === 15000 ? '${needle}' : 'worker ' + i + ' handled a request');`;

describe('indexing in the background after a spill', () => {
  let dir: string;
  const envFor = (root: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    SPILLWAY_ROOT: root,
    SPILLWAY_SESSION: 'bg-s',
    SPILLWAY_USAGE: 'off',
    ...extra,
  });
  const newRoot = async (name: string): Promise<string> => {
    const root = join(dir, name);
    await mkdir(root, { mode: 0o700 });
    return root;
  };

  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'spillway-auto-index-'));
    await chmod(dir, 0o700);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('indexes a new spill of a searched store before any search asks', async () => {
    const root = await newRoot('searched');
    const env = envFor(root);
    const first = await spillway(['run', '--max-inline-bytes', '2048', '--', process.execPath, '-e', PRINT('NEEDLE-ONE')], { env });
    expect(first.code, first.stderr).toBe(0);
    const search = await spillway(['search', 'NEEDLE-ONE'], { env });
    expect(search.out).toContain('NEEDLE-ONE');
    await settled(root);
    expect(indexedCount(root)).toBe(1);

    const second = await spillway(['run', '--max-inline-bytes', '2048', '--', process.execPath, '-e', PRINT('NEEDLE-TWO')], { env });
    expect(second.out).toContain('Omitted');
    // Indexed by the child the spill started, not by a search.
    for (let i = 0; i < 300 && indexedCount(root) < 2; i++) await sleep(100);
    await settled(root);
    expect(indexedCount(root)).toBe(2);
  });

  it('starts nothing for a store that was never searched', async () => {
    const root = await newRoot('never-searched');
    const run = await spillway(['run', '--max-inline-bytes', '2048', '--', process.execPath, '-e', PRINT('NEEDLE-THREE')], { env: envFor(root) });
    expect(run.out).toContain('Omitted');
    await sleep(1000);
    expect(existsSync(localIndexDir(root))).toBe(false);
  });

  it('starts nothing with SPILLWAY_AUTO_INDEX=off', async () => {
    const root = await newRoot('off');
    const env = envFor(root, { SPILLWAY_AUTO_INDEX: 'off' });
    await spillway(['run', '--max-inline-bytes', '2048', '--', process.execPath, '-e', PRINT('NEEDLE-FOUR')], { env });
    expect((await spillway(['search', 'NEEDLE-FOUR'], { env })).out).toContain('NEEDLE-FOUR');
    await spillway(['run', '--max-inline-bytes', '2048', '--', process.execPath, '-e', PRINT('NEEDLE-FIVE')], { env });
    await sleep(2000);
    expect(existsSync(join(localIndexDir(root), AUTO_INDEX_LOCK))).toBe(false);
    expect(indexedCount(root)).toBe(1);
  });
});
