import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunJson } from './json.js';
import { BIN, COMMAND, ensureBuilt, spillway, type BinResult } from './test-bin.js';
import { makePrivateDir, privateRootPerFile } from './test-temp-dirs.js';

// End-to-end, on the BUILT binary: `run` stores the output byte for byte, bounds what it
// stores, and never loses the output when the store fails (read-only root, full disk).

const node = process.execPath;
const isRoot = process.geteuid?.() === 0;
let base: string;
let root: string;
let home: string;

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, SPILLWAY_ROOT: root, NO_COLOR: '1', ...extra };
}

function run(args: string[], extra: Record<string, string> = {}): Promise<BinResult> {
  return spillway(args, { env: env(extra), timeoutMs: 60_000 });
}

function locatorIn(text: string): string {
  const found = /Full formatted result stored at: (.*?)\. Use /.exec(text)?.[1];
  if (found === undefined) throw new Error(`no notice in: ${text.slice(-300)}`);
  return found;
}

/** Every file in the root's session directories, by name. */
async function storedNames(dir: string): Promise<string[]> {
  const names: string[] = [];
  for (const session of await readdir(dir)) {
    for (const name of await readdir(join(dir, session))) names.push(name);
  }
  return names;
}

beforeAll(() => {
  ensureBuilt();
});
privateRootPerFile('spillway-cli-bytes-', (dirs) => {
  ({ base, root, home } = dirs);
});

describe('spillway run stores the output byte for byte', () => {
  it('stores a binary file exactly (cmp against the source) and says it is not UTF-8', async () => {
    const source = '/usr/bin/ls';
    const r = await run(['run', '--max-inline-bytes', '4000', '--', 'cat', source]);
    expect(r.code).toBe(0);
    const locator = locatorIn(r.out);
    expect(spawnSync('cmp', [source, locator]).status).toBe(0);
    const size = (await stat(source)).size;
    expect(r.out).toContain(`(The output is binary or not UTF-8: ${String(size)} bytes, stored exactly;`);
    // The binary line comes right before the notice, which keeps its exact wording.
    expect(r.out).toMatch(/invalid bytes\.\)\n\(Omitted \d+ bytes\. Full formatted result stored at: .*\. Use spillway read with --offset\/--limit, spillway grep to search within it, or spillway cat to copy it whole\.\)\n$/);
    expect(Buffer.byteLength(r.out) - 1).toBeLessThanOrEqual(4000);
  });

  it('prints small invalid UTF-8 output exactly, and stores large invalid UTF-8 exactly', async () => {
    const small = await run(['run', '--', 'printf', 'ok\\377\\376 \\303\\050 end\\n']);
    expect(small.code).toBe(0);
    expect(small.stdout).toEqual(Buffer.from([0x6f, 0x6b, 0xff, 0xfe, 0x20, 0xc3, 0x28, 0x20, 0x65, 0x6e, 0x64, 0x0a]));

    const script = 'const b = Buffer.from([0x61, 0xff, 0x0a, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf0, 0x9f, 0x9a]); for (let i = 0; i < 20000; i++) process.stdout.write(b);';
    const large = await run(['run', '--max-inline-bytes', '2000', '--', node, '-e', script]);
    expect(large.code).toBe(0);
    const stored = await readFile(locatorIn(large.out));
    const one = Buffer.from([0x61, 0xff, 0x0a, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf0, 0x9f, 0x9a]);
    expect(stored.length).toBe(one.length * 20000);
    expect(stored.equals(Buffer.concat(Array.from({ length: 20000 }, () => one)))).toBe(true);
    expect(large.out).toContain('(The output is binary or not UTF-8: 220000 bytes, stored exactly;');
  });

  it('merges stdout and stderr in the order written, as > file 2>&1', async () => {
    const script = 'for i in $(seq 1 3000); do echo "out $i"; echo "err $i" >&2; done';
    const r = await run(['run', '--max-inline-bytes', '1000', '--', 'sh', '-c', script]);
    const expected = spawnSync('sh', ['-c', `(${script}) 2>&1`]).stdout;
    expect((await readFile(locatorIn(r.out))).equals(expected)).toBe(true);
  });

  it('stores at most --max-stored-bytes of a runaway `yes`, stops it, and says what was dropped', async () => {
    const r = await run(['run', '--max-inline-bytes', '2000', '--max-stored-bytes', '200000', '--', 'yes', 'spillway']);
    expect(r.code).toBe(143); // stopped with SIGTERM
    const stored = await readFile(locatorIn(r.out));
    expect(stored.length).toBe(200000);
    expect(stored.equals(Buffer.from('spillway\n'.repeat(30000)).subarray(0, 200000))).toBe(true);
    expect(r.out).toMatch(/\(Only the first 200000 bytes were stored: \d+ more bytes past the 200000-byte limit were dropped and the command was stopped\.\)\n\(Omitted /);
    expect(r.stderr).toMatch(/went past --max-stored-bytes 200000: its first 200000 bytes are stored, \d+ more were dropped, and yes was stopped\./);
  });

  it('takes the limit from SPILLWAY_MAX_STORED_BYTES, and refuses a malformed one', async () => {
    const r = await run(['run', '--max-inline-bytes', '2000', '--', 'yes'], { SPILLWAY_MAX_STORED_BYTES: '50000' });
    expect(r.code).toBe(143);
    expect((await stat(locatorIn(r.out))).size).toBe(50000);
    const bad = await run(['run', '--', 'true'], { SPILLWAY_MAX_STORED_BYTES: '12k' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/SPILLWAY_MAX_STORED_BYTES must be a whole number/);
  });

  it('bin/spillway.js refuses a malformed SPILLWAY_MAX_STORED_BYTES before the command starts, for a small and a large output', async () => {
    for (const [value, lines] of [['12k', 1], ['abc', 1000]] as const) {
      const marker = join(base, `started-${value}`);
      const r = await spillway(['run', '--max-inline-bytes', '100', '--', 'sh', '-c', `seq 1 ${String(lines)}; touch '${marker}'`], { env: env({ SPILLWAY_MAX_STORED_BYTES: value }), entry: COMMAND });
      expect(r.code, value).toBe(2);
      expect(r.stderr).toContain(`SPILLWAY_MAX_STORED_BYTES must be a whole number of bytes, 1 or more; got '${value}'. [USAGE]`);
      expect(r.out).toBe('');
      expect(await stat(marker).then(() => true, () => false), `${value}: the command ran`).toBe(false);
    }
  });

  it('save stores stdin byte for byte (cmp against the source)', async () => {
    const source = '/usr/bin/ls';
    const r = await spillway(['save', '--name', 'ls.bin', '--json'], { env: env(), input: await readFile(source) });
    expect(r.code).toBe(0);
    const saved = JSON.parse(r.out) as { locator: string; bytes: number };
    expect(saved.bytes).toBe((await stat(source)).size);
    expect(spawnSync('cmp', [source, saved.locator]).status).toBe(0);
  });

  it('leaves no artifact under a final name when spillway is killed with SIGKILL mid-run', async () => {
    const killRoot = join(base, 'kill-root');
    await mkdir(killRoot, { mode: 0o700 });
    const pidFile = join(base, 'writer.pid');
    const script = `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); const line = 'x'.repeat(999) + '\\n'; setInterval(() => process.stdout.write(line), 1);`;
    const wrapper = spawn(node, [BIN, 'run', '--', node, '-e', script], { env: env({ SPILLWAY_ROOT: killRoot }), stdio: 'ignore' });
    // Polled until each precondition holds, not for a fixed time: a loaded machine only
    // makes the wait longer (the test's timeout bounds it).
    const alive = (): void => {
      if (wrapper.exitCode !== null || wrapper.signalCode !== null) throw new Error('spillway run exited before it was killed');
    };
    let writerPid = 0;
    while (writerPid === 0) {
      alive();
      await new Promise((r) => setTimeout(r, 20));
      const text = await readFile(pidFile, 'utf8').catch(() => '');
      if (/^[1-9][0-9]*$/.test(text)) writerPid = Number(text);
    }
    // Killed only once output has landed in the temp file, so that there is a partial
    // artifact which must not appear under a final name.
    const landed = async (): Promise<boolean> => {
      for (const session of await readdir(killRoot)) {
        for (const name of await readdir(join(killRoot, session))) {
          if (name.startsWith('.tmp-') && (await stat(join(killRoot, session, name))).size > 0) return true;
        }
      }
      return false;
    };
    while (!(await landed().catch(() => false))) {
      alive();
      await new Promise((r) => setTimeout(r, 20));
    }
    const closed = new Promise((r) => wrapper.once('close', r));
    wrapper.kill('SIGKILL');
    await closed;
    process.kill(writerPid, 'SIGKILL');
    const names = await storedNames(killRoot);
    expect(names.length).toBe(1);
    expect(names[0]).toMatch(/^\.tmp-[0-9a-f]{32}$/); // a temp file only, swept later by `spillway gc`
  });
});

/**
 * Runs the binary and follows it: stdout is hashed and counted, never kept, and the
 * spillway process's resident memory is sampled while it runs.
 */
function followed(args: string[], extra: Record<string, string>): Promise<{ code: number | null; bytes: number; sha256: string; stderr: string; maxRssBytes: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [BIN, ...args], { env: env(extra), stdio: ['ignore', 'pipe', 'pipe'] });
    const hash = createHash('sha256');
    let bytes = 0;
    let stderr = '';
    let maxRss = 0;
    child.stdout.on('data', (b: Buffer) => {
      bytes += b.length;
      hash.update(b);
    });
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const sample = setInterval(() => {
      try {
        const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${String(child.pid)}/status`, 'utf8'))?.[1];
        if (rss !== undefined) maxRss = Math.max(maxRss, Number(rss) * 1024);
      } catch {
        // it has exited
      }
    }, 25);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('spillway did not finish in time'));
    }, 240_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sample);
      clearTimeout(timer);
      resolve({ code, bytes, sha256: hash.digest('hex'), stderr, maxRssBytes: maxRss });
    });
  });
}

/** The command that prints `bytes` bytes of 100-byte lines and exits with `code`. */
function generator(bytes: number, code: number): string[] {
  return ['sh', '-c', `yes 'spillway failure test output line: the quick brown fox jumps over the lazy dog 01234567' | head -c ${String(bytes)}; exit ${String(code)}`];
}

function expectedSha(bytes: number): string {
  const r = spawnSync('sh', ['-c', generator(bytes, 0)[2] ?? ''], { maxBuffer: bytes + 1024 });
  return createHash('sha256').update(r.stdout).digest('hex');
}

function mount(args: string[]): boolean {
  return spawnSync('mount', args, { stdio: 'ignore' }).status === 0;
}

describe('spillway run never loses the output to a failing store', () => {
  it.skipIf(!isRoot)('prints 600 MB in full, in bounded memory, with the command\'s exit code, when the root is read-only (bind mount; needs root)', async (ctx) => {
    const ro = join(base, 'ro-root');
    await mkdir(ro, { mode: 0o700 });
    // Mounting refused (a container without CAP_SYS_ADMIN): the injected variant in main.test.ts still runs.
    if (!mount(['--bind', ro, ro])) ctx.skip('bind mounts are not permitted here');
    try {
      if (!mount(['-o', 'remount,ro,bind', ro])) throw new Error('could not remount read-only');
      const bytes = 600_000_000;
      // The fallback roots are unusable too (a file where the state directory and the temp
      // directory would be), so nothing can store it.
      await writeFile(join(base, 'state-is-a-file'), '');
      const r = await followed(['run', '--', ...generator(bytes, 7)], { SPILLWAY_ROOT: ro, XDG_STATE_HOME: join(base, 'state-is-a-file'), TMPDIR: join(base, 'state-is-a-file') });
      expect(r.code).toBe(7);
      expect(r.bytes).toBe(bytes);
      expect(r.sha256).toBe(expectedSha(bytes));
      expect(r.stderr).toMatch(/spillway: warning: .*the output is printed in full, without spilling\.\n$/);
      expect(r.maxRssBytes).toBeLessThan(128 * 1024 * 1024);
    } finally {
      spawnSync('umount', [ro]);
    }
  }, 300_000);

  it.skipIf(!isRoot)('prints the whole output, with the command\'s exit code, when the disk fills midway (1 MiB tmpfs; needs root)', async (ctx) => {
    const small = join(base, 'small-root');
    await mkdir(small, { mode: 0o700 });
    // Mounting refused (a container without CAP_SYS_ADMIN): the injected variant in main.test.ts still runs.
    if (!mount(['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', small])) ctx.skip('tmpfs mounts are not permitted here');
    try {
      const bytes = 8_000_000;
      const r = await followed(['run', '--', ...generator(bytes, 3)], { SPILLWAY_ROOT: small });
      expect(r.code).toBe(3);
      expect(r.bytes).toBe(bytes);
      expect(r.sha256).toBe(expectedSha(bytes));
      expect(r.stderr).toMatch(/SPILL_NO_SPACE.*so it is printed in full\./);
      expect(await storedNames(small)).toEqual([]); // the partial temp file was removed
    } finally {
      spawnSync('umount', [small]);
    }
  }, 120_000);
});

/**
 * Starts spillway under a file size limit (RLIMIT_FSIZE) of `blocks` 512-byte blocks, which
 * it and its command inherit: spillway's writes past it fail with EFBIG (Node ignores
 * SIGXFSZ), as on a disk that fills midway, with no mount and no root.
 */
function underFileSizeLimit(blocks: number): string[] {
  return ['/bin/sh', '-c', `ulimit -f ${String(blocks)} && exec "$@"`, 'sh'];
}

describe('spillway run when its writes fail midway (a file size limit: EFBIG)', () => {
  // Far more than any volume has free, so the output passes through spillway, whose own
  // writes then fail. (On the direct route the command writes the file itself, and it is
  // the command that meets the limit, with SIGXFSZ, as with `> file`.)
  const piped = ['--max-stored-bytes', String(Number.MAX_SAFE_INTEGER)];
  const command = ['sh', '-c', 'seq 1 200000; exit 3'];
  // 1288895 bytes: far past the cap and the limit (100 KiB in dash's blocks, 200 KiB in bash's).
  const whole = Array.from({ length: 200_000 }, (_, i) => `${String(i + 1)}\n`).join('');
  let roots = 0;
  const freshRoot = async (): Promise<string> => {
    const dir = join(base, `fsize-root-${String(++roots)}`);
    await makePrivateDir(dir);
    return dir;
  };

  it('--json: one document whose text is the whole output, with the failure\'s code and the command\'s exit code', async () => {
    const fresh = await freshRoot();
    const r = await spillway(['run', '--json', '--verbose', '--root', fresh, ...piped, '--', ...command], { env: env(), through: underFileSizeLimit(200), timeoutMs: 60_000 });
    expect(r.stderr).toContain('the output passes through spillway into the spill file');
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.out) as RunJson;
    expect(doc.text.length).toBe(whole.length);
    expect(doc.text === whole, 'the text is every line of the output, in order').toBe(true);
    expect({ ...doc, text: undefined }).toEqual({
      text: undefined,
      spilled: false,
      locator: null,
      omittedBytes: null,
      exitCode: 3,
      signal: null,
      isError: true,
      storeError: { code: 'SPILL_STORAGE_FAILED', message: expect.stringContaining('EFBIG') as unknown },
    });
    expect(r.stderr).toMatch(/EFBIG.*\[SPILL_STORAGE_FAILED\]: the output could not be stored under .*, so it is given in the JSON document in full\./);
    expect(await storedNames(fresh)).toEqual([]); // the partial temp file was removed
  });

  it.each([
    ['the program', BIN],
    ['the installed command (its quick path)', COMMAND],
  ])('text, %s: prints the whole output, with the command\'s exit code', async (_name, entry) => {
    const fresh = await freshRoot();
    const r = await spillway(['run', '--root', fresh, ...piped, '--', ...command], { env: env({ SPILLWAY_CODE_CACHE: '0' }), entry, through: underFileSizeLimit(200), timeoutMs: 60_000 });
    expect(r.code).toBe(3);
    expect(r.out.length).toBe(whole.length);
    expect(r.out === whole, 'stdout is every line of the output, in order').toBe(true);
    expect(r.stderr).toMatch(/EFBIG.*\[SPILL_STORAGE_FAILED\]: the output could not be stored under .*, so it is printed in full\./);
    expect(await storedNames(fresh)).toEqual([]);
  });

  it('on a fallback root: one warning names the root given up and the fallback that failed, never "stored in"', async () => {
    const shared = join(base, `fsize-shared-${String(++roots)}`);
    await mkdir(shared, { mode: 0o777 });
    await chmod(shared, 0o777); // past the umask: a root open to others, which run refuses
    const state = join(base, `fsize-state-${String(roots)}`);
    const r = await spillway(['run', '--root', shared, ...piped, '--', ...command], { env: env({ XDG_STATE_HOME: state }), through: underFileSizeLimit(200), timeoutMs: 60_000 });
    expect(r.code).toBe(3);
    expect(r.out === whole, 'stdout is every line of the output, in order').toBe(true);
    const warnings = r.stderr.split('\n').filter((line) => line.startsWith('spillway: warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(shared); // why the configured root was given up
    expect(warnings[0]).toContain(`the fallback root ${join(state, 'spillway')}`);
    expect(warnings[0]).toMatch(/was refused too: .*EFBIG.*: the output is printed in full\.$/);
    expect(r.stderr).not.toContain('stored in the fallback root');
  });
});
