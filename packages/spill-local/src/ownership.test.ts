// Injected variants of the ownership and permission cases, for machines where the tests do
// not run as root (no chown, and permission bits do not stop root): fstat/lstat report
// another owner, or open fails with EACCES, for chosen paths.
import fs from 'node:fs';
import path from 'node:path';
import type { Stats } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isSpillError, spillLocator } from '@spillway/core';
import { createLocalBackendWith } from './backend.js';
import { nodeFsOps } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';
import { createLocalBackend } from './index.js';
import { filesUnder, freshRootEachTest, request } from './test-helpers.js';

let root: string;
freshRootEachTest('spill-owner-test-', (dir) => {
  root = dir;
}, { realpath: true });

const OTHER_UID = 4242;

function withUid(st: Stats, uid: number): Stats {
  return Object.assign(Object.create(Object.getPrototypeOf(st) as object) as Stats, st, { uid });
}

/**
 * FsOps in which every file or directory whose path (as opened or lstat-ed) ends with a
 * segment matching `foreign` appears to belong to another user.
 */
function foreignOwner(foreign: RegExp): FsOps {
  const byFd = new Map<number, string>();
  const real = (p: string): string => {
    // Resolve /proc/self/fd/<n>/leaf to something readable for the predicate.
    const m = /^\/proc\/self\/fd\/(\d+)\/?(.*)$/.exec(p);
    return m ? path.join(byFd.get(Number(m[1])) ?? '', m[2] ?? '') : p;
  };
  return {
    ...nodeFsOps,
    open: async (p, flags, mode) => {
      const fd = await nodeFsOps.open(p, flags, mode);
      byFd.set(fd, real(p));
      return fd;
    },
    fstat: async (fd) => {
      const st = await nodeFsOps.fstat(fd);
      return foreign.test(path.basename(byFd.get(fd) ?? '')) ? withUid(st, OTHER_UID) : st;
    },
    lstat: async (p) => {
      const st = await nodeFsOps.lstat(p);
      return foreign.test(path.basename(real(p))) ? withUid(st, OTHER_UID) : st;
    },
  };
}

async function code(p: Promise<unknown>): Promise<string | undefined> {
  return p.then(() => undefined, (e: unknown) => (isSpillError(e) ? e.code : String(e)));
}

describe('foreign owners (injected)', () => {
  it('a root that belongs to another user is refused', async () => {
    const backend = createLocalBackendWith({ root }, { ops: foreignOwner(new RegExp(`^${path.basename(root)}$`)) });
    expect(await code(backend.saveText(request('x')))).toBe('SPILL_UNSAFE_ROOT');
    expect(filesUnder(root)).toEqual([]);
  });

  it('a root seen by a process with another euid is refused', async () => {
    const backend = createLocalBackendWith({ root }, { euid: OTHER_UID });
    expect(await code(backend.saveText(request('x')))).toBe('SPILL_UNSAFE_ROOT');
  });

  it('a parent of the root that belongs to another user is refused', async () => {
    const parent = path.join(root, 'theirs');
    fs.mkdirSync(parent, { mode: 0o700 });
    const inner = path.join(parent, 'root');
    fs.mkdirSync(inner, { mode: 0o700 });
    const backend = createLocalBackendWith({ root: inner }, { ops: foreignOwner(/^theirs$/) });
    expect(await code(backend.saveText(request('x')))).toBe('SPILL_UNSAFE_ROOT');
  });

  it('a symlink above the root that belongs to another user is refused, even with createRoot, and nothing is made in its target', async () => {
    const real = path.join(root, 'real');
    fs.mkdirSync(real, { mode: 0o700 });
    fs.symlinkSync(real, path.join(root, 'plink'));
    const ops = foreignOwner(/^plink$/);
    const backend = createLocalBackendWith({ root: path.join(root, 'plink', 'sub'), createRoot: true }, { ops });
    const err: unknown = await backend.saveText(request('x')).catch((e: unknown) => e);
    expect(isSpillError(err, 'SPILL_UNSAFE_ROOT')).toBe(true);
    expect((err as Error).message).toMatch(/plink, above the spill root, is a symbolic link owned by another user \(uid 4242\)/);
    expect(fs.readdirSync(real)).toEqual([]);
    // The same link, owned by us, is followed.
    expect(await createLocalBackendWith({ root: path.join(root, 'plink', 'sub'), createRoot: true }).root()).toBe(path.join(real, 'sub'));
  });

  it('a session directory that belongs to another user is refused for saves, and its files for reads', async () => {
    const plain = createLocalBackend({ root });
    const ref = await plain.saveText(request('mine'));
    const backend = createLocalBackendWith({ root }, { ops: foreignOwner(/^session-/) });
    expect(await code(backend.saveText(request('x')))).toBe('SPILL_UNSAFE_ROOT');
    expect(await code(backend.reader.read(ref.locator))).toBe('SPILL_INVALID_LOCATOR');
    expect(fs.readdirSync(path.dirname(ref.locator))).toHaveLength(1);
  });

  it('a file that belongs to another user is refused by the reader and delete, and skipped by list', async () => {
    const plain = createLocalBackend({ root });
    const ref = await plain.saveText(request('theirs', 'theirs.txt'));
    const backend = createLocalBackendWith({ root }, { ops: foreignOwner(/-theirs\.txt$/) });
    expect(await code(backend.reader.read(ref.locator))).toBe('SPILL_INVALID_LOCATOR');
    expect(await code(backend.catalog.delete(ref.locator))).toBe('SPILL_INVALID_LOCATOR');
    const listed: string[] = [];
    for await (const e of backend.catalog.list()) listed.push(e.locator);
    expect(listed).toEqual([]);
    expect((await plain.reader.read(spillLocator(ref.locator))).text).toBe('theirs');
  });
});

describe('permission denied (injected EACCES)', () => {
  it('EACCES creating the temp file → SPILL_STORAGE_FAILED with the cause, nothing left', async () => {
    const ops: FsOps = {
      ...nodeFsOps,
      open: (p, flags, mode) =>
        path.basename(p).startsWith('.tmp-') ? Promise.reject(Object.assign(new Error('EACCES'), { code: 'EACCES' })) : nodeFsOps.open(p, flags, mode),
    };
    const backend = createLocalBackendWith({ root }, { ops });
    const err: unknown = await backend.saveText(request('x')).catch((e: unknown) => e);
    expect(isSpillError(err, 'SPILL_STORAGE_FAILED')).toBe(true);
    expect(((err as Error).cause as NodeJS.ErrnoException).code).toBe('EACCES');
    expect(filesUnder(root)).toEqual([]);
  });
});
