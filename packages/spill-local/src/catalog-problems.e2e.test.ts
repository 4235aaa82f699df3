// One unusable session directory never stops listing or temp sweeping for the whole
// root: it is skipped, reported, and everything else is walked. And a listing holds no
// descriptor permit while its consumer works.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSpillError, sessionId } from '@spillway/core';
import type { SpillEntry, SpillListProblem } from '@spillway/core';
import { createLocalBackendWith } from './backend.js';
import { nodeFsOps } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';
import { createLocalBackend } from './index.js';
import { sessionDirName } from './names.js';
import type { LocalBackend } from './index.js';
import { commandWorks, freshRootEachTest, nobodyReadableDistIndex, request, runChild } from './test-helpers.js';

const isRoot = process.geteuid?.() === 0;
const canSetpriv = isRoot && commandWorks('setpriv', ['--version']);

let root: string;
freshRootEachTest('spill-local-problems-', (dir) => {
  root = dir;
});

async function collect(backend: LocalBackend, options: { sessionId?: string } = {}): Promise<{ entries: SpillEntry[]; problems: SpillListProblem[] }> {
  const entries: SpillEntry[] = [];
  const problems: SpillListProblem[] = [];
  const sid = options.sessionId;
  for await (const e of backend.catalog.list({
    ...(sid === undefined ? {} : { sessionId: sessionId(sid) }),
    onProblem: (p) => problems.push(p),
  })) {
    entries.push(e);
  }
  return { entries, problems };
}

function codeOf(error: unknown): string {
  return isSpillError(error) ? error.code : 'not a SpillError';
}

async function seed(backend: LocalBackend, sessions: readonly string[]): Promise<void> {
  for (const s of sessions) await backend.saveText(request(`content of ${s}`, 'out.txt', s));
}

describe('a refused session directory is skipped and reported', () => {
  it.each([0o755, 0o750, 0o711])('mode %s: every other session is listed, the refused one reported once', async (mode) => {
    const backend = createLocalBackend({ root });
    await seed(backend, ['a', 'b', 'c']);
    const bad = path.join(root, sessionDirName(sessionId('b')));
    fs.chmodSync(bad, mode);
    const { entries, problems } = await collect(backend);
    expect(entries.map((e) => e.session).sort()).toEqual([sessionDirName(sessionId('a')), sessionDirName(sessionId('c'))].sort());
    expect(problems).toHaveLength(1);
    expect(problems[0]?.where).toBe(bad);
    expect(problems[0]?.session).toBe(path.basename(bad));
    expect(codeOf(problems[0]?.error)).toBe('SPILL_UNSAFE_ROOT');
    // Never fixed behind the owner's back.
    expect(fs.statSync(bad).mode & 0o777).toBe(mode);
  });

  it('a symlink and a plain file posing as session directories are reported, and nothing is read through them', async () => {
    const backend = createLocalBackend({ root });
    await seed(backend, ['a']);
    const outside = fs.mkdtempSync(path.join(path.dirname(root), 'spill-outside-'));
    try {
      fs.writeFileSync(path.join(outside, '0123456789abcdef0123-x.txt'), 'secret');
      const link = path.join(root, `session-${'1'.repeat(32)}`);
      const file = path.join(root, `session-${'2'.repeat(32)}`);
      fs.symlinkSync(outside, link);
      fs.writeFileSync(file, 'not a directory', { mode: 0o600 });
      const { entries, problems } = await collect(backend);
      expect(entries).toHaveLength(1);
      expect(problems.map((p) => p.where).sort()).toEqual([link, file].sort());
      expect(problems.every((p) => codeOf(p.error) === 'SPILL_UNSAFE_ROOT')).toBe(true);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('without onProblem the listing yields everything else, then rejects with the first problem', async () => {
    const backend = createLocalBackend({ root });
    await seed(backend, ['a', 'b', 'c']);
    fs.chmodSync(path.join(root, sessionDirName(sessionId('a'))), 0o755);
    const seen: SpillEntry[] = [];
    let failure: unknown;
    try {
      for await (const e of backend.catalog.list()) seen.push(e);
    } catch (error) {
      failure = error;
    }
    expect(seen).toHaveLength(2);
    expect(codeOf(failure)).toBe('SPILL_UNSAFE_ROOT');
  });

  it('a callback that throws does not end the listing', async () => {
    const backend = createLocalBackend({ root });
    await seed(backend, ['a', 'b']);
    fs.chmodSync(path.join(root, sessionDirName(sessionId('a'))), 0o755);
    const seen: SpillEntry[] = [];
    for await (const e of backend.catalog.list({ onProblem: () => { throw new Error('display broke'); } })) seen.push(e);
    expect(seen).toHaveLength(1);
  });

  it('a listing of one refused session reports it and yields nothing', async () => {
    const backend = createLocalBackend({ root });
    await seed(backend, ['a']);
    fs.chmodSync(path.join(root, sessionDirName(sessionId('a'))), 0o750);
    const { entries, problems } = await collect(backend, { sessionId: 'a' });
    expect(entries).toEqual([]);
    expect(problems).toHaveLength(1);
  });

  it('an unsafe root still rejects the listing: it is not one session\'s problem', async () => {
    const backend = createLocalBackend({ root });
    await seed(backend, ['a', 'b']);
    fs.chmodSync(root, 0o755);
    try {
      await expect(collect(backend)).rejects.toSatisfy((e: unknown) => codeOf(e) === 'SPILL_UNSAFE_ROOT');
    } finally {
      fs.chmodSync(root, 0o700);
    }
  });

  it('sweepTemp removes leftovers in every other session and names the refused one', async () => {
    const backend = createLocalBackendWith({ root }, { now: () => Date.now() + 3_600_000 });
    await seed(backend, ['a', 'b']);
    const good = path.join(root, sessionDirName(sessionId('a')));
    const bad = path.join(root, sessionDirName(sessionId('b')));
    fs.writeFileSync(path.join(good, `.tmp-${'0'.repeat(32)}`), 'left over', { mode: 0o600 });
    fs.writeFileSync(path.join(bad, `.tmp-${'1'.repeat(32)}`), 'left over', { mode: 0o600 });
    fs.chmodSync(bad, 0o755);
    const result = await backend.catalog.sweepTemp({ olderThanMs: 0 });
    expect(result.removed).toBe(1);
    expect(result.problems?.map((p) => p.where)).toEqual([bad]);
    expect(fs.readdirSync(bad)).toContain(`.tmp-${'1'.repeat(32)}`);
  });

  it('an error opening one session directory (injected EACCES) is that session\'s problem only', async () => {
    const victim = sessionDirName(sessionId('b'));
    const ops: FsOps = {
      ...nodeFsOps,
      open: (p, flags, mode) =>
        p.endsWith(`/${victim}`) ? Promise.reject(Object.assign(new Error('EACCES: injected'), { code: 'EACCES' })) : nodeFsOps.open(p, flags, mode),
    };
    const writer = createLocalBackend({ root });
    await seed(writer, ['a', 'b', 'c']);
    const backend = createLocalBackendWith({ root }, { ops });
    const { entries, problems } = await collect(backend);
    expect(entries).toHaveLength(2);
    expect(problems.map((p) => [p.session, codeOf(p.error)])).toEqual([[victim, 'SPILL_STORAGE_FAILED']]);
  });

  it('a session directory owned by another user (injected owner) is reported, the others listed', async () => {
    const victim = sessionDirName(sessionId('b'));
    const writer = createLocalBackend({ root });
    await seed(writer, ['a', 'b', 'c']);
    const victimIno = fs.statSync(path.join(root, victim)).ino;
    const ops: FsOps = {
      ...nodeFsOps,
      fstat: async (fd) => {
        const st = await nodeFsOps.fstat(fd);
        if (st.ino === victimIno) Object.defineProperty(st, 'uid', { value: st.uid + 4242 });
        return st;
      },
    };
    const backend = createLocalBackendWith({ root }, { ops });
    const { entries, problems } = await collect(backend);
    expect(entries).toHaveLength(2);
    expect(problems.map((p) => p.session)).toEqual([victim]);
  });

  it.skipIf(!canSetpriv)('a session directory really owned by another user is reported, the others listed (as root, via chown)', async () => {
    const writer = createLocalBackend({ root });
    await seed(writer, ['a', 'b', 'c']);
    const bad = path.join(root, sessionDirName(sessionId('c')));
    fs.chownSync(bad, 65534, 65534);
    const { entries, problems } = await collect(createLocalBackend({ root }));
    expect(entries).toHaveLength(2);
    expect(problems.map((p) => p.where)).toEqual([bad]);
    expect(codeOf(problems[0]?.error)).toBe('SPILL_UNSAFE_ROOT');
  });

  it.skipIf(!canSetpriv)('as an unprivileged user, a root-owned session directory in its own root is skipped and reported', async () => {
    // The root belongs to nobody; one session directory inside it belongs to root (0700),
    // so nobody can neither trust nor open it.
    const index = nobodyReadableDistIndex();
    fs.chownSync(root, 65534, 65534);
    const mine = path.join(root, sessionDirName(sessionId('a')));
    const foreign = path.join(root, sessionDirName(sessionId('b')));
    fs.mkdirSync(mine, { mode: 0o700 });
    fs.chownSync(mine, 65534, 65534);
    fs.writeFileSync(path.join(mine, '0123456789abcdef0123-x.txt'), 'hello', { mode: 0o600 });
    fs.chownSync(path.join(mine, '0123456789abcdef0123-x.txt'), 65534, 65534);
    fs.mkdirSync(foreign, { mode: 0o700 });
    const source = `
      const { createLocalBackend } = await import(${JSON.stringify(index)});
      const b = createLocalBackend({ root: ${JSON.stringify(root)} });
      const problems = [];
      let n = 0;
      for await (const e of b.catalog.list({ onProblem: (p) => problems.push(p.where) })) n++;
      console.log(JSON.stringify({ n, problems }));
    `;
    const result = await runChild(source, { wrapper: ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'] });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ n: 1, problems: [foreign] });
  });
});

describe('a delete racing another delete', () => {
  it('answers false (already gone), and a read answers SPILL_NOT_FOUND, when the file is unlinked between open and check', async () => {
    let racing: string | undefined;
    const ops: FsOps = {
      ...nodeFsOps,
      open: async (p, flags, mode) => {
        const fd = await nodeFsOps.open(p, flags, mode);
        // The other delete wins right after this one opened the artifact.
        if (racing !== undefined && p.endsWith(path.basename(racing))) fs.unlinkSync(racing);
        return fd;
      },
    };
    const backend = createLocalBackendWith({ root }, { ops });
    const ref = await backend.saveText(request('x'));
    racing = ref.locator;
    expect(await backend.catalog.delete(ref.locator)).toBe(false);
    const again = await backend.saveText(request('y'));
    racing = again.locator;
    await expect(backend.reader.read(again.locator)).rejects.toSatisfy((e: unknown) => codeOf(e) === 'SPILL_NOT_FOUND');
  });
});

describe('a listing holds nothing while its consumer works', () => {
  it('at maxOpenFiles 2, a consumer can save, read and delete between two entries', { timeout: 60_000 }, async () => {
    const backend = createLocalBackend({ root, maxOpenFiles: 2 });
    await seed(backend, ['a', 'b', 'c', 'd']);
    let n = 0;
    for await (const entry of backend.catalog.list()) {
      await backend.saveText(request('more', 'more.txt', 'z'));
      await backend.reader.read(entry.locator);
      expect(await backend.catalog.delete(entry.locator)).toBe(true);
      n += 1;
    }
    expect(n).toBeGreaterThanOrEqual(4);
  });

  it('counted: no descriptor is open while the consumer holds an entry', async () => {
    let open = 0;
    const ops: FsOps = {
      ...nodeFsOps,
      open: async (p, f, m) => {
        const fd = await nodeFsOps.open(p, f, m);
        open += 1;
        return fd;
      },
      close: async (fd) => {
        await nodeFsOps.close(fd);
        open -= 1;
      },
      opendir: async (p) => {
        const dir = await nodeFsOps.opendir(p);
        open += 1;
        const close = dir.close.bind(dir);
        return Object.assign(dir, {
          close: async () => {
            open -= 1;
            await close();
          },
        });
      },
    };
    const backend = createLocalBackendWith({ root }, { ops });
    await seed(backend, ['a', 'b', 'c']);
    // Closes run in the background after a save settles: wait until they have landed (a
    // descriptor never closed keeps the count above 0 and fails the poll).
    await expect.poll(() => open, { timeout: 30_000, interval: 10 }).toBe(0);
    for await (const entry of backend.catalog.list()) {
      expect(entry.bytes).toBeGreaterThan(0);
      expect(open).toBe(0);
    }
  });
});
