// An object store's search index cache under a base others may share: every directory
// spillway keeps there is made one level at a time and must be a private directory of
// ours, and the base and what is above it must be such that only we or root can swap an
// entry. Real directories, real symlinks, real umasks, a real other user (as root); the
// built CLI meets them in search-cache.e2e.test.ts.
import { chmodSync, chownSync, lstatSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isSpillError } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { describeError } from './cli-error.js';
import { privateCacheDir } from './search-cache-dir.js';
import { gcSearchIndex, storeIndexPlace } from './search-support.js';
import type { ResolvedStore } from './store.js';
import { tempDirsPerTest } from './test-temp-dirs.js';

const isRoot = process.geteuid?.() === 0;
const NOBODY = 65534;
const store: ResolvedStore = { url: 's3://bkt/p', bucket: 'bkt', prefix: 'p', source: 'option' };
const tempDir = tempDirsPerTest('spill-cli-cache-');

function placeIn(base: string): ReturnType<typeof storeIndexPlace> {
  return storeIndexPlace(store, { XDG_CACHE_HOME: base }, '/nonexistent-home');
}

/** The key directory's name for {@link store}. */
function keyOf(base: string): string {
  const parts = placeIn(base).location.split('/');
  return parts[parts.length - 2] ?? '';
}

async function refusal(p: Promise<unknown>): Promise<Error & { code: string }> {
  const error: unknown = await p.then(() => undefined, (e: unknown) => e);
  expect(isSpillError(error, 'SPILL_UNSAFE_ROOT'), String(error)).toBe(true);
  const e = error as Error & { code: string };
  expect(e.message).toContain('--no-index-cache or SPILLWAY_SEARCH_CACHE=0');
  return e;
}

async function withUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(previous);
  }
}

const modeOf = (p: string): number => lstatSync(p).mode & 0o7777;

describe('the search index cache directories', () => {
  it('are made 0700, one level at a time, under a private base; prepare answers the file to open', async () => {
    const base = tempDir();
    const place = placeIn(base);
    expect(await place.existing()).toBeUndefined();
    expect(readdirSync(base)).toEqual([]);
    const file = await place.prepare();
    expect(file).toBe(place.location);
    for (const d of [join(base, 'spillway'), join(base, 'spillway', 'search'), join(base, 'spillway', 'search', keyOf(base))]) expect(modeOf(d)).toBe(0o700);
    expect(await place.existing()).toBe(file);
    // Again: everything exists and is ours.
    expect(await place.prepare()).toBe(file);
  });

  it('refuses a symlinked spillway/ directory, and creates nothing through it', async () => {
    const base = tempDir();
    const elsewhere = join(base, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, join(base, 'spillway'));
    const e = await refusal(placeIn(base).prepare());
    expect(e.message).toContain(`${join(base, 'spillway')} is a symbolic link`);
    await refusal(placeIn(base).existing());
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it.each([0o770, 0o720, 0o705, 0o777].map((m) => [m.toString(8), m] as const))('refuses a search/ directory with mode 0%s, and never chmods it', async (_, mode) => {
    const base = tempDir();
    mkdirSync(join(base, 'spillway'), { mode: 0o700 });
    const search = join(base, 'spillway', 'search');
    mkdirSync(search);
    chmodSync(search, mode);
    const e = await refusal(placeIn(base).prepare());
    expect(e.message).toContain(`${search} is accessible to other users (mode 0${mode.toString(8)})`);
    expect(modeOf(search)).toBe(mode);
    expect(readdirSync(search)).toEqual([]);
  });

  it('refuses a <key> directory that is a symlink (to a private directory, even), and a file in its place', async () => {
    const base = tempDir();
    const search = join(base, 'spillway', 'search');
    mkdirSync(search, { recursive: true, mode: 0o700 });
    chmodSync(join(base, 'spillway'), 0o700);
    chmodSync(search, 0o700);
    const target = join(base, 'planted');
    mkdirSync(target, { mode: 0o700 });
    const key = join(search, keyOf(base));
    symlinkSync(target, key);
    expect((await refusal(placeIn(base).prepare())).message).toContain(`${key} is a symbolic link`);
    expect(readdirSync(target)).toEqual([]);
  });

  it('accepts a sticky world-writable base (a shared /tmp) and refuses one without the sticky bit', async () => {
    const shared = tempDir();
    chmodSync(shared, 0o1777);
    const place = placeIn(shared);
    expect(await place.prepare()).toBe(place.location);
    expect(modeOf(join(shared, 'spillway'))).toBe(0o700);

    const open = tempDir();
    chmodSync(open, 0o777);
    const e = await refusal(placeIn(open).prepare());
    expect(e.message).toContain(`The cache directory ${open} is writable by other users without the sticky bit (mode 0777)`);
    expect(readdirSync(open)).toEqual([]);
  });

  it('refuses a base below a directory others can write to without the sticky bit', async () => {
    const top = tempDir();
    const base = join(top, 'cache');
    mkdirSync(base, { mode: 0o700 });
    chmodSync(top, 0o777);
    const e = await refusal(placeIn(base).prepare());
    expect(e.message).toContain(`The directory ${top} above the cache directory ${base}`);
    expect(readdirSync(base)).toEqual([]);
  });

  it('resolves a symlinked base once and says so; the cache lands under its real path', async () => {
    const top = tempDir();
    const real = join(top, 'real-cache');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, join(top, 'cache'));
    const file = await placeIn(join(top, 'cache')).prepare();
    expect(file.startsWith(`${real}/spillway/search/`)).toBe(true);
    chmodSync(real, 0o777);
    expect((await refusal(placeIn(join(top, 'cache')).prepare())).message).toContain(`${real} (the real path of ${join(top, 'cache')})`);
  });

  it.each([0o277, 0o777].map((m) => [m.toString(8), m] as const))('umask 0%s: every directory made, a missing part of the base too, is exactly 0700', async (_, mask) => {
    const top = tempDir();
    const base = join(top, 'not', 'yet');
    const file = await withUmask(mask, () => placeIn(base).prepare());
    for (const d of [join(top, 'not'), base, join(base, 'spillway'), join(base, 'spillway', 'search'), join(file, '..')]) expect(modeOf(d)).toBe(0o700);
  });

  it('a refusal reaches a CLI user as SPILL_UNSAFE_ROOT with the cache advice only (no --root advice)', async () => {
    const base = tempDir();
    symlinkSync(tempDir(), join(base, 'spillway'));
    const described = describeError(await placeIn(base).prepare().catch((e: unknown) => e));
    expect(described.code).toBe('SPILL_UNSAFE_ROOT');
    expect(described.exitCode).toBe(6);
    expect(described.message).toMatch(/is a symbolic link\. Remove it .*--no-index-cache or SPILLWAY_SEARCH_CACHE=0\.$/);
    expect(described.message).not.toContain('--root');
  });

  it('gc answers a refused cache as a warning and opens nothing', async () => {
    const base = tempDir();
    mkdirSync(join(base, 'spillway'), { mode: 0o755 });
    chmodSync(join(base, 'spillway'), 0o755);
    const backend = { reader: {}, catalog: {} } as unknown as Parameters<typeof gcSearchIndex>[0];
    const outcome = await gcSearchIndex(backend, placeIn(base));
    expect(outcome).toMatchObject({ location: placeIn(base).location, error: { code: 'SPILL_UNSAFE_ROOT' } });
    // No cache at all: nothing to compact, nothing made.
    const empty = tempDir();
    expect(await gcSearchIndex(backend, placeIn(empty))).toBeUndefined();
    expect(readdirSync(empty)).toEqual([]);
  });

  it.skipIf(!isRoot)('refuses a spillway/ directory owned by another user (needs root to chown)', async () => {
    const base = tempDir();
    const dir = join(base, 'spillway');
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700);
    chownSync(dir, NOBODY, NOBODY);
    expect((await refusal(placeIn(base).prepare())).message).toContain(`${dir} belongs to another user (uid ${String(NOBODY)})`);
    expect(lstatSync(dir).uid).toBe(NOBODY);
    expect(readdirSync(dir)).toEqual([]);
  });

  it.skipIf(!isRoot)('refuses a base owned by another user who is not root (needs root to chown)', async () => {
    const base = tempDir();
    chownSync(base, NOBODY, NOBODY);
    expect((await refusal(placeIn(base).prepare())).message).toContain(`The cache directory ${base} belongs to another user (uid ${String(NOBODY)})`);
    expect(readdirSync(base)).toEqual([]);
  });

  it('makes nothing when asked only to check, and answers undefined for a missing base', async () => {
    const top = tempDir();
    expect(await privateCacheDir(join(top, 'a', 'b'), ['spillway'], false)).toBeUndefined();
    expect(readdirSync(top)).toEqual([]);
  });
});
