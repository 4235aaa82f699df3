// The directories of an object store's search index cache, made and checked one level at a
// time. `mkdir({ recursive: true })` accepts a symbolic link, another user's directory and a
// world-writable one; under a shared base (XDG_CACHE_HOME=/tmp) another user could pre-create
// them and swap the predictable key directory before SQLite opens the file by path. Here the
// base is resolved once and every directory above it is checked (only you or root can
// rename an entry in it), and every directory spillway adds below it must be yours and
// 0700, so nobody else can swap anything under it.
import { chmod, lstat, mkdir, realpath } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { SpillError } from '@spillway/core';

/** The CLI's advice in every refusal below (see `cliMessage`, which adds nothing after it). */
export const SEARCH_CACHE_ADVICE = 'or keep the index in memory with --no-index-cache or SPILLWAY_SEARCH_CACHE=0.';

function euid(): number | undefined {
  return typeof process.geteuid === 'function' ? process.geteuid() : undefined;
}

function errno(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

function unsafe(message: string): SpillError {
  return new SpillError('SPILL_UNSAFE_ROOT', message);
}

function failed(dir: string, error: unknown): SpillError {
  return new SpillError('SPILL_STORAGE_FAILED', `Cannot create the search index cache directory ${dir}: ${String(error)}; fix its parent, ${SEARCH_CACHE_ADVICE}`, { cause: error });
}

const mode = (st: Stats): string => (st.mode & 0o7777).toString(8).padStart(4, '0');

/**
 * A directory at or above the cache base: others may share it (`/tmp`) as long as only
 * you or root can rename what is in it — owned by you or root, and writable by group or
 * others only with the sticky bit.
 */
function checkAbove(dir: string, st: Stats, isBase: string | undefined, base: string, uid: number | undefined): void {
  const where = isBase !== undefined ? `The cache directory ${base}` : `The directory ${dir} above the cache directory ${base}`;
  const fix = `Set XDG_CACHE_HOME to a private directory of yours, ${SEARCH_CACHE_ADVICE}`;
  if (!st.isDirectory()) throw unsafe(`${where} is not a directory. ${fix}`);
  if (uid === undefined) return;
  if (st.uid !== uid && st.uid !== 0) throw unsafe(`${where} belongs to another user (uid ${String(st.uid)}), who could swap what spillway keeps there. ${fix}`);
  if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) {
    throw unsafe(`${where} is writable by other users without the sticky bit (mode ${mode(st)}), so they could swap what spillway keeps there. ${fix}`);
  }
}

/** A directory spillway keeps below the base: a real directory of yours, 0700. */
function checkOwn(dir: string, st: Stats, uid: number | undefined): void {
  const fix = `Remove it (spillway makes it again, private), ${SEARCH_CACHE_ADVICE}`;
  if (st.isSymbolicLink()) throw unsafe(`The search index cache directory ${dir} is a symbolic link. ${fix}`);
  if (!st.isDirectory()) throw unsafe(`The search index cache directory ${dir} is not a directory. ${fix}`);
  if (uid === undefined) return;
  if (st.uid !== uid) throw unsafe(`The search index cache directory ${dir} belongs to another user (uid ${String(st.uid)}). ${fix}`);
  if ((st.mode & 0o077) !== 0) throw unsafe(`The search index cache directory ${dir} is accessible to other users (mode ${mode(st)}); it must be 0700. ${fix}`);
}

/**
 * Makes (when `create`) and checks `base/…below`, one level at a time: the part of `base`
 * that exists is resolved once with realpath and it and every directory above it are checked
 * (see {@link checkAbove}); each directory below it, the missing part of `base` included, is
 * created 0700 (whatever the umask) or must already be a private directory of yours. Resolves
 * to the real path of the last one, or `undefined` when `create` is false and one is missing.
 * A refusal is a `SPILL_UNSAFE_ROOT` `SpillError` naming the directory and what to do.
 */
export async function privateCacheDir(base: string, below: readonly string[], create: boolean): Promise<string | undefined> {
  const uid = euid();
  // The nearest part of the base that exists; what is missing is made below like the rest.
  let existing = base;
  const missing: string[] = [];
  let real: string;
  for (;;) {
    try {
      real = await realpath(existing);
      break;
    } catch (error) {
      const parent = dirname(existing);
      if (errno(error) !== 'ENOENT' || parent === existing) throw failed(existing, error);
      missing.unshift(basename(existing));
      existing = parent;
    }
  }
  const chain: string[] = [];
  for (let d = real; ; d = dirname(d)) {
    chain.unshift(d);
    if (dirname(d) === d) break;
  }
  const label = existing === real ? real : `${real} (the real path of ${existing})`;
  for (const d of chain) checkAbove(d, await lstat(d), d === real ? label : undefined, label, uid);
  let dir = real;
  for (const name of [...missing, ...below]) {
    dir = join(dir, name);
    let made = false;
    if (create) {
      try {
        await mkdir(dir, { mode: 0o700 });
        made = true;
      } catch (error) {
        if (errno(error) !== 'EEXIST') throw failed(dir, error);
      }
    }
    let st: Stats;
    try {
      st = await lstat(dir);
    } catch (error) {
      if (!create && errno(error) === 'ENOENT') return undefined;
      throw failed(dir, error);
    }
    if (made && (st.mode & 0o7777) !== 0o700 && st.isDirectory() && !st.isSymbolicLink()) {
      // The umask took bits off. The parent is checked: only we (or root) can replace this
      // entry, so the path still names the directory just made.
      await chmod(dir, 0o700);
      const again = await lstat(dir);
      if (again.ino !== st.ino || again.dev !== st.dev) throw unsafe(`The search index cache directory ${dir} was replaced while it was made. ${SEARCH_CACHE_ADVICE}`);
      st = again;
    }
    checkOwn(dir, st, uid);
  }
  return dir;
}
