// No flood when the configured store fails: `spillway run` stores the output in the private
// per-user root instead and says so, under --json too; only when no store at all can be
// written does the whole output pass.
import { chmodSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, spillway } from './test-bin.js';
import { tempDirsPerTest } from './test-temp-dirs.js';

const tmp = tempDirsPerTest('run-fallback-');
beforeAll(() => {
  ensureBuilt();
});

const WHOLE = 588_895; // bytes of `seq 1 100000`

function env(home: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: home, XDG_STATE_HOME: join(home, 'state'), SPILLWAY_AUTO_GC: 'off', SPILLWAY_USAGE: 'off', ...extra };
}

describe('spillway run when the store cannot take the output', () => {
  it('a missing --root: the output goes to the fallback root, the notice can be followed', async () => {
    const home = tmp();
    const e = env(home, { SPILLWAY_ROOT: join(home, 'rd-missing') });
    const run = await spillway(['run', '--max-inline-bytes', '320', '--', 'seq', '1', '100000'], { env: e });
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBeLessThanOrEqual(321); // the preview within the cap, and its closing newline
    expect(run.stderr).toContain('fallback root');
    expect(run.stderr).toContain(join(home, 'state', 'spillway'));
    const locator = /stored at: (\S+?)\. /.exec(run.out)?.[1] ?? '';
    expect(locator.startsWith(join(home, 'state', 'spillway'))).toBe(true);
    const cat = await spillway(['cat', locator], { env: e });
    expect(cat.stdout.length).toBe(WHOLE);
  });

  it('an unsafe root (world-writable) falls back the same way', async () => {
    const home = tmp();
    const shared = join(home, 'shared');
    mkdirSync(shared, { mode: 0o777 });
    const run = await spillway(['run', '--root', shared, '--max-inline-bytes', '320', '--', 'seq', '1', '100000'], { env: env(home, {}) });
    expect(run.stdout.length).toBeLessThanOrEqual(321); // the preview within the cap, and its closing newline
    expect(run.stderr).toContain('fallback root');
  });

  it('--json takes the same fallback: the preview and a locator in the fallback root, said on stderr', async () => {
    const home = tmp();
    const shared = join(home, 'shared');
    mkdirSync(shared, { mode: 0o777 });
    const e = env(home, {});
    const run = await spillway(['run', '--json', '--root', shared, '--max-inline-bytes', '320', '--', 'seq', '1', '100000'], { env: e });
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.out) as { text: string; spilled: boolean; locator: string | null; storeError: unknown };
    expect(Buffer.byteLength(doc.text)).toBeLessThanOrEqual(320);
    expect(doc.spilled).toBe(true);
    expect(doc.storeError).toBeNull(); // the fallback root stored it
    expect(doc.locator?.startsWith(join(home, 'state', 'spillway'))).toBe(true);
    expect(run.stderr).toContain(`fallback root ${join(home, 'state', 'spillway')}`);
    expect((await spillway(['cat', doc.locator ?? ''], { env: e })).stdout.length).toBe(WHOLE);
  });

  it('the default root cannot be made either: spillway-<uid> in the temp directory takes the output (a sandbox that lets commands write only there)', async () => {
    const home = tmp();
    writeFileSync(join(home, 'state'), 'a file where the state directory would be\n');
    const temp = join(home, 'tmp');
    mkdirSync(temp);
    const e = env(home, { TMPDIR: temp });
    const run = await spillway(['run', '--max-inline-bytes', '320', '--root', join(home, 'rd-missing'), '--', 'seq', '1', '100000'], { env: e });
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBeLessThanOrEqual(321);
    const root = join(temp, `spillway-${String(process.getuid?.() ?? 'user')}`);
    expect(run.stderr).toContain(`fallback root ${root}`);
    expect(run.stderr).toContain(`the fallback root ${join(home, 'state', 'spillway')} was refused too: Storage failed (ENOTDIR)`);
    expect(statSync(root).mode & 0o777).toBe(0o700);
    const locator = /stored at: (\S+?)\. /.exec(run.out)?.[1] ?? '';
    expect(locator.startsWith(root)).toBe(true);
    expect((await spillway(['cat', locator], { env: e })).stdout.length).toBe(WHOLE);
  });

  it('a spillway-<uid> in the temp directory that is a symlink is refused, never written through: the output is printed in full', async () => {
    const home = tmp();
    writeFileSync(join(home, 'state'), 'a file where the state directory would be\n');
    const temp = join(home, 'tmp');
    const target = join(home, 'target');
    mkdirSync(temp);
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, join(temp, `spillway-${String(process.getuid?.() ?? 'user')}`));
    const run = await spillway(['run', '--max-inline-bytes', '320', '--root', join(home, 'rd-missing'), '--', 'seq', '1', '100000'], { env: env(home, { TMPDIR: temp }) });
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBe(WHOLE);
    expect(run.stderr).toContain('printed in full');
    expect(readdirSync(target)).toEqual([]);
  });

  it('prints in full only when no store at all can be written', async () => {
    const home = tmp();
    writeFileSync(join(home, 'state'), 'a file where the state directory would be\n');
    const run = await spillway(['run', '--max-inline-bytes', '320', '--root', join(home, 'rd-missing'), '--', 'seq', '1', '100000'], { env: env(home, { TMPDIR: join(home, 'state') }) });
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBe(WHOLE);
    expect(run.stderr).toContain('printed in full');
  });

  it('both fallback roots refused: one warning names each root tried and why it was refused, with --json too', async () => {
    const home = tmp();
    // The default root under a file (ENOTDIR), spillway-<uid> open to others (0777): two reasons.
    writeFileSync(join(home, 'state'), 'a file where the state directory would be\n');
    const temp = join(home, 'tmp');
    const tempRoot = join(temp, `spillway-${String(process.getuid?.() ?? 'user')}`);
    mkdirSync(tempRoot, { recursive: true });
    chmodSync(tempRoot, 0o777);
    const e = env(home, { TMPDIR: temp });
    for (const json of [[], ['--json']]) {
      const run = await spillway(['run', ...json, '--max-inline-bytes', '320', '--root', join(home, 'rd-missing'), '--', 'seq', '1', '100000'], { env: e });
      expect(run.code).toBe(0);
      const warnings = run.stderr.split('\n').filter((line) => line.startsWith('spillway: warning:'));
      expect(warnings, json.join(' ')).toHaveLength(1);
      const [warning = ''] = warnings;
      expect(warning).toContain(`The spill root ${join(home, 'rd-missing')} does not exist`);
      expect(warning).toContain(`the fallback root ${join(home, 'state', 'spillway')} was refused too: Storage failed (ENOTDIR)`);
      expect(warning).toContain(`the fallback root ${tempRoot} was refused too: The spill root ${tempRoot} has mode 0777`);
      expect(warning).toContain('printed in full');
    }
  });

  it('--json with no store at all: the whole output in the document, said on stderr', async () => {
    const home = tmp();
    writeFileSync(join(home, 'state'), 'a file where the state directory would be\n');
    const run = await spillway(['run', '--json', '--max-inline-bytes', '320', '--root', join(home, 'rd-missing'), '--', 'seq', '1', '100000'], { env: env(home, { TMPDIR: join(home, 'state') }) });
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.out) as { text: string; spilled: boolean; storeError: { code: string } | null };
    expect(Buffer.byteLength(doc.text)).toBe(WHOLE);
    expect(doc.spilled).toBe(false);
    expect(doc.storeError?.code).toBe('SPILL_UNSAFE_ROOT');
    expect(run.stderr).toContain('printed in full');
  });
});
