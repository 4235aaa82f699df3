import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSpillError, sessionId, spillLocator } from '@spillway/core';
import type { SpillEntry, SpillListProblem, SpillLocator } from '@spillway/core';
import { createLocalBackendWith } from './backend.js';
import { nodeFsOps } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';
import { createLocalBackend } from './index.js';
import { sessionDirName } from './names.js';
import type { LocalBackend } from './index.js';
import { filesUnder, makeRoot, request } from './test-helpers.js';

const NOBODY = 65534;
const isRoot = process.geteuid?.() === 0;

let base: string;
let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ root: base, cleanup } = makeRoot('spill-attack-test-'));
  base = fs.realpathSync(base);
  root = path.join(base, 'root');
  fs.mkdirSync(root, { mode: 0o700 });
});
afterEach(() => {
  cleanup();
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'resolved',
    (e: unknown) => (isSpillError(e) ? e.code : `not a SpillError: ${String(e)}`),
  );
}

async function listAll(backend: LocalBackend): Promise<SpillEntry[]> {
  const out: SpillEntry[] = [];
  for await (const e of backend.catalog.list()) out.push(e);
  return out;
}

/** Expect every reader and catalog entry point to refuse `locator` with one of `codes`. */
async function expectRefused(backend: LocalBackend, locator: string, codes: readonly string[] = ['SPILL_INVALID_LOCATOR']): Promise<void> {
  const l = locator as SpillLocator;
  expect(codes).toContain(await codeOf(backend.reader.read(l)));
  expect(codes).toContain(await codeOf(backend.reader.grep(l, 'a')));
  const del = await backend.catalog.delete(l).then(
    (removed) => (removed ? 'removed' : 'false'),
    (e: unknown) => (isSpillError(e) ? e.code : 'other'),
  );
  expect([...codes, 'false']).toContain(del);
}

function sessionPath(id = 'session-a'): string {
  return path.join(root, sessionDirName(sessionId(id)));
}

describe('the session directory', () => {
  it('a symlink planted there is refused for saves and reads, and nothing lands in its target', async () => {
    const outside = path.join(base, 'outside');
    fs.mkdirSync(outside, { mode: 0o700 });
    fs.symlinkSync(outside, sessionPath());
    const backend = createLocalBackend({ root });
    expect(await codeOf(backend.saveText(request('x')))).toBe('SPILL_UNSAFE_ROOT');
    fs.writeFileSync(path.join(outside, '0123456789abcdef0123-x.txt'), 'secret');
    await expectRefused(backend, path.join(sessionPath(), '0123456789abcdef0123-x.txt'));
    // The listing skips it and reports it; without a problem callback it rejects at the end.
    const problems: SpillListProblem[] = [];
    const listed: SpillEntry[] = [];
    for await (const e of backend.catalog.list({ onProblem: (p) => problems.push(p) })) listed.push(e);
    expect(listed).toEqual([]);
    expect(problems.map((p) => [p.where, isSpillError(p.error) ? p.error.code : 'other'])).toEqual([[sessionPath(), 'SPILL_UNSAFE_ROOT']]);
    expect(await codeOf(listAll(backend))).toBe('SPILL_UNSAFE_ROOT');
    expect(fs.readdirSync(outside)).toEqual(['0123456789abcdef0123-x.txt']);
  });

  it.each([0o755, 0o750, 0o711])('a session directory with mode %s is refused and never chmod-ed', async (mode) => {
    fs.mkdirSync(sessionPath(), { mode: 0o700 });
    fs.chmodSync(sessionPath(), mode);
    const backend = createLocalBackend({ root });
    expect(await codeOf(backend.saveText(request('x')))).toBe('SPILL_UNSAFE_ROOT');
    expect(fs.statSync(sessionPath()).mode & 0o777).toBe(mode);
    expect(fs.readdirSync(sessionPath())).toEqual([]);
  });

  it.skipIf(!isRoot)('a session directory owned by another user is refused (needs root to chown)', async () => {
    fs.mkdirSync(sessionPath(), { mode: 0o700 });
    fs.chownSync(sessionPath(), NOBODY, NOBODY);
    const backend = createLocalBackend({ root });
    expect(await codeOf(backend.saveText(request('x')))).toBe('SPILL_UNSAFE_ROOT');
    expect(fs.readdirSync(sessionPath())).toEqual([]);
  });

  it('a regular file in place of the session directory is refused', async () => {
    fs.writeFileSync(sessionPath(), '');
    expect(await codeOf(createLocalBackend({ root }).saveText(request('x')))).toBe('SPILL_UNSAFE_ROOT');
  });

  it('without /proc anchoring (the fallback), a symlinked session directory is still refused', async () => {
    const outside = path.join(base, 'outside');
    fs.mkdirSync(outside, { mode: 0o700 });
    fs.symlinkSync(outside, sessionPath());
    const backend = createLocalBackendWith({ root }, { procFd: false });
    expect(await codeOf(backend.saveText(request('x')))).toBe('SPILL_UNSAFE_ROOT');
    expect(fs.readdirSync(outside)).toEqual([]);
  });
});

/** fs operations that plant `plant(path)` at the first path passed to `op`, just before it runs. */
function plantingOps(op: 'open' | 'link', plant: (at: string) => void): FsOps {
  let planted = false;
  if (op === 'open') {
    return {
      ...nodeFsOps,
      open: (p, flags, mode) => {
        if (!planted && path.basename(p).startsWith('.tmp-')) {
          planted = true;
          plant(p);
        }
        return nodeFsOps.open(p, flags, mode);
      },
    };
  }
  return {
    ...nodeFsOps,
    link: (existing, created) => {
      if (!planted) {
        planted = true;
        plant(created);
      }
      return nodeFsOps.link(existing, created);
    },
  };
}

describe('names planted where the backend is about to write', () => {
  it('a symlink planted at the temp name is not followed: a new temp name is used, the target is untouched', async () => {
    const victim = path.join(base, 'victim.txt');
    fs.writeFileSync(victim, 'original');
    const backend = createLocalBackendWith({ root }, { ops: plantingOps('open', (p) => { fs.symlinkSync(victim, p); }) });
    const ref = await backend.saveText(request('attacker-controlled content'));
    expect(fs.readFileSync(victim, 'utf8')).toBe('original');
    expect(fs.readFileSync(ref.locator, 'utf8')).toBe('attacker-controlled content');
  });

  it('a symlink planted at the final name is not followed or replaced: a new random name is used', async () => {
    const victim = path.join(base, 'victim.txt');
    fs.writeFileSync(victim, 'original');
    let plantedName = '';
    const backend = createLocalBackendWith({ root }, { ops: plantingOps('link', (p) => { plantedName = path.basename(p); fs.symlinkSync(victim, p); }) });
    const ref = await backend.saveText(request('content'));
    expect(fs.readFileSync(victim, 'utf8')).toBe('original');
    expect(fs.lstatSync(path.join(path.dirname(ref.locator), plantedName)).isSymbolicLink()).toBe(true);
    expect(path.basename(ref.locator)).not.toBe(plantedName);
    expect(fs.readFileSync(ref.locator, 'utf8')).toBe('content');
  });

  it('a hard link to someone else\'s file planted at the final name is never overwritten', async () => {
    const victim = path.join(base, 'victim.txt');
    fs.writeFileSync(victim, 'original');
    const backend = createLocalBackendWith({ root }, { ops: plantingOps('link', (p) => { fs.linkSync(victim, p); }) });
    const ref = await backend.saveText(request('content'));
    expect(fs.readFileSync(victim, 'utf8')).toBe('original');
    expect(fs.readFileSync(ref.locator, 'utf8')).toBe('content');
  });
});

describe('what the reader refuses', () => {
  let backend: LocalBackend;
  let real: string;
  beforeEach(async () => {
    backend = createLocalBackend({ root });
    real = (await backend.saveText(request('the real artifact\n'))).locator;
  });

  afterEach(async () => {
    // The real artifact survives every forged call.
    expect((await backend.reader.read(spillLocator(real))).text).toBe('the real artifact\n');
  });

  it('a symlink with a leaf-shaped name, even to a file inside the root', async () => {
    const link = path.join(path.dirname(real), '0123456789abcdef0123-link.txt');
    fs.symlinkSync(real, link);
    await expectRefused(backend, link);
    fs.symlinkSync('/etc/passwd', path.join(path.dirname(real), '0123456789abcdef0123-passwd'));
    await expectRefused(backend, path.join(path.dirname(real), '0123456789abcdef0123-passwd'));
    expect((await listAll(backend)).map((e) => e.locator)).toEqual([real]);
  });

  it('a hard link (two links) to our own file or to an outside file', async () => {
    const outside = path.join(base, 'outside.txt');
    fs.writeFileSync(outside, 'outside secret');
    const planted = path.join(path.dirname(real), '0123456789abcdef0123-hard.txt');
    fs.linkSync(outside, planted);
    await expectRefused(backend, planted);
    expect(fs.readFileSync(outside, 'utf8')).toBe('outside secret');
    expect((await listAll(backend)).map((e) => e.locator)).toEqual([real]);
    fs.unlinkSync(planted);
    const second = path.join(path.dirname(real), '0123456789abcdef0123-second.txt');
    fs.linkSync(real, second);
    await expectRefused(backend, real);
    fs.unlinkSync(second);
  });

  // An open that blocked on the FIFO (no writer ever comes) would never settle, so the
  // test's timeout is the proof; no wall-clock threshold is needed.
  it('a FIFO, without blocking', { timeout: 60_000 }, async () => {
    const fifo = path.join(path.dirname(real), '0123456789abcdef0123-fifo');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    await expectRefused(backend, fifo);
    expect(fs.lstatSync(fifo).isFIFO()).toBe(true);
  });

  it.skipIf(!isRoot)('a character device (/dev/zero clone) in the session directory, and /dev/zero itself', async () => {
    const dev = path.join(path.dirname(real), '0123456789abcdef0123-zero');
    execFileSync('mknod', ['-m', '600', dev, 'c', '1', '5']);
    await expectRefused(backend, dev);
    await expectRefused(backend, '/dev/zero');
    expect(fs.lstatSync(dev).isCharacterDevice()).toBe(true);
  });

  it.skipIf(!isRoot)('a file owned by another user', async () => {
    const theirs = path.join(path.dirname(real), '0123456789abcdef0123-theirs.txt');
    fs.writeFileSync(theirs, 'theirs', { mode: 0o600 });
    fs.chownSync(theirs, NOBODY, NOBODY);
    await expectRefused(backend, theirs);
    expect(fs.existsSync(theirs)).toBe(true);
  });

  it('a sibling directory that shares the root\'s name as a prefix (root-evil vs root)', async () => {
    const evil = `${root}-evil`;
    const evilSession = path.join(evil, path.basename(path.dirname(real)));
    fs.mkdirSync(evilSession, { recursive: true, mode: 0o700 });
    fs.chmodSync(evil, 0o700);
    const planted = path.join(evilSession, path.basename(real));
    fs.writeFileSync(planted, 'evil copy', { mode: 0o600 });
    await expectRefused(backend, planted);
    expect(fs.readFileSync(planted, 'utf8')).toBe('evil copy');
    // Even reached through a symlink alias, the resolved path is compared by components.
    fs.symlinkSync(evilSession, path.join(base, 'alias'));
    await expectRefused(backend, path.join(base, 'alias', path.basename(real)));
  });

  it('traversal with "..": out of the root, into another session, or back to itself', async () => {
    const other = (await backend.saveText(request('other session\n', 'o.txt', 'session-b'))).locator;
    const otherRel = path.join(path.basename(path.dirname(other)), path.basename(other));
    await expectRefused(backend, `${path.dirname(real)}/../${otherRel}`);
    await expectRefused(backend, `${root}/../root/${path.basename(path.dirname(real))}/${path.basename(real)}`);
    await expectRefused(backend, `${real}/../../../../etc/passwd`);
    await expectRefused(backend, `${root}/../x`);
    await expectRefused(backend, `${path.dirname(real)}/./${path.basename(real)}`);
    await expectRefused(backend, `${path.dirname(real)}//${path.basename(real)}`);
    expect(fs.readFileSync(other, 'utf8')).toBe('other session\n');
  });

  it('relative paths, NUL, outside paths, temp files and the directories themselves', async () => {
    const rel = path.relative(process.cwd(), real);
    await expectRefused(backend, rel);
    await expectRefused(backend, path.basename(real));
    await expectRefused(backend, `${real}\0`);
    await expectRefused(backend, '\0');
    await expectRefused(backend, '/etc/passwd');
    await expectRefused(backend, path.dirname(real));
    await expectRefused(backend, root);
    await expectRefused(backend, `${real}/`);
    const temp = path.join(path.dirname(real), `.tmp-${'c'.repeat(32)}`);
    fs.writeFileSync(temp, 'in progress', { mode: 0o600 });
    await expectRefused(backend, temp);
    expect(fs.existsSync(temp)).toBe(true);
    await expectRefused(backend, '', ['SPILL_INVALID_LOCATOR']);
    await expectRefused(backend, 42 as unknown as string, ['SPILL_INVALID_LOCATOR']);
  });

  it('a locator of another backend\'s root', async () => {
    const { root: otherRoot, cleanup: done } = makeRoot();
    try {
      const other = createLocalBackend({ root: otherRoot });
      const foreign = (await other.saveText(request('foreign\n'))).locator;
      await expectRefused(backend, foreign);
      expect(fs.readFileSync(foreign, 'utf8')).toBe('foreign\n');
    } finally {
      done();
    }
  });

  it('the root path spelled through an alias we own still reaches the real artifact', async () => {
    fs.symlinkSync(root, path.join(base, 'root-alias'));
    const viaAlias = path.join(base, 'root-alias', path.basename(path.dirname(real)), path.basename(real));
    expect((await backend.reader.read(spillLocator(viaAlias))).text).toBe('the real artifact\n');
  });
});

describe('hostile names and session ids, end to end', () => {
  it('any suggested name and session id lands as one file directly under its session directory (property)', async () => {
    const backend = createLocalBackend({ root });
    const units = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 60 }).map((u) => String.fromCharCode(...u));
    const names = fc.oneof(units, fc.constantFrom('../x', '/etc/passwd', 'a/b', '.', '..', '', '\0', '\\', '\u202Etxt.exe', 'CON', 'nul.txt', '-rf', '.bashrc', 'a'.repeat(300), 'a\uFF0Fb'));
    const sessions = fc.oneof(units.filter((s) => s.length > 0), fc.constantFrom('../x', '/', '.', '..', '\0', 's\uD800', 's\uDFFF'));
    await fc.assert(
      fc.asyncProperty(names, sessions, async (name, session) => {
        const ref = await backend.saveText(request('payload', name, session));
        expect(path.dirname(ref.locator)).toBe(path.join(root, sessionDirName(sessionId(session))));
        const leaf = path.basename(ref.locator);
        expect(Buffer.byteLength(leaf)).toBeLessThanOrEqual(255);
        expect(leaf).not.toMatch(/^[.-]/);
        expect(fs.readFileSync(ref.locator, 'utf8')).toBe('payload');
      }),
      { numRuns: 300 },
    );
    // Nothing anywhere but directly in session directories under the root.
    for (const f of filesUnder(base)) expect(path.dirname(path.dirname(f))).toBe(root);
  });

  it('session ids that differ only in lone surrogates get distinct directories', async () => {
    const backend = createLocalBackend({ root });
    const a = await backend.saveText(request('a', 'x', 's\uD800'));
    const b = await backend.saveText(request('b', 'x', 's\uDFFF'));
    const c = await backend.saveText(request('c', 'x', 's\uFFFD'));
    expect(new Set([a, b, c].map((r) => path.dirname(r.locator))).size).toBe(3);
    const listed: SpillEntry[] = [];
    for await (const e of backend.catalog.list({ sessionId: sessionId('s\uD800') })) listed.push(e);
    expect(listed.map((e) => e.locator)).toEqual([a.locator]);
  });
});
