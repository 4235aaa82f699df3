import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeCodeShellScript } from '@spillway/hosts';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, spillway } from './test-bin.js';
import { privateRootPerFile } from './test-temp-dirs.js';

// `spillway run --live` and the lower cap for failing commands are what Claude Code's shell
// prefix uses: the host reads a command's output from a file it gave as stdout, and shows
// the file while the command runs.

let base: string;
let root: string;
let home: string;

beforeAll(() => {
  ensureBuilt();
});
privateRootPerFile('spillway-cli-run-live-', (dirs) => {
  ({ base, root, home } = dirs);
});

const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: home, SPILLWAY_ROOT: root, NO_COLOR: '1', SPILLWAY_USAGE: 'off', SPILLWAY_AUTO_GC: 'off' });

let files = 0;
/** A fresh output file, empty unless `content` is given. */
function outputFile(content = ''): string {
  const path = join(base, `out-${String(++files)}.txt`);
  writeFileSync(path, content);
  return path;
}

/** Runs the CLI with stdout appended to `file` (as a host opens it); resolves with the exit code. */
function runInto(file: string, args: readonly string[], options: { readonly onStart?: () => void } = {}): Promise<number | null> {
  const fd = openSync(file, 'a');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: env(), stdio: ['ignore', fd, 'pipe'] });
    closeSync(fd);
    child.on('error', reject);
    child.on('close', (code) => {
      resolve(code);
    });
    options.onStart?.();
  });
}

function locatorIn(text: string): string {
  return /stored at: (\S+?)\. /.exec(text)?.[1] ?? '';
}

describe('spillway run --live', () => {
  it('leaves a small output in the file byte for byte, with the exit code', async () => {
    const file = outputFile();
    const code = await runInto(file, ['run', '--live', '--max-inline-bytes', '4096', '--', 'sh', '-c', 'printf "one\\ntwo\\n"; printf "three" >&2; exit 5']);
    expect(code).toBe(5);
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\nthree');
  });

  it('shows the head while the command runs, then leaves only the preview and notice once the output is too large', async () => {
    const file = outputFile();
    const release = join(base, `release-${String(files)}`);
    const script = `echo started; while [ ! -e '${release}' ]; do sleep 0.05; done; seq 1 20000`;
    let during = '';
    const done = runInto(file, ['run', '--live', '--max-inline-bytes', '2048', '--', 'sh', '-c', script]);
    // Wait (bounded by the test's timeout) until the head shows up, then let the command go on.
    while (!readFileSync(file, 'utf8').includes('started')) await new Promise((r) => setTimeout(r, 20));
    during = readFileSync(file, 'utf8');
    writeFileSync(release, '');
    expect(await done).toBe(0);
    expect(during).toBe('started\n');
    const after = readFileSync(file, 'utf8');
    expect(Buffer.byteLength(after)).toBeLessThanOrEqual(2048 + 1);
    expect(after.startsWith('started\n1\n2\n')).toBe(true);
    expect(after).toContain('20000');
    expect(after).not.toContain('\0');
    const whole = spawnSync('sh', ['-c', script.replace(/while .*done; /, '')], { encoding: 'utf8' }).stdout;
    expect(readFileSync(locatorIn(after), 'utf8')).toBe(whole);
  });

  it('leaves a file that already holds something alone: the output is added when the command ends', async () => {
    const file = outputFile('earlier lines\n');
    expect(await runInto(file, ['run', '--live', '--max-inline-bytes', '1024', '--', 'seq', '1', '5000'])).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('earlier lines\n1\n')).toBe(true);
    expect(text).toMatch(/\(Omitted \d+ bytes\. /);
  });
});

describe('spillway run --max-inline-bytes-on-failure and --notice-reader', () => {
  const lines = 'for i in $(seq 1 500); do echo "line $i of the build"; done';

  it('prints a 10 KB output in full when the command succeeds, and spills it under the lower cap when it fails', async () => {
    const args = ['run', '--max-inline-bytes', '16384', '--max-inline-bytes-on-failure', '2048', '--'];
    const ok = await spillway([...args, 'sh', '-c', `${lines}; exit 0`], { env: env() });
    expect(ok.code).toBe(0);
    expect(ok.out).toBe(spawnSync('sh', ['-c', lines], { encoding: 'utf8' }).stdout);
    const failed = await spillway([...args, 'sh', '-c', `${lines}; echo "error: the build broke" >&2; exit 3`], { env: env() });
    expect(failed.code).toBe(3);
    expect(Buffer.byteLength(failed.out)).toBeLessThanOrEqual(2048 + 1);
    expect(failed.out).toContain('error: the build broke');
    expect(failed.out).toContain('Use spillway read with --offset/--limit');
  });

  it('names the file tools in the notice for a model that has them', async () => {
    const r = await spillway(['run', '--max-inline-bytes', '1024', '--notice-reader', 'file-tools', '--', 'seq', '1', '5000'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.out).toContain('Use read with offset/limit, or grep this path to search within it.');
    const bad = await spillway(['run', '--notice-reader', 'pigeon', '--', 'true'], { env: env() });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('pigeon');
  });
});

describe("Claude Code's shell prefix script", () => {
  const script = (node = process.execPath): string => {
    const path = join(base, `shell-prefix-${String(++files)}`);
    writeFileSync(path, claudeCodeShellScript({ node, spillway: BIN }, 2048, 1024), { mode: 0o755 });
    return path;
  };
  /** Runs the script as Claude Code does: one argument, the whole shell script, stdout a file. */
  const asClaudeCode = (prefix: string, command: string, cwdFile: string, stdin = ''): { code: number | null; out: string } => {
    const file = outputFile();
    const fd = openSync(file, 'a');
    const r = spawnSync(prefix, [`eval '${command.replace(/'/g, `'\\''`)}' && pwd -P >| '${cwdFile}'`], { cwd: base, env: { ...env(), SHELL: '/bin/bash' }, stdio: ['pipe', fd, 'pipe'], input: stdin });
    closeSync(fd);
    return { code: r.status, out: readFileSync(file, 'utf8') };
  };

  it('carries the working directory, keeps a small output and its exit code, and spills a large failing one under the lower cap', () => {
    const prefix = script();
    mkdirSync(join(base, 'sub'), { recursive: true });
    const cwdFile = join(base, `cwd-${String(files)}`);
    expect(asClaudeCode(prefix, 'cd sub && echo in-sub', cwdFile)).toEqual({ code: 0, out: 'in-sub\n' });
    expect(readFileSync(cwdFile, 'utf8').trim()).toBe(join(base, 'sub'));
    const failing = asClaudeCode(prefix, 'seq 1 100000; echo "FATAL: out of cheese" >&2; exit 4', `${cwdFile}-2`);
    expect(failing.code).toBe(4);
    expect(Buffer.byteLength(failing.out)).toBeLessThanOrEqual(1024 + 1);
    expect(failing.out).toContain('FATAL: out of cheese');
    expect(failing.out).toContain('Use read with offset/limit');
    expect(existsSync(`${cwdFile}-2`)).toBe(false);
  });

  it('runs anything but a Bash tool call (an MCP server Claude Code starts) as it is, with stdin and stdout untouched', () => {
    const prefix = script();
    const r = spawnSync(prefix, ['cat; echo " and back"'], { env: { ...env(), SHELL: '/bin/bash' }, input: 'ping', encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('ping and back\n');
  });

  it('starts spillway only for an output past the cap, when stdout is a file', () => {
    // A stand-in for spillway that leaves a mark: a small output must never start it.
    const marks = join(base, `marks-${String(++files)}`);
    const stand = join(base, `stand-in-${String(files)}.mjs`);
    writeFileSync(stand, `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(marks)}, process.argv.slice(2).join(' ') + '\\n');\n`);
    const prefix = join(base, `shell-prefix-${String(files)}`);
    writeFileSync(prefix, claudeCodeShellScript({ node: process.execPath, spillway: stand }, 2048, 1024), { mode: 0o755 });
    expect(asClaudeCode(prefix, 'head -c 2048 /dev/zero | tr "\\0" x; exit 0', join(base, 'cwd-a'))).toEqual({ code: 0, out: 'x'.repeat(2048) });
    expect(asClaudeCode(prefix, 'head -c 1024 /dev/zero | tr "\\0" y; exit 5', join(base, 'cwd-b'))).toEqual({ code: 5, out: 'y'.repeat(1024) });
    expect(existsSync(marks)).toBe(false);
    asClaudeCode(prefix, 'head -c 1025 /dev/zero | tr "\\0" z; exit 5', join(base, 'cwd-c'));
    asClaudeCode(prefix, 'head -c 2049 /dev/zero | tr "\\0" z', join(base, 'cwd-d'));
    const lines = readFileSync(marks, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^spill-stdout .*--exit-code 5 /);
    expect(lines[1]).toMatch(/^spill-stdout .*--exit-code 0 /);
  });

  it('gives the command its stdin, and spills a large successful output under the cap with the whole stored', () => {
    const prefix = script();
    expect(asClaudeCode(prefix, 'cat; echo " and back"', join(base, 'cwd-stdin'), 'ping')).toEqual({ code: 0, out: 'ping and back\n' });
    const big = asClaudeCode(prefix, 'seq 1 50000; echo "the last line" >&2', join(base, 'cwd-big'));
    expect(big.code).toBe(0);
    expect(Buffer.byteLength(big.out)).toBeLessThanOrEqual(2048 + 1);
    expect(big.out).toContain('the last line');
    const locator = /stored at: (\S+?)\. /.exec(big.out)?.[1] ?? '';
    expect(readFileSync(locator, 'utf8')).toBe(`${Array.from({ length: 50000 }, (_, i) => String(i + 1)).join('\n')}\nthe last line\n`);
  });

  it('goes through spillway run when stdout is not a file (a pipe)', () => {
    const prefix = script();
    const r = spawnSync(prefix, [`seq 1 50000; exit 3 && pwd -P >| '${join(base, 'cwd-pipe')}'`], { env: { ...env(), SHELL: '/bin/bash' }, encoding: 'utf8' });
    expect(r.status).toBe(3);
    expect(Buffer.byteLength(r.stdout)).toBeLessThanOrEqual(1024 + 1);
    expect(r.stdout).toContain('Use read with offset/limit');
  });

  it('runs the command as it is when node or spillway is gone', () => {
    const prefix = script(join(base, 'no-such-node'));
    const r = asClaudeCode(prefix, 'seq 1 100000 | wc -l; exit 2', join(base, 'cwd-gone'));
    expect(r).toEqual({ code: 2, out: '100000\n' });
  });
});
