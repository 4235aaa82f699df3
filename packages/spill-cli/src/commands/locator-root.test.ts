import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localBackendFactory } from '../context.js';
import { main } from '../main.js';
import { resolveRootFor } from '../options.js';
import { testIO } from '../test-io.js';

// read, grep and rm take the root from the locator they are given, so that any locator
// spillway printed can be read back, and check that root like any other.

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'spillway-cli-locroot-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function cli(args: string[], options: { stdin?: string; cwd?: string; env?: Record<string, string> } = {}) {
  const { io, stdout, stderr } = testIO({
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    env: { XDG_STATE_HOME: join(base, 'state'), ...options.env },
    cwd: options.cwd ?? base,
    homedir: join(base, 'home'),
  });
  const code = await main(args, io, { backend: localBackendFactory });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const TEXT = Array.from({ length: 40 }, (_, i) => `line ${String(i + 1)}`).join('\n') + '\n';
const LOCATOR_SHAPE = /^(\/.+)\/session-[0-9a-f]{32}\/[0-9a-f]{20}-notes[^/]*$/;

describe('a locator printed under --root ./rel', () => {
  it('is read, grepped and removed without --root, and the same root is used', async () => {
    const work = join(base, 'w1');
    await mkdir(join(work, 'rel'), { recursive: true, mode: 0o700 });
    await chmod(join(work, 'rel'), 0o700);
    const saved = await cli(['save', '--root', './rel', '--name', 'notes', '--json'], { stdin: TEXT, cwd: work });
    expect(saved.code, saved.stderr).toBe(0);
    const { locator } = JSON.parse(saved.stdout) as { locator: string };
    expect(locator).toMatch(LOCATOR_SHAPE);
    expect(LOCATOR_SHAPE.exec(locator)?.[1]).toBe(join(work, 'rel'));

    // From another directory, with SPILLWAY_ROOT naming a different root.
    const elsewhere = { cwd: base, env: { SPILLWAY_ROOT: join(base, 'other') } };
    const read = await cli(['read', locator, '--offset', '7', '--limit', '2'], elsewhere);
    expect(read).toMatchObject({ code: 0, stdout: `     7\tline 7\n     8\tline 8\n… more lines follow: use --offset 9 to continue (${String(Buffer.byteLength(TEXT))} bytes in all).\n` });
    const grep = await cli(['grep', locator, '^line 3[0-9]$', '--verbose'], elsewhere);
    expect(grep.code).toBe(0);
    expect(grep.stdout.split('\n')).toHaveLength(11);
    expect(grep.stderr).toContain(`root ${join(work, 'rel')} (from the locator)`);
    expect(await cli(['rm', locator], elsewhere)).toMatchObject({ code: 0, stdout: `removed ${locator}\n` });
  });

  it('an explicit --root still wins, and the refusal says --root names the locator\'s root', async () => {
    const work = join(base, 'w2');
    for (const d of ['a', 'b']) {
      await mkdir(join(work, d), { recursive: true, mode: 0o700 });
      await chmod(join(work, d), 0o700);
    }
    const saved = await cli(['save', '--root', join(work, 'a'), '--name', 'notes', '--json'], { stdin: TEXT });
    const { locator } = JSON.parse(saved.stdout) as { locator: string };
    const r = await cli(['read', locator, '--root', join(work, 'b')]);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('not inside the spill root');
    expect(r.stderr).toContain('`--root DIR` names the root it is under');
  });
});

describe('a root taken from a locator is checked like any root', () => {
  it('refuses a locator under a group- and world-readable root, and prints nothing of the file', async () => {
    const open = join(base, 'open-root');
    const session = join(open, `session-${'a'.repeat(32)}`);
    await mkdir(session, { recursive: true, mode: 0o700 });
    await chmod(open, 0o755);
    const file = join(session, `${'b'.repeat(20)}-secret.txt`);
    await writeFile(file, 'SECRET\n', { mode: 0o600 });
    for (const args of [['read', file], ['grep', file, 'SECRET'], ['rm', file]]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(6);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/\[SPILL_UNSAFE_ROOT\]\n$/);
      expect(r.stderr).not.toContain('SECRET\n');
    }
  });

  it('derives a root only from the exact <root>/session-<hash>/<leaf> shape', () => {
    const home = '/home/u';
    const fallback = { path: '/home/u/.local/state/spillway', source: 'default' };
    const good = `/r/session-${'c'.repeat(32)}/${'d'.repeat(20)}-x.txt`;
    expect(resolveRootFor(good, undefined, {}, '/cwd', home)).toEqual({ path: '/r', source: 'locator' });
    expect(resolveRootFor(good, 'mine', {}, '/cwd', home)).toEqual({ path: '/cwd/mine', source: 'option' });
    for (const bad of [
      '/etc/passwd',
      'relative/session-x/y',
      `/r/session-${'c'.repeat(31)}/${'d'.repeat(20)}-x.txt`,
      `/r/session-${'c'.repeat(32)}/../${'d'.repeat(20)}-x.txt`,
      `/r/session-${'c'.repeat(32)}/${'d'.repeat(19)}-x.txt`,
      `/session-${'c'.repeat(32)}/${'d'.repeat(20)}-x.txt/`,
    ]) {
      expect(resolveRootFor(bad, undefined, {}, '/cwd', home), bad).toEqual(fallback);
    }
  });
});
