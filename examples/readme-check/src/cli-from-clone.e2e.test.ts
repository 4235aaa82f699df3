import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The ways the README gives to run `spillway` from a clone, before any package is
// published: the root script `pnpm spillway -- <args>`, `pnpm link-cli`, which puts the
// command on PATH, and `pnpm protect <host>`, which does that and sets the host up.

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const VERSION = (JSON.parse(fs.readFileSync(path.join(REPO, 'packages/spill-cli/package.json'), 'utf8')) as { version: string }).version;
const ROOT_SCRIPTS = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

let work: string;
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'spillway-cli-clone-'));
  fs.mkdirSync(path.join(work, 'root'), { mode: 0o700 });
  fs.mkdirSync(path.join(work, 'home'), { mode: 0o700 });
});
afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

function run(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}, cwd = work) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: path.join(work, 'home'), NO_COLOR: '1', ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('pnpm spillway -- <args>', () => {
  it('is a root script that runs the CLI and drops the `--` pnpm passes on', () => {
    expect(ROOT_SCRIPTS.spillway).toBe('node scripts/spillway.mjs');
    const script = path.join(REPO, 'scripts/spillway.mjs');
    expect(run(process.execPath, [script, '--', '--version'])).toMatchObject({ status: 0, stdout: `${VERSION}\n` });
    const ls = run(process.execPath, [script, '--', 'ls', '--root', path.join(work, 'root'), '--json']);
    expect(ls.stderr).toBe('');
    expect(JSON.parse(ls.stdout)).toEqual({ entries: [], count: 0, totalBytes: 0, complete: true, skipped: [] });
  });

  // Through pnpm itself when the suite was started by pnpm (pnpm test), which names its
  // own entry point in npm_execpath; a direct vitest run has no pnpm to call.
  it.skipIf(process.env.npm_execpath === undefined || !/pnpm/.test(process.env.npm_execpath))('runs through pnpm from the clone', () => {
    const viaPnpm = run(process.execPath, [process.env.npm_execpath ?? '', '--silent', 'spillway', '--', '--version'], { COREPACK_ENABLE_STRICT: '0' }, REPO);
    expect(viaPnpm).toMatchObject({ status: 0, stdout: `${VERSION}\n` });
  });
});

describe('pnpm link-cli', () => {
  it('links spillway into a directory on PATH, and the command works from anywhere', () => {
    expect(ROOT_SCRIPTS['link-cli']).toBe('node scripts/link-cli.mjs');
    const bin = path.join(work, 'bin');
    const linked = run(process.execPath, [path.join(REPO, 'scripts/link-cli.mjs'), bin]);
    expect(linked.status, linked.stderr).toBe(0);
    expect(linked.stdout).toContain(`linked ${path.join(bin, 'spillway')} -> ${path.join(REPO, 'packages/spill-cli/bin/spillway.js')}`);
    expect(linked.stdout).toContain('is not on PATH');
    const PATH = `${bin}${path.delimiter}${process.env.PATH ?? ''}`;
    expect(run('spillway', ['--version'], { PATH }, '/')).toMatchObject({ status: 0, stdout: `${VERSION}\n` });
    const saved = run('sh', ['-c', 'printf "one\\ntwo\\n" | spillway save --root "$1" --json', 'sh', path.join(work, 'root')], { PATH }, '/');
    expect(saved.status, saved.stderr).toBe(0);
    const { locator } = JSON.parse(saved.stdout) as { locator: string };
    expect(run('spillway', ['read', locator], { PATH }, '/')).toMatchObject({ status: 0, stdout: '     1\tone\n     2\ttwo\n' });
    // Again: nothing to do, still linked.
    expect(run(process.execPath, [path.join(REPO, 'scripts/link-cli.mjs'), bin], { PATH }).status).toBe(0);
    expect(fs.readlinkSync(path.join(bin, 'spillway'))).toBe(path.join(REPO, 'packages/spill-cli/bin/spillway.js'));
  });

  it('defaults to ~/.local/bin, and never replaces a file that is not its link', () => {
    const home = path.join(work, 'home2');
    fs.mkdirSync(home, { mode: 0o700 });
    const r = run(process.execPath, [path.join(REPO, 'scripts/link-cli.mjs')], { HOME: home });
    expect(r.status, r.stderr).toBe(0);
    expect(fs.lstatSync(path.join(home, '.local/bin/spillway')).isSymbolicLink()).toBe(true);
    const other = path.join(work, 'other-bin');
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, 'spillway'), '#!/bin/sh\n');
    const refused = run(process.execPath, [path.join(REPO, 'scripts/link-cli.mjs'), other]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('exists and is not a symlink');
    expect(fs.readFileSync(path.join(other, 'spillway'), 'utf8')).toBe('#!/bin/sh\n');
  });
});

describe('pnpm protect', () => {
  // protect.mjs builds through `pnpm exec turbo` (a cache hit once the suite has built); a
  // scratch HOME keeps corepack's cache where it is, so that no pnpm is downloaded again.
  const protect = (home: string, args: readonly string[]) =>
    run(process.execPath, [path.join(REPO, 'scripts/protect.mjs'), ...args], {
      HOME: home,
      COREPACK_HOME: process.env.COREPACK_HOME ?? path.join(os.homedir(), '.cache/node/corepack'),
      COREPACK_ENABLE_DOWNLOAD_PROMPT: '0',
      SPILLWAY_USAGE: 'off',
      SPILLWAY_AUTO_GC: 'off',
    });

  // protect.mjs calls pnpm: only where the suite was started by pnpm, as above (a direct
  // vitest run, as the unprivileged one, may have no pnpm it can start without a download).
  it.skipIf(process.env.npm_execpath === undefined || !/pnpm/.test(process.env.npm_execpath))('--dry-run writes nothing (not even the link) and says so; --undo says protection is gone', () => {
    expect(ROOT_SCRIPTS.protect).toBe('node scripts/protect.mjs');
    const home = path.join(work, 'home-protect');
    const claude = path.join(home, '.claude');
    fs.mkdirSync(claude, { recursive: true, mode: 0o700 });
    const settings = path.join(claude, 'settings.json');
    const before = '{\n  // mine\n  "theme": "dark"\n}\n';
    fs.writeFileSync(settings, before);
    const link = path.join(home, '.local/bin/spillway');

    const dry = protect(home, ['claude-code', '--dry-run']);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('dry run: nothing was changed. To make the change shown above: pnpm protect claude-code');
    expect(dry.stdout).not.toContain('is protected');
    expect(fs.readFileSync(settings, 'utf8')).toBe(before);
    expect(fs.existsSync(link)).toBe(false);

    const done = protect(home, ['claude-code']);
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).toContain('done: claude-code is protected.');
    expect(fs.readFileSync(settings, 'utf8')).toContain('spillway');
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);

    const undo = protect(home, ['claude-code', '--undo']);
    expect(undo.status, undo.stderr).toBe(0);
    expect(undo.stdout).toContain('done: claude-code is no longer protected by spillway.');
    expect(undo.stdout).not.toContain('is protected');
    expect(fs.readFileSync(settings, 'utf8')).toBe(before);
  });
});
