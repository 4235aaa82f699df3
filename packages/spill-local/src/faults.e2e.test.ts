import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSpillError, sessionId } from '@spillway/core';
import type { SpillError } from '@spillway/core';
import { createLocalBackendWith } from './backend.js';
import { nodeFsOps } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';
import { createLocalBackend } from './index.js';
import { sessionDirName } from './names.js';
import { nobodyReadableDistIndex, filesUnder, makeRoot, request, runChild, streamRequest } from './test-helpers.js';

const isRoot = process.geteuid?.() === 0;
const AS_NOBODY = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'];

function probe(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

/** Whether the host lets us mount a tmpfs (root, CAP_SYS_ADMIN, no seccomp block). */
const canMount = ((): boolean => {
  const dir = fs.mkdtempSync('/tmp/spill-probe-mount-');
  try {
    if (!probe('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir])) return false;
    probe('umount', [dir]);
    return true;
  } finally {
    fs.rmdirSync(dir);
  }
})();

/** Whether this file system supports the immutable attribute and we may set it. */
const canChattr = ((): boolean => {
  const dir = fs.mkdtempSync('/tmp/spill-probe-chattr-');
  try {
    if (!probe('chattr', ['+i', dir])) return false;
    probe('chattr', ['-i', dir]);
    return true;
  } finally {
    fs.rmdirSync(dir);
  }
})();

let base: string;
let root: string;
let cleanup: () => void;
const undo: (() => void)[] = [];
beforeEach(() => {
  ({ root: base, cleanup } = makeRoot('spill-fault-test-'));
  base = fs.realpathSync(base);
  root = path.join(base, 'root');
  fs.mkdirSync(root, { mode: 0o700 });
});
afterEach(() => {
  // Mounts and immutable flags first, or the directory cannot be removed.
  for (const fn of undo.splice(0).reverse()) {
    try {
      fn();
    } catch {
      // keep cleaning up
    }
  }
  cleanup();
});

function errnoError(code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected fault, ${syscall}`), { code, syscall });
}

/** Fails `op` with `code` (on every call, or only the n-th). */
function failing(op: keyof FsOps, code: string, onCall?: number): FsOps {
  let calls = 0;
  return {
    ...nodeFsOps,
    [op]: (...args: unknown[]) => {
      calls++;
      if (onCall === undefined || calls === onCall) return Promise.reject(errnoError(code, op));
      return (nodeFsOps[op] as (...a: unknown[]) => Promise<unknown>)(...args);
    },
  };
}

async function rejection(p: Promise<unknown>): Promise<SpillError> {
  const err: unknown = await p.then(() => undefined, (e: unknown) => e);
  expect(isSpillError(err), `expected a SpillError, got ${String(err)}`).toBe(true);
  return err as SpillError;
}

/** Nothing published and no temp file left in the session directory (it may not exist). */
function expectNothingLeft(dirRoot = root): void {
  expect(filesUnder(dirRoot)).toEqual([]);
}

const big = 'fault injection payload line\n'.repeat(100_000); // ~2.9 MB: several writes

describe('injected storage faults: SpillError, temp removed, nothing published', () => {
  const cases: [string, keyof FsOps, string, string, boolean][] = [
    ['ENOSPC at write', 'write', 'ENOSPC', 'SPILL_NO_SPACE', false],
    ['EDQUOT at write', 'write', 'EDQUOT', 'SPILL_NO_SPACE', false],
    ['EIO at write', 'write', 'EIO', 'SPILL_STORAGE_FAILED', false],
    ['EIO at fsync', 'fsync', 'EIO', 'SPILL_STORAGE_FAILED', true],
    ['ENOSPC at fsync', 'fsync', 'ENOSPC', 'SPILL_NO_SPACE', true],
    ['EIO at link (publishing)', 'link', 'EIO', 'SPILL_STORAGE_FAILED', false],
    ['EMFILE at open', 'open', 'EMFILE', 'SPILL_STORAGE_FAILED', false],
    ['ENOSPC at mkdir of the session directory', 'mkdir', 'ENOSPC', 'SPILL_NO_SPACE', false],
  ];
  for (const [label, op, errno, code, durable] of cases) {
    for (const method of ['saveText', 'saveTextStream'] as const) {
      it(`${label} → ${code} from ${method}, with the system error as cause`, async () => {
        const backend = createLocalBackendWith({ root, durable }, { ops: failing(op, errno) });
        const call =
          method === 'saveText' ? backend.saveText(request(big)) : backend.saveTextStream(streamRequest([big.slice(0, 1000), big.slice(1000)]));
        const err = await rejection(call);
        expect(err.code).toBe(code);
        expect((err.cause as NodeJS.ErrnoException).code).toBe(errno);
        expectNothingLeft();
      });
    }
  }

  it('a failure on the third write (after two succeeded) still removes the partial temp file', async () => {
    const backend = createLocalBackendWith({ root }, { ops: failing('write', 'EIO', 3), writeBufferBytes: 4096 });
    expect((await rejection(backend.saveText(request(big)))).code).toBe('SPILL_STORAGE_FAILED');
    expectNothingLeft();
  });

  it('a failing unlink of the temp name after publishing unpublishes the artifact and retries the temp removal', async () => {
    const backend = createLocalBackendWith({ root }, { ops: failing('unlink', 'EIO', 1) });
    expect((await rejection(backend.saveText(request('x')))).code).toBe('SPILL_STORAGE_FAILED');
    expectNothingLeft();
  });

  it('writes that only ever take 7 bytes at a time still store every byte', async () => {
    const partial: FsOps = { ...nodeFsOps, write: (fd, buf, off, len, pos) => nodeFsOps.write(fd, buf, off, Math.min(len, 7), pos) };
    const backend = createLocalBackendWith({ root }, { ops: partial });
    const content = 'partial writes 😀 é 中\n'.repeat(500);
    const ref = await backend.saveText(request(content));
    expect(fs.readFileSync(ref.locator, 'utf8')).toBe(content);
    expect(ref.bytes).toBe(Buffer.byteLength(content));
  });

  it('a write that makes no progress (0 bytes) fails the save instead of looping forever', async () => {
    const stuck: FsOps = { ...nodeFsOps, write: () => Promise.resolve(0) };
    const backend = createLocalBackendWith({ root }, { ops: stuck });
    expect((await rejection(backend.saveText(request('x')))).code).toBe('SPILL_STORAGE_FAILED');
    expectNothingLeft();
  });

  it('real ENOSPC from the kernel (/dev/full) at write → SPILL_NO_SPACE', async () => {
    const full = fs.openSync('/dev/full', 'w');
    try {
      const toFull: FsOps = { ...nodeFsOps, write: (_fd, buf, off, len) => nodeFsOps.write(full, buf, off, len, 0) };
      const backend = createLocalBackendWith({ root }, { ops: toFull });
      const err = await rejection(backend.saveText(request('x')));
      expect(err.code).toBe('SPILL_NO_SPACE');
      expect((err.cause as NodeJS.ErrnoException).code).toBe('ENOSPC');
      expectNothingLeft();
    } finally {
      fs.closeSync(full);
    }
  });

  it('the publish step retries on a name collision, and gives up cleanly after bounded tries', async () => {
    const always: FsOps = { ...nodeFsOps, link: () => Promise.reject(errnoError('EEXIST', 'link')) };
    const backend = createLocalBackendWith({ root }, { ops: always });
    expect((await rejection(backend.saveText(request('x')))).code).toBe('SPILL_STORAGE_FAILED');
    expectNothingLeft();
  });
});

describe('real storage faults', () => {
  function mountTmpfs(dir: string, opts: string): void {
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', opts, 'tmpfs', dir]);
    undo.push(() => { execFileSync('umount', ['-l', dir]); });
  }

  it.skipIf(!canMount)('ENOSPC on a full 1 MiB tmpfs → SPILL_NO_SPACE, temp removed; small saves work again (skipped where mounting is not permitted)', async () => {
    const mnt = path.join(base, 'mnt');
    mountTmpfs(mnt, 'size=1m,mode=0700');
    const r = path.join(mnt, 'root');
    fs.mkdirSync(r, { mode: 0o700 });
    const backend = createLocalBackend({ root: r });
    const err = await rejection(backend.saveText(request('x'.repeat(2 * 1024 * 1024))));
    expect(err.code).toBe('SPILL_NO_SPACE');
    expect((err.cause as NodeJS.ErrnoException).code).toBe('ENOSPC');
    expect(filesUnder(r)).toEqual([]);
    const streamErr = await rejection(backend.saveTextStream(streamRequest(Array.from({ length: 40 }, () => 'y'.repeat(64 * 1024)))));
    expect(streamErr.code).toBe('SPILL_NO_SPACE');
    expect(filesUnder(r)).toEqual([]);
    const ok = await backend.saveText(request('small'));
    expect(fs.readFileSync(ok.locator, 'utf8')).toBe('small');
  });

  it.skipIf(!canMount)('running out of inodes on a tmpfs (nr_inodes=8) → SPILL_NO_SPACE, nothing half-published (skipped where mounting is not permitted)', async () => {
    const mnt = path.join(base, 'mnt');
    mountTmpfs(mnt, 'size=1m,nr_inodes=8,mode=0700');
    const r = path.join(mnt, 'root');
    fs.mkdirSync(r, { mode: 0o700 });
    const backend = createLocalBackend({ root: r });
    const saved: string[] = [];
    let lastError: SpillError | undefined;
    for (let i = 0; i < 10 && lastError === undefined; i++) {
      await backend.saveText(request(`n${i}`)).then(
        (ref) => saved.push(ref.locator),
        (e: unknown) => { lastError = e as SpillError; },
      );
    }
    expect(lastError?.code).toBe('SPILL_NO_SPACE');
    expect(filesUnder(r).sort()).toEqual([...saved].sort());
    for (const [i, l] of saved.entries()) expect(fs.readFileSync(l, 'utf8')).toBe(`n${i}`);
  });

  it.skipIf(!canChattr)('an immutable session directory (chattr +i) → EPERM, SPILL_STORAGE_FAILED, nothing left (skipped where chattr is unsupported)', async () => {
    const backend = createLocalBackend({ root });
    const first = await backend.saveText(request('first'));
    const dir = path.dirname(first.locator);
    execFileSync('chattr', ['+i', dir]);
    undo.push(() => { execFileSync('chattr', ['-i', dir]); });
    const err = await rejection(backend.saveText(request('second')));
    expect(err.code).toBe('SPILL_STORAGE_FAILED');
    expect((err.cause as NodeJS.ErrnoException).code).toBe('EPERM');
    expect(fs.readdirSync(dir)).toEqual([path.basename(first.locator)]);
    execFileSync('chattr', ['-i', dir]);
    expect(fs.readFileSync((await backend.saveText(request('third'))).locator, 'utf8')).toBe('third');
  });

  it.skipIf(!canMount)('a read-only bind mount of the root → EROFS, SPILL_STORAGE_FAILED (skipped where mounting is not permitted)', async () => {
    const backend = createLocalBackend({ root });
    await backend.saveText(request('before'));
    execFileSync('mount', ['--bind', root, root]);
    undo.push(() => { execFileSync('umount', ['-l', root]); });
    execFileSync('mount', ['-o', 'remount,bind,ro', root]);
    const err = await rejection(backend.saveText(request('during')));
    expect(err.code).toBe('SPILL_STORAGE_FAILED');
    expect((err.cause as NodeJS.ErrnoException).code).toBe('EROFS');
  });

  it.skipIf(!isRoot)('EACCES for an unprivileged user (nobody) whose session directory lost its write bit → SPILL_STORAGE_FAILED', async () => {
    fs.chmodSync(base, 0o755);
    const r = path.join(base, 'nobody-root');
    fs.mkdirSync(r, { mode: 0o700 });
    const session = path.join(r, sessionDirName(sessionId('s')));
    fs.mkdirSync(session, { mode: 0o500 });
    fs.chmodSync(session, 0o500);
    fs.chownSync(r, 65534, 65534);
    fs.chownSync(session, 65534, 65534);
    const out = await runChild(
      `const { createLocalBackend } = await import(${JSON.stringify(nobodyReadableDistIndex())});
       const b = createLocalBackend({ root: ${JSON.stringify(r)} });
       try { await b.saveText({ owner: { sessionId: 's' }, source: { toolName: 't', callId: 'c' }, suggestedName: 'n', content: 'x' }); console.log('saved'); }
       catch (e) { console.log(JSON.stringify({ code: e.code, cause: e.cause && e.cause.code })); }`,
      { wrapper: AS_NOBODY },
    );
    expect(JSON.parse(out.stdout)).toEqual({ code: 'SPILL_STORAGE_FAILED', cause: 'EACCES' });
    expect(fs.readdirSync(session)).toEqual([]);
  });
});
