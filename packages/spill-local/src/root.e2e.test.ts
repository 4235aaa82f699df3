import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSpillError } from '@spillway/core';
import { createLocalBackend } from './index.js';
import { createLocalBackendWith } from './backend.js';
import { nobodyReadableDistIndex, filesUnder, makeRoot, request, runChild, withUmask } from './test-helpers.js';

const NOBODY = 65534;
const NOGROUP = 65534;
const isRoot = process.geteuid?.() === 0;
const AS_NOBODY = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'];

let base: string;
let cleanup: () => void;
beforeEach(() => {
  ({ root: base, cleanup } = makeRoot('spill-root-test-'));
});
afterEach(() => {
  cleanup();
});

async function expectUnsafe(promise: Promise<unknown>): Promise<void> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isSpillError(err, 'SPILL_UNSAFE_ROOT'), String(err)).toBe(true);
}

function privateDir(p: string): string {
  fs.mkdirSync(p, { mode: 0o700 });
  fs.chmodSync(p, 0o700);
  return p;
}

describe('the configured root', () => {
  it('is refused when it is a symlink, and nothing is created through it', async () => {
    const target = privateDir(path.join(base, 'target'));
    const link = path.join(base, 'link');
    fs.symlinkSync(target, link);
    const backend = createLocalBackend({ root: link });
    await expectUnsafe(backend.saveText(request('x')));
    await expectUnsafe(backend.root());
    expect(fs.readdirSync(target)).toEqual([]);
  });

  it('a symlink root is reported as a symbolic link, with what to do, not as "not a directory"', async () => {
    const target = privateDir(path.join(base, 'target'));
    const link = path.join(base, 'link');
    fs.symlinkSync(target, link);
    const err: unknown = await createLocalBackend({ root: link }).root().catch((e: unknown) => e);
    expect(isSpillError(err, 'SPILL_UNSAFE_ROOT')).toBe(true);
    expect((err as Error).message).toMatch(/is a symbolic link, which is never followed\. Pass the real directory it points to/);
    expect((err as Error).message).not.toMatch(/not a directory/);
  });

  it('a regular file as root is reported as not a directory', async () => {
    const file = path.join(base, 'file');
    fs.writeFileSync(file, '');
    const err: unknown = await createLocalBackend({ root: file }).root().catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/is not a directory/);
  });

  it('is refused when it is not a directory', async () => {
    const file = path.join(base, 'file');
    fs.writeFileSync(file, '');
    await expectUnsafe(createLocalBackend({ root: file }).saveText(request('x')));
  });

  it.each([0o755, 0o750, 0o701, 0o710, 0o777, 0o707])('is refused with mode %s and never chmod-ed', async (mode) => {
    const root = privateDir(path.join(base, 'root'));
    fs.chmodSync(root, mode);
    await expectUnsafe(createLocalBackend({ root }).saveText(request('x')));
    expect(fs.statSync(root).mode & 0o7777).toBe(mode);
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it.skipIf(!isRoot)('is refused when owned by another user (needs root to chown)', async () => {
    const root = privateDir(path.join(base, 'root'));
    fs.chownSync(root, NOBODY, NOGROUP);
    await expectUnsafe(createLocalBackend({ root }).saveText(request('x')));
    expect(fs.statSync(root).uid).toBe(NOBODY);
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('is refused when missing, unless createRoot is set', async () => {
    const root = path.join(base, 'a', 'b', 'root');
    await expectUnsafe(createLocalBackend({ root }).saveText(request('x')));
    expect(fs.existsSync(path.join(base, 'a'))).toBe(false);
    const ref = await createLocalBackend({ root, createRoot: true }).saveText(request('x'));
    expect(ref.locator.startsWith(`${root}/`)).toBe(true);
    for (const p of [path.join(base, 'a'), path.join(base, 'a', 'b'), root]) expect(fs.statSync(p).mode & 0o777).toBe(0o700);
  });

  it('a NUL in the configured root is a TypeError at construction, never an fs TypeError later', () => {
    expect(() => createLocalBackend({ root: `${base}/x\0y` })).toThrow(TypeError);
  });

  it('is re-checked on every save: chmod 777 after first use is refused, not fixed', async () => {
    const root = privateDir(path.join(base, 'root'));
    const backend = createLocalBackend({ root });
    await backend.saveText(request('first'));
    fs.chmodSync(root, 0o777);
    await expectUnsafe(backend.saveText(request('second')));
    expect(fs.statSync(root).mode & 0o777).toBe(0o777);
  });

  it('is re-validated when replaced by a symlink after first use: the save is refused and nothing lands in the target', async () => {
    const root = privateDir(path.join(base, 'root'));
    const elsewhere = privateDir(path.join(base, 'elsewhere'));
    const backend = createLocalBackend({ root });
    await backend.saveText(request('first'));
    fs.renameSync(root, path.join(base, 'moved'));
    fs.symlinkSync(elsewhere, root);
    await expectUnsafe(backend.saveText(request('second')));
    expect(filesUnder(elsewhere)).toEqual([]);
  });
});

describe('directories above the root (OpenSSH-style)', () => {
  it('a world-writable, non-sticky parent is refused', async () => {
    const parent = privateDir(path.join(base, 'open'));
    fs.chmodSync(parent, 0o777);
    const root = privateDir(path.join(parent, 'root'));
    await expectUnsafe(createLocalBackend({ root }).saveText(request('x')));
  });

  it('a group-writable parent is refused', async () => {
    const parent = privateDir(path.join(base, 'group'));
    fs.chmodSync(parent, 0o770);
    const root = privateDir(path.join(parent, 'root'));
    await expectUnsafe(createLocalBackend({ root }).saveText(request('x')));
  });

  it('a sticky world-writable parent (like /tmp) is accepted', async () => {
    const parent = privateDir(path.join(base, 'sticky'));
    fs.chmodSync(parent, 0o1777);
    const root = privateDir(path.join(parent, 'root'));
    const ref = await createLocalBackend({ root }).saveText(request('x'));
    expect(fs.readFileSync(ref.locator, 'utf8')).toBe('x');
  });

  it.skipIf(!isRoot)('a parent owned by another user is refused (needs root to chown)', async () => {
    const parent = privateDir(path.join(base, 'theirs'));
    const root = privateDir(path.join(parent, 'root'));
    fs.chownSync(parent, NOBODY, NOGROUP);
    await expectUnsafe(createLocalBackend({ root }).saveText(request('x')));
  });

  it.skipIf(!isRoot)('a symlink above the root planted by another user is refused, and nothing is created through it', async () => {
    const sticky = privateDir(path.join(base, 'shared'));
    fs.chmodSync(sticky, 0o1777);
    const target = privateDir(path.join(base, 'target'));
    const planted = path.join(sticky, 'planted');
    fs.symlinkSync(target, planted);
    fs.lchownSync(planted, NOBODY, NOGROUP);
    const backend = createLocalBackend({ root: path.join(planted, 'root'), createRoot: true });
    await expectUnsafe(backend.saveText(request('x')));
    expect(fs.readdirSync(target)).toEqual([]);
  });

  it.skipIf(!isRoot)('a symlink above an existing root owned by another user is refused for saves and reads, naming the link and its owner (needs root to lchown)', async () => {
    const real = privateDir(path.join(base, 'real'));
    const root = privateDir(path.join(real, 'root'));
    const ours = createLocalBackend({ root });
    const ref = await ours.saveText(request('secret'));
    const plink = path.join(base, 'plink');
    fs.symlinkSync(real, plink);
    fs.lchownSync(plink, NOBODY, NOGROUP);
    const through = createLocalBackend({ root: path.join(plink, 'root') });
    const err: unknown = await through.saveText(request('x')).catch((e: unknown) => e);
    expect(isSpillError(err, 'SPILL_UNSAFE_ROOT')).toBe(true);
    expect((err as Error).message).toContain(`${plink}, above the spill root, is a symbolic link owned by another user (uid ${NOBODY})`);
    await expectUnsafe(through.reader.read(ref.locator));
    expect(filesUnder(root)).toEqual([ref.locator]);
  });

  it('with createRoot, a symlink above the root owned by us (or root) is followed: the root is made in its target', async () => {
    // base/plink -> real, root at plink/sub: the OpenSSH rule trusts links this user or
    // root could have made anyway, the same way it trusts directories they own.
    const real = privateDir(path.join(base, 'real'));
    fs.symlinkSync(real, path.join(base, 'plink'));
    const backend = createLocalBackend({ root: path.join(base, 'plink', 'sub'), createRoot: true });
    expect(await backend.root()).toBe(path.join(fs.realpathSync(real), 'sub'));
    expect(fs.lstatSync(path.join(real, 'sub')).mode & 0o7777).toBe(0o700);
  });

  it('a symlink above the root owned by us is followed, and locators use the real path', async () => {
    const real = privateDir(path.join(base, 'real'));
    const root = privateDir(path.join(real, 'root'));
    fs.symlinkSync(real, path.join(base, 'alias'));
    const backend = createLocalBackend({ root: path.join(base, 'alias', 'root') });
    expect(await backend.root()).toBe(fs.realpathSync(root));
    const ref = await backend.saveText(request('x'));
    expect(ref.locator.startsWith(`${fs.realpathSync(root)}/`)).toBe(true);
  });

  it('the lazily created root is refused under an unsafe temp directory', async () => {
    const unsafeTmp = privateDir(path.join(base, 'tmp'));
    fs.chmodSync(unsafeTmp, 0o777);
    const backend = createLocalBackendWith({ temporary: true }, { tmpDir: unsafeTmp });
    await expectUnsafe(backend.saveText(request('x')));
    expect(fs.readdirSync(unsafeTmp)).toEqual([]);
  });
});

describe('modes whatever the umask', () => {
  // With umask 0777 a new directory has mode 000. Root can still open it (and fix its mode
  // through the descriptor); any other user cannot, and the backend never chmods through a
  // path, so for them the save is refused and the directory is removed again.
  for (const mask of [0o277, 0o777, 0o000]) {
    const refused = mask === 0o777 && !isRoot;
    it(`umask ${mask.toString(8).padStart(4, '0')}: created root, parents and session dirs are exactly 0700, files 0600${refused ? ' (refused: not root)' : ''}`, async () => {
      const root = path.join(base, 'p', 'root');
      const save = withUmask(mask, async () => {
        const backend = createLocalBackend({ root, createRoot: true });
        const first = await backend.saveText(request('x'));
        await backend.saveTextStream({ ...request(''), content: ['a', 'b'] });
        return first;
      });
      if (refused) {
        await expectUnsafe(save);
        expect(fs.existsSync(path.join(base, 'p'))).toBe(false);
        return;
      }
      const ref = await save;
      for (const p of [path.join(base, 'p'), root, path.dirname(ref.locator)]) expect(fs.statSync(p).mode & 0o7777).toBe(0o700);
      for (const f of filesUnder(root)) expect(fs.statSync(f).mode & 0o7777).toBe(0o600);
      expect(filesUnder(root)).toHaveLength(2);
    });
  }

  it(`umask 0777: the lazily created temp root is exactly 0700${isRoot ? '' : ' (refused and removed: not root)'}`, async () => {
    const made = withUmask(0o777, async () => {
      const backend = createLocalBackendWith({ temporary: true }, { tmpDir: base });
      await backend.saveText(request('x'));
      return backend.root();
    });
    if (!isRoot) {
      await expectUnsafe(made);
      expect(fs.readdirSync(base)).toEqual([]);
      return;
    }
    expect(fs.statSync(await made).mode & 0o7777).toBe(0o700);
  });

  it.skipIf(!isRoot)('as an unprivileged user (nobody) with umask 0277, everything is still 0700/0600', async () => {
    fs.chmodSync(base, 0o755); // let nobody reach its home
    const home = privateDir(path.join(base, 'nobody-home'));
    fs.chownSync(home, NOBODY, NOGROUP);
    const root = path.join(home, 'state', 'root');
    const out = await runChild(
      `process.umask(0o277);
       const { createLocalBackend } = await import(${JSON.stringify(nobodyReadableDistIndex())});
       const b = createLocalBackend({ root: ${JSON.stringify(root)}, createRoot: true });
       const ref = await b.saveText({ owner: { sessionId: 's' }, source: { toolName: 't', callId: 'c' }, suggestedName: 'n.txt', content: 'hello' });
       const back = await b.reader.read(ref.locator);
       console.log(JSON.stringify({ locator: ref.locator, text: back.text }));`,
      { wrapper: AS_NOBODY },
    );
    expect(out.stderr).toBe('');
    const { locator, text } = JSON.parse(out.stdout) as { locator: string; text: string };
    expect(text).toBe('hello');
    expect(fs.statSync(locator).uid).toBe(NOBODY);
    expect(fs.statSync(locator).mode & 0o7777).toBe(0o600);
    for (const p of [path.join(home, 'state'), root, path.dirname(locator)]) expect(fs.statSync(p).mode & 0o7777).toBe(0o700);
  });

  it.skipIf(!isRoot)('as an unprivileged user (nobody) with umask 0777, refuses rather than chmod through a path', async () => {
    fs.chmodSync(base, 0o755); // let nobody reach its home
    const home = privateDir(path.join(base, 'nobody-home'));
    fs.chownSync(home, NOBODY, NOGROUP);
    const root = path.join(home, 'root');
    const out = await runChild(
      `process.umask(0o777);
       const { createLocalBackend } = await import(${JSON.stringify(nobodyReadableDistIndex())});
       const b = createLocalBackend({ root: ${JSON.stringify(root)}, createRoot: true });
       try { await b.saveText({ owner: { sessionId: 's' }, source: { toolName: 't', callId: 'c' }, suggestedName: 'n.txt', content: 'x' }); console.log('saved'); }
       catch (e) { console.log(e.code); }`,
      { wrapper: AS_NOBODY },
    );
    expect(out.stdout.trim()).toBe('SPILL_UNSAFE_ROOT');
    expect(fs.existsSync(root)).toBe(false);
  });
});
