// Automatic cleanup under a burst and under planted files: one sweeper per root, decided
// before forking, however many spills or hook processes ask at once; a link planted at the
// stamp is never followed; a root that fails the backend's checks is neither swept nor stamped.
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseByteSize, parseDuration } from '@spillway/retention';
import { AUTO_GC_STAMP, autoGcDue, autoGcSettings, startAutoGc, touchAutoGcStamp } from './auto-gc.js';
import { ensureBuilt, PACKAGE_DIR } from './test-bin.js';
import { tempDirsPerTest } from './test-temp-dirs.js';

const tmp = tempDirsPerTest('auto-gc-burst-');
const settings = autoGcSettings({}, '/nonexistent', parseDuration, parseByteSize);

function privateRoot(): string {
  const root = join(tmp(), 'root');
  mkdirSync(root, { mode: 0o700 });
  return root;
}

describe('one sweeper per root', () => {
  it('40 spills in one process start one sweeper', () => {
    const root = privateRoot();
    const started = Array.from({ length: 40 }, () => startAutoGc(root, settings, { SPILLWAY_AUTO_GC: 'off' })).filter(Boolean);
    expect(started.length).toBe(1);
  });

  it('10 hook processes at once start one sweeper between them', () => {
    ensureBuilt();
    const root = privateRoot();
    // The sweeper sweeps (an empty root) and stamps the root before it lets go of the lock,
    // so a hook process that starts late finds the root swept, not free to sweep again.
    const sweeperEnv = { PATH: process.env.PATH ?? '', HOME: tmp(), SPILLWAY_AUTO_GC: 'on', SPILLWAY_USAGE: 'off' };
    const script = `const { startAutoGc, autoGcSettings } = await import(${JSON.stringify(new URL('../dist/auto-gc.js', import.meta.url).href)});
      const { parseDuration, parseByteSize } = await import('@spillway/retention');
      const s = autoGcSettings({}, '/nonexistent', parseDuration, parseByteSize);
      process.stdout.write(startAutoGc(${JSON.stringify(root)}, s, ${JSON.stringify(sweeperEnv)}) ? 'started\\n' : '');`;
    const out = spawnSync('sh', ['-c', `for i in 1 2 3 4 5 6 7 8 9 10; do "${process.execPath}" --input-type=module -e "$0" & done; wait`, script], { encoding: 'utf8', cwd: PACKAGE_DIR });
    expect(out.stderr).toBe('');
    expect(out.stdout.split('\n').filter((l) => l === 'started').length).toBe(1);
  });
});

describe('planted files', () => {
  it('never follows a link planted at the stamp', () => {
    const root = privateRoot();
    const victim = join(tmp(), 'victim');
    writeFileSync(victim, 'mine\n');
    const before = statSync(victim).mtimeMs;
    symlinkSync(victim, join(root, AUTO_GC_STAMP));
    expect(autoGcDue(root, settings)).toBe(false);
    expect(() => { touchAutoGcStamp(root, Date.now() + 86_400_000); }).toThrow();
    expect(statSync(victim).mtimeMs).toBe(before);
    expect(readFileSync(victim, 'utf8')).toBe('mine\n');
    expect(lstatSync(join(root, AUTO_GC_STAMP)).isSymbolicLink()).toBe(true);
  });

  it('gc-auto neither sweeps nor stamps a world-writable root', () => {
    ensureBuilt();
    const root = join(tmp(), 'shared');
    mkdirSync(root);
    chmodSync(root, 0o777);
    const out = spawnSync(process.execPath, [join(PACKAGE_DIR, 'bin', 'spillway.js'), 'gc-auto', '--root', root], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: tmp() } });
    expect(out.status).toBe(0);
    expect(() => lstatSync(join(root, AUTO_GC_STAMP))).toThrow();
    expect(() => lstatSync(join(root, '.auto-gc-lock'))).toThrow();
  });
});
