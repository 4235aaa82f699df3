import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, link, mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, spillway, type BinResult } from './test-bin.js';
import { privateRootPerFile } from './test-temp-dirs.js';

// End-to-end: the BUILT binary, as a subprocess, against private temporary roots.

const node = process.execPath;
let base: string;
let root: string;
let home: string;

/** An environment that can never reach the real ~/.local/state. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, SPILLWAY_ROOT: root, NO_COLOR: '1', ...extra };
}

async function run(args: string[], extra: Record<string, string> = {}, input?: string): Promise<BinResult> {
  return spillway(args, input === undefined ? { env: env(extra) } : { env: env(extra), input });
}

function locatorIn(text: string): string {
  const found = /Full formatted result stored at: (.*?)\. Use /.exec(text)?.[1];
  if (found === undefined) throw new Error(`no notice in: ${text.slice(-300)}`);
  return found;
}

/** A deterministic output with multi-byte characters, CRLF lines, blank lines and long lines. */
const GENERATOR = `
  const parts = [];
  for (let i = 1; i <= 40000; i++) {
    if (i % 1000 === 0) parts.push('long ' + 'ж'.repeat(3000) + ' ' + i + '\\n');
    else if (i % 7 === 0) parts.push('crlf line ' + i + ' — ünïcödé 🚀\\r\\n');
    else if (i % 11 === 0) parts.push('\\n');
    else parts.push('line ' + i + ' of the output, plain ascii\\n');
  }
  parts.push('final line without a newline');
  process.stdout.write(parts.join(''));`;

function expectedOutput(): string {
  const parts: string[] = [];
  for (let i = 1; i <= 40000; i++) {
    if (i % 1000 === 0) parts.push(`long ${'ж'.repeat(3000)} ${String(i)}\n`);
    else if (i % 7 === 0) parts.push(`crlf line ${String(i)} — ünïcödé 🚀\r\n`);
    else if (i % 11 === 0) parts.push('\n');
    else parts.push(`line ${String(i)} of the output, plain ascii\n`);
  }
  parts.push('final line without a newline');
  return parts.join('');
}

beforeAll(() => {
  ensureBuilt();
});
privateRootPerFile('spillway-cli-e2e-', (dirs) => {
  ({ base, root, home } = dirs);
});

describe('the built binary', () => {
  it('has a shebang, is executable, and runs directly', async () => {
    const text = await readFile(BIN, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect((await stat(BIN)).mode & 0o111).toBe(0o111);
    const version = execFileSync(BIN, ['--version'], { env: env() }).toString();
    expect(version.trim()).toBe((JSON.parse(readFileSync(join(BIN, '..', '..', 'package.json'), 'utf8')) as { version: string }).version);
  });
});

describe('spillway run', () => {
  it('passes output within the cap through byte for byte', async () => {
    const r = await run(['run', '--', 'printf', 'hello\\n  world\\ttab\\n\\nno trailing newline']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('hello\n  world\ttab\n\nno trailing newline');
    expect(r.stderr).toBe('');
  });

  it('merges stderr into the output', async () => {
    const r = await run(['run', '--', 'sh', '-c', 'echo out; echo err >&2; exit 0']);
    expect(r.out.split('\n').sort()).toEqual(['', 'err', 'out']);
  });

  it('spills a large output and read pages it back byte for byte', async () => {
    const expected = expectedOutput();
    const r = await run(['run', '--name', 'generated', '--', node, '-e', GENERATOR]);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeLessThanOrEqual(32_768 + 1);
    const locator = locatorIn(r.out);
    expect(locator.startsWith(`${root}/session-`)).toBe(true);
    expect(locator).toMatch(/generated\.txt$/);
    const omitted = Number(/\(Omitted (\d+) bytes/.exec(r.out)?.[1]);
    expect(omitted).toBeGreaterThan(Buffer.byteLength(expected) - 32_768);

    // Page through with --offset/--limit and a cap smaller than a long line would need.
    let rebuilt = '';
    let offset = 1;
    let pages = 0;
    for (;;) {
      const page = await run(['read', locator, '--json', '--offset', String(offset), '--limit', '9000', '--max-bytes', '400000']);
      expect(page.code).toBe(0);
      const json = JSON.parse(page.out) as { text: string; hasMore: boolean; nextOffset: number | null; totalBytes: number };
      expect(json.totalBytes).toBe(Buffer.byteLength(expected));
      rebuilt += json.text;
      pages++;
      if (!json.hasMore) break;
      expect(json.nextOffset).not.toBeNull();
      offset = json.nextOffset ?? 0;
    }
    expect(pages).toBeGreaterThan(1);
    expect(Buffer.from(rebuilt).equals(Buffer.from(expected))).toBe(true);

    // And in one go with --raw and a large enough --max-bytes.
    const whole = await run(['read', locator, '--raw', '--limit', '1000000', '--max-bytes', '100000000']);
    expect(whole.stdout.equals(Buffer.from(expected))).toBe(true);
    // The artifact on disk is the output, exactly.
    expect((await readFile(locator)).equals(Buffer.from(expected))).toBe(true);
  });

  it('shows numbered lines and a hint to continue', async () => {
    const r = await run(['run', '--max-inline-bytes', '1000', '--', node, '-e', 'for (let i = 1; i <= 3000; i++) console.log("row " + i)']);
    const locator = locatorIn(r.out);
    const page = await run(['read', locator, '--offset', '1500', '--limit', '2']);
    expect(page.out).toBe(`  1500\trow 1500\n  1501\trow 1501\n… more lines follow: use --offset 1502 to continue (${String(Buffer.byteLength(Array.from({ length: 3000 }, (_, i) => `row ${String(i + 1)}\n`).join('')))} bytes in all).\n`);
    // A page of no lines would only name the same --offset again: refused like --max-bytes 0.
    for (const args of [['--limit', '0'], ['--max-bytes', '0']]) {
      const none = await run(['read', locator, '--offset', '1500', ...args]);
      expect(none.code).toBe(2);
      expect(none.out).toBe('');
      expect(none.stderr.split('\n')[0]).toMatch(new RegExp(`^spillway: error: option '${String(args[0])} <[a-z]+>' argument '0' is invalid\\. expected a whole number of 1 or more`));
    }
    const grep = await run(['grep', locator, '^row 29[0-9]9$']);
    expect(grep.out).toBe(['2909:row 2909', '2919:row 2919', '2929:row 2929', '2939:row 2939', '2949:row 2949', '2959:row 2959', '2969:row 2969', '2979:row 2979', '2989:row 2989', '2999:row 2999', ''].join('\n'));
  });

  it.each([
    { args: ['sh', '-c', 'exit 0'], code: 0 },
    { args: ['sh', '-c', 'echo failing; exit 42'], code: 42 },
    { args: ['sh', '-c', 'kill -TERM $$'], code: 143 },
    { args: ['sh', '-c', 'kill -KILL $$'], code: 137 },
  ])('exits with the command\'s status: $args → $code', async ({ args, code }) => {
    const r = await run(['run', '--', ...args]);
    expect(r.code).toBe(code);
  });

  it('exits 127 with a clear message when the command does not exist', async () => {
    const r = await run(['run', '--', 'spillway-definitely-missing']);
    expect(r.code).toBe(127);
    expect(r.out).toBe('');
    expect(r.stderr).toBe(
      'spillway: error: command not found: spillway-definitely-missing. Check its name and your PATH, or give the path to the program. [COMMAND_NOT_FOUND]\n',
    );
  });

  it('exits 126 when the command cannot be executed', async () => {
    const file = join(base, 'not-executable.sh');
    await writeFile(file, '#!/bin/sh\necho hi\n', { mode: 0o644 });
    const r = await run(['run', '--', file]);
    expect(r.code).toBe(126);
  });

  it('exits 2 on a usage error', async () => {
    expect((await run(['run', '--max-inline-bytes', '-5', '--', 'true'])).code).toBe(2);
    expect((await run(['nonsense'])).code).toBe(2);
    expect((await run([])).code).toBe(2);
  });

  it('forwards SIGTERM to the command and exits 128+15 when it dies of it', async () => {
    const pidFile = join(base, 'sleeper.pid');
    const script = `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setTimeout(() => {}, 60000);`;
    let childPid = 0;
    const result = spillway(['run', '--', node, '-e', script], {
      env: env(),
      onStart: (wrapper) => {
        const poll = setInterval(() => {
          void readFile(pidFile, 'utf8').then(
            (pid) => {
              // writeFileSync is not atomic: the file can exist and still be empty.
              if (!/^[1-9][0-9]*$/.test(pid)) return;
              clearInterval(poll);
              childPid = Number(pid);
              wrapper.kill('SIGTERM');
            },
            () => undefined,
          );
        }, 20);
      },
    });
    const r = await result;
    expect(r.code).toBe(143);
    expect(childPid).toBeGreaterThan(0);
    expect(() => process.kill(childPid, 0)).toThrow(/ESRCH/);
  });

  it('forwards SIGINT to a command that handles it, and exits with its code and output', async () => {
    const readyFile = join(base, 'ready');
    const script = `
      process.on('SIGINT', () => { console.log('caught SIGINT, cleaning up'); process.exit(5); });
      console.log('working');
      require('node:fs').writeFileSync(${JSON.stringify(readyFile)}, 'x');
      setTimeout(() => {}, 60000);`;
    const r = await spillway(['run', '--', node, '-e', script], {
      env: env(),
      onStart: (wrapper) => {
        const poll = setInterval(() => {
          void stat(readyFile).then(
            () => {
              clearInterval(poll);
              wrapper.kill('SIGINT');
            },
            () => undefined,
          );
        }, 20);
      },
    });
    expect(r.code).toBe(5);
    expect(r.out).toBe('working\ncaught SIGINT, cleaning up\n');
  });

  it('keeps the output inline with a warning when the root is unsafe', async () => {
    const open = join(base, 'world-writable');
    await mkdir(open);
    await chmod(open, 0o777);
    const r = await run(['run', '--max-inline-bytes', '100', '--', node, '-e', 'process.stdout.write("x".repeat(5000))'], { SPILLWAY_ROOT: open });
    expect(r.code).toBe(0);
    expect(r.out).toBe('x'.repeat(5000));
    expect(r.stderr).toMatch(/^spillway: warning: .*SPILL_UNSAFE_ROOT/);
    expect(await readdir(open)).toEqual([]);
  });

  it('describes itself under --json', async () => {
    const r = await run(['run', '--json', '--max-inline-bytes', '2000', '--', node, '-e', 'console.log("y".repeat(10000)); process.exit(3)']);
    expect(r.code).toBe(3);
    const json = JSON.parse(r.out) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(['exitCode', 'isError', 'locator', 'omittedBytes', 'signal', 'spilled', 'storeError', 'text']);
    expect(json).toMatchObject({ spilled: true, exitCode: 3, signal: null, isError: true, storeError: null });
    expect(json.text).toContain(json.locator);
  });
});

describe('spillway save, ls, rm', () => {
  it('saves stdin, lists it under its session, and removes it', async () => {
    const content = 'saved from stdin — ✓\n'.repeat(100);
    const saved = await run(['save', '--name', 'notes.md', '--session', 'e2e-save', '--json'], {}, content);
    expect(saved.code).toBe(0);
    const ref = JSON.parse(saved.out) as { locator: string; bytes: number; retrievalHint: string; notice: string };
    expect(ref.bytes).toBe(Buffer.byteLength(content));
    expect(ref.locator).toMatch(/notes\.md$/);
    expect(ref.retrievalHint).toBe('Use spillway read with --offset/--limit, spillway grep to search within it, or spillway cat to copy it whole.');
    expect(ref.notice.endsWith(`${ref.retrievalHint})`)).toBe(true);
    expect((await readFile(ref.locator, 'utf8'))).toBe(content);

    const text = await run(['save', '--session', 'e2e-save'], {}, 'short\n');
    expect(text.out).toMatch(/^\(Omitted 6 bytes\. Full formatted result stored at: .*stdin\.txt\. Use spillway read with --offset\/--limit, spillway grep to search within it, or spillway cat to copy it whole\.\)\n$/);

    const listed = JSON.parse((await run(['ls', '--session', 'e2e-save', '--json'])).out) as { entries: { locator: string; session: string }[]; count: number };
    expect(listed.count).toBe(2);
    expect(listed.entries.map((e) => e.locator)).toContain(ref.locator);
    expect(new Set(listed.entries.map((e) => e.session)).size).toBe(1);

    const removed = await run(['rm', ref.locator]);
    expect(removed).toMatchObject({ code: 0, out: `removed ${ref.locator}\n` });
    const again = await run(['rm', ref.locator]);
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/--force/);
    expect((await run(['ls', '--session', 'e2e-save', '--json'])).out).toContain('"count":1');
  });

  it('creates the default root 0700 under XDG_STATE_HOME, or ~/.local/state', async () => {
    const state = join(base, 'xdg-state');
    const viaXdg = await spillway(['save', '--json'], { env: { ...env({ XDG_STATE_HOME: state }), SPILLWAY_ROOT: '' }, input: 'x' });
    expect(viaXdg.code).toBe(0);
    expect((JSON.parse(viaXdg.out) as { locator: string }).locator.startsWith(join(state, 'spillway', 'session-'))).toBe(true);
    expect((await stat(join(state, 'spillway'))).mode & 0o777).toBe(0o700);

    const fakeHome = join(base, 'fresh-home');
    await mkdir(fakeHome, { mode: 0o700 });
    const viaHome = await spillway(['ls', '--json'], { env: { PATH: process.env.PATH ?? '', HOME: fakeHome, NO_COLOR: '1' } });
    expect(viaHome.code).toBe(0);
    expect((await stat(join(fakeHome, '.local', 'state', 'spillway'))).mode & 0o777).toBe(0o700);
  });
});

describe('hostile locators', () => {
  let victim: string;
  let sessionDir: string;

  beforeAll(async () => {
    victim = join(base, 'victim-secret.txt');
    await writeFile(victim, 'TOP SECRET victim content\n');
    const saved = await run(['save', '--session', 'hostile', '--json'], {}, 'own content\n');
    sessionDir = join((JSON.parse(saved.out) as { locator: string }).locator, '..');
    // A sibling directory whose name merely starts with the root's.
    await mkdir(`${root}-evil`, { recursive: true });
    await writeFile(join(`${root}-evil`, 'x.txt'), 'TOP SECRET sibling\n');
    await symlink(victim, join(sessionDir, '0123456789abcdef0123-link.txt'));
    await link(victim, join(sessionDir, '0123456789abcdef0124-hard.txt'));
    spawnSync('mkfifo', [join(sessionDir, '0123456789abcdef0125-fifo.txt')]);
  });

  const cases: [string, () => string][] = [
    ['a ../ escape', () => `${root}/../victim-secret.txt`],
    ['a path outside the root', () => victim],
    ['/etc/passwd', () => '/etc/passwd'],
    ['a relative path', () => 'victim-secret.txt'],
    ['a sibling sharing the root as a prefix', () => `${root}-evil/x.txt`],
    ['a symlink inside the session dir', () => join(sessionDir, '0123456789abcdef0123-link.txt')],
    ['a hard link to an outside file', () => join(sessionDir, '0123456789abcdef0124-hard.txt')],
    ['a FIFO', () => join(sessionDir, '0123456789abcdef0125-fifo.txt')],
    ['the root itself', () => root],
    ['a nonexistent file in the session dir', () => join(sessionDir, 'ffffffffffffffffffff-missing.txt')],
  ];

  it.each(cases)('refuses %s for read, grep and rm with exit 3 or 4 and one line', async (_name, locatorOf) => {
    const locator = locatorOf();
    for (const args of [['read', locator], ['grep', locator, '.'], ['rm', locator]]) {
      const r = await run(args);
      expect([3, 4], `${args.join(' ')}: ${r.stderr}`).toContain(r.code);
      expect(r.out).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/\[SPILL_(INVALID_LOCATOR|NOT_FOUND)\]\n$/);
    }
    expect(await readFile(victim, 'utf8')).toBe('TOP SECRET victim content\n');
  });

  it('answers --json errors with the code and the exit code', async () => {
    const r = await run(['read', `${root}/../victim-secret.txt`, '--json']);
    const json = JSON.parse(r.stderr) as { error: { code: string; exitCode: number; message: string } };
    expect(json.error.exitCode).toBe(r.code);
    expect(['SPILL_INVALID_LOCATOR', 'SPILL_NOT_FOUND']).toContain(json.error.code);
  });
});

describe('an unsafe --root', () => {
  const kinds: [string, () => Promise<string>][] = [
    [
      'a world-writable directory',
      async () => {
        const dir = join(base, 'open-root');
        await mkdir(dir, { recursive: true });
        await chmod(dir, 0o777);
        return dir;
      },
    ],
    [
      'a group-readable directory',
      async () => {
        const dir = join(base, 'group-root');
        await mkdir(dir, { recursive: true });
        await chmod(dir, 0o750);
        return dir;
      },
    ],
    [
      'a symlink to a private directory',
      async () => {
        const target = join(base, 'private-target');
        await mkdir(target, { recursive: true, mode: 0o700 });
        const linkPath = join(base, 'root-link');
        await symlink(target, linkPath).catch(() => undefined);
        return linkPath;
      },
    ],
    [
      'a regular file',
      async () => {
        const file = join(base, 'root-is-a-file');
        await writeFile(file, 'not a directory');
        return file;
      },
    ],
  ];

  it.each(kinds)('is refused for %s with exit 6 and a message saying what to do', async (_name, make) => {
    const unsafe = await make();
    for (const args of [['ls', '--root', unsafe], ['save', '--root', unsafe], ['read', join(unsafe, 'x'), '--root', unsafe]]) {
      const r = await run(args, {}, 'content');
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(6);
      expect(r.out).toBe('');
      expect(r.stderr).toMatch(/^spillway: error: .*\[SPILL_UNSAFE_ROOT\]\n$/);
    }
  });

  it('is refused through SPILLWAY_ROOT too', async () => {
    const dir = join(base, 'open-env-root');
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o777);
    const r = await run(['ls'], { SPILLWAY_ROOT: dir });
    expect(r.code).toBe(6);
  });
});
