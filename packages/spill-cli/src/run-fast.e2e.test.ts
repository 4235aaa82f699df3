// `spillway run` as a package manager links it (bin/spillway.js) answers a small output
// without loading the program. It must answer exactly as the program does: the same bytes,
// exit code, stored artifact and usage events, for every kind of output.
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, COMMAND, ensureBuilt, PACKAGE_DIR, spillway, type BinResult } from './test-bin.js';
import { tempDirsPerTest } from './test-temp-dirs.js';
import { mkdirSync } from 'node:fs';

const tmp = tempDirsPerTest('run-fast-');
beforeAll(() => {
  ensureBuilt();
});

interface Side {
  readonly run: BinResult;
  readonly home: string;
}

/** Runs the same `spillway run` through the fast entry and through the program, each in a home of its own. */
async function both(args: readonly string[], input = '', extra: Record<string, string> = {}): Promise<{ fast: Side; full: Side }> {
  const side = async (entry: string): Promise<Side> => {
    const home = tmp();
    mkdirSync(join(home, 'root'), { mode: 0o700 });
    const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_STATE_HOME: join(home, 'state'), SPILLWAY_ROOT: join(home, 'root'), SPILLWAY_AUTO_GC: 'off', SPILLWAY_AUTO_INDEX: 'off', ...extra };
    return { run: await spillway(['run', ...args], { env, entry, input }), home };
  };
  return { fast: await side(COMMAND), full: await side(BIN) };
}

const locatorIn = (text: string): string => /stored at: (\S+?)\. /.exec(text)?.[1] ?? '';
/** The output with its home directory and artifact name made neutral, for comparing the two sides. */
const neutral = (side: Side): string => side.run.out.split(side.home).join('<home>').replace(/[0-9a-f]{32}/g, '<session>').replace(/[0-9a-f]{20}-/g, '<id>-');
const events = (side: Side): unknown[] =>
  readFileSync(join(side.home, 'state', 'spillway-usage', 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const { t: _t, artifact: _a, ...rest } = JSON.parse(line) as Record<string, unknown>;
      return rest;
    });

describe('spillway run through bin/spillway.js answers as the program does', () => {
  it('a small output: the same bytes in the order written (stdout and stderr joined), exit code and usage event', async () => {
    const script = 'for i in 1 2 3 4 5 6 7 8; do echo "out $i"; echo "err $i" >&2; done; printf "no newline"; exit 7';
    const { fast, full } = await both(['--', 'sh', '-c', script]);
    expect(fast.run.code).toBe(7);
    expect(fast.run.stdout.equals(full.run.stdout)).toBe(true);
    expect(fast.run.out).toBe(`${[1, 2, 3, 4, 5, 6, 7, 8].map((i) => `out ${String(i)}\nerr ${String(i)}\n`).join('')}no newline`);
    expect(fast.run.stderr).toBe(full.run.stderr);
    expect(events(fast)).toEqual(events(full));
  });

  it('stdin reaches the command, and a signal ends it as for the program (128 + N)', async () => {
    const echoed = await both(['--', 'cat'], 'ping\n');
    expect(echoed.fast.run.out).toBe('ping\n');
    expect(echoed.fast.run.out).toBe(echoed.full.run.out);
    const killed = await both(['--', 'sh', '-c', 'echo before; kill -TERM $$']);
    expect(killed.fast.run.code).toBe(143);
    expect(killed.fast.run.code).toBe(killed.full.run.code);
    expect(killed.fast.run.out).toBe(killed.full.run.out);
  });

  it('an output past the cap, taken over while the command runs: the same preview, the whole stored, the same events', async () => {
    const script = 'seq 1 60000; echo "error: the build broke at step 9" >&2; seq 60001 120000';
    const { fast, full } = await both(['--max-inline-bytes', '4096', '--', 'sh', '-c', script]);
    expect(fast.run.code).toBe(0);
    expect(neutral(fast)).toBe(neutral(full));
    expect(fast.run.out).toContain('error: the build broke at step 9');
    expect(readFileSync(locatorIn(fast.run.out)).equals(readFileSync(locatorIn(full.run.out)))).toBe(true);
    expect(events(fast)).toEqual(events(full));
  });

  it('a failing command past the lower cap only: spilled under it, as by the program', async () => {
    const script = 'seq 1 400; echo "FATAL: out of cheese"; exit 3';
    const { fast, full } = await both(['--max-inline-bytes', '4096', '--max-inline-bytes-on-failure', '1024', '--', 'sh', '-c', script]);
    expect(fast.run.code).toBe(3);
    expect(Buffer.byteLength(fast.run.out)).toBeLessThanOrEqual(1025);
    expect(neutral(fast)).toBe(neutral(full));
    expect(readFileSync(locatorIn(fast.run.out), 'utf8')).toContain('FATAL: out of cheese');
  });

  it('binary output is stored exactly, and past --max-stored-bytes the command is stopped with the same warning', async () => {
    const binary = await both(['--max-inline-bytes', '1024', '--', 'head', '-c', '200000', process.execPath]);
    expect(readFileSync(locatorIn(binary.fast.run.out)).equals(readFileSync(process.execPath).subarray(0, 200000))).toBe(true);
    expect(neutral(binary.fast)).toBe(neutral(binary.full));
    const capped = await both(['--max-inline-bytes', '1024', '--max-stored-bytes', '100000', '--', 'seq', '1', '10000000']);
    expect(capped.fast.run.stderr.replace(/\d+ more were dropped/, 'N more were dropped')).toBe(capped.full.run.stderr.replace(/\d+ more were dropped/, 'N more were dropped'));
    expect(readFileSync(locatorIn(capped.fast.run.out)).length).toBe(100000);
  });

  it('a root that cannot be used: the fallback root takes the output and both say so the same way', async () => {
    const { fast, full } = await both(['--max-inline-bytes', '320', '--', 'seq', '1', '100000'], '', { SPILLWAY_ROOT: '/nonexistent/spillway-root' });
    expect(fast.run.stderr.split(fast.home).join('<home>')).toBe(full.run.stderr.split(full.home).join('<home>'));
    expect(fast.run.stderr).toContain('fallback root');
    expect(readFileSync(locatorIn(fast.run.out), 'utf8').length).toBe(588_895);
  });

  it('a root that cannot be used and an output that fits: both print it and say nothing, as nothing is stored', async () => {
    const { fast, full } = await both(['--max-inline-bytes', '320', '--', 'seq', '1', '10'], '', { SPILLWAY_ROOT: '/nonexistent/spillway-root' });
    expect(full.run.out).toBe(`${Array.from({ length: 10 }, (_, i) => String(i + 1)).join('\n')}\n`);
    expect(fast.run.out).toBe(full.run.out);
    expect(full.run.stderr).toBe('');
    expect(fast.run.stderr).toBe('');
  });

  it('a command that cannot start: the same error, code and exit status', async () => {
    const { fast, full } = await both(['--', 'no-such-command-anywhere']);
    expect(fast.run.code).toBe(127);
    expect(fast.run.stderr).toBe(full.run.stderr);
  });
});

describe('the routes of the fast path', () => {
  /** Past the free space of any volume here: the fast path, like the program, keeps the output off the disk until it can check each write. */
  const BEYOND_THE_VOLUME = '1000000000000000';
  const WHERE = 'readlink /proc/self/fd/1; readlink /proc/self/fd/2';

  it('writes the output into an incoming file of the root, which the store then takes over as it is; nothing is left behind', async () => {
    const { fast, full } = await both(['--max-inline-bytes', '2048', '--', 'sh', '-c', `${WHERE}; seq 1 20000`]);
    const incoming = join(fast.home, 'root', '.incoming');
    const [stdout, stderr] = fast.run.out.split('\n');
    expect(stdout).toMatch(new RegExp(`^${incoming}/\\.tmp-[0-9a-f]{32}$`));
    expect(stderr).toBe(stdout);
    const stored = readFileSync(locatorIn(fast.run.out), 'utf8');
    expect(stored.startsWith(`${stdout ?? ''}\n${stdout ?? ''}\n1\n2\n`)).toBe(true);
    expect(stored.split('\n').slice(2)).toEqual(readFileSync(locatorIn(full.run.out), 'utf8').split('\n').slice(2));
    expect(readdirSync(incoming)).toEqual([]);
    const small = await both(['--', 'sh', '-c', WHERE]);
    expect(small.fast.run.out).toMatch(new RegExp(`^${join(small.fast.home, 'root', '.incoming')}/\\.tmp-[0-9a-f]{32}\n`));
    expect(readdirSync(join(small.fast.home, 'root', '.incoming'))).toEqual([]);
    expect(readdirSync(join(small.fast.home, 'root'))).toEqual(['.incoming']);
  });

  it('a limit below the cap: the output past it is cut at the limit, as by the program, however fast the command ends', async () => {
    const { fast, full } = await both(['--max-inline-bytes', '100000', '--max-stored-bytes', '100', '--', 'seq', '1', '1000']);
    expect(fast.run.out).toBe(full.run.out);
    expect(fast.run.stderr.replace(/\d+ more were dropped/, 'N more were dropped')).toBe(full.run.stderr.replace(/\d+ more were dropped/, 'N more were dropped'));
    expect(fast.run.stderr).toContain('--max-stored-bytes 100');
  });

  it('uses a pipe when the volume has less room than --max-stored-bytes, and answers as the program does', async () => {
    // stdout only: the program's piped route reads stdout and stderr on two pipes, whose
    // order of arrival is not the order of writing.
    const script = 'seq 1 60000; echo "error: the build broke at step 9"; seq 60001 120000';
    const { fast, full } = await both(['--max-inline-bytes', '4096', '--max-stored-bytes', BEYOND_THE_VOLUME, '--', 'sh', '-c', `${WHERE}; ${script}`]);
    // Node's pipes to a child are socket pairs.
    expect(readFileSync(locatorIn(fast.run.out), 'utf8')).toMatch(/^socket:\[\d+\]\nsocket:\[\d+\]\n1\n/);
    const plumbing = /socket:\[\d+\]|\/\S+\.tmp-[0-9a-f]{32}/g;
    expect(neutral(fast).replace(plumbing, 'pipe')).toBe(neutral(full).replace(plumbing, 'pipe'));
    expect(events(fast)).toEqual(events(full));
    const failing = await both(['--max-inline-bytes', '4096', '--max-inline-bytes-on-failure', '1024', '--max-stored-bytes', BEYOND_THE_VOLUME, '--', 'sh', '-c', 'seq 1 400; echo "FATAL: out of cheese"; exit 3']);
    expect(failing.fast.run.code).toBe(3);
    expect(neutral(failing.fast)).toBe(neutral(failing.full));
    const small = await both(['--max-stored-bytes', BEYOND_THE_VOLUME, '--', 'sh', '-c', 'echo out; echo err >&2; exit 4']);
    expect(small.fast.run.out).toBe('out\nerr\n');
    expect(small.fast.run.code).toBe(4);
    expect(events(small.fast)).toEqual(events(small.full));
  });

  it('copies the output out of the incoming file and stores it all the same when the store cannot take the file over', async () => {
    // The command opens its own incoming directory to its group before the takeover: the
    // store then refuses the file, which is no longer private.
    const script = 'mkdir -p "$SPILLWAY_ROOT/.incoming"; chmod 750 "$SPILLWAY_ROOT/.incoming"; seq 1 20000';
    const { fast, full } = await both(['--max-inline-bytes', '2048', '--', 'sh', '-c', script]);
    expect(fast.run.code).toBe(0);
    expect(fast.run.stderr).toMatch(/\[SPILL_UNSAFE_ROOT\]: the output is copied out of \S+\.incoming\/\.tmp-[0-9a-f]{32} once sh ends\./);
    expect(readFileSync(locatorIn(fast.run.out)).equals(readFileSync(locatorIn(full.run.out)))).toBe(true);
    expect(readdirSync(join(fast.home, 'root', '.incoming'))).toEqual([]);
    expect(events(fast)).toEqual(events(full));
  });

  it('prints the whole output before the error when what takes it over cannot load, and leaves nothing behind', async () => {
    // A copy of the command whose takeover throws as it loads; the fast path is bundled
    // whole, so it needs nothing else of the package.
    const pkg = tmp();
    mkdirSync(join(pkg, 'bin'));
    mkdirSync(join(pkg, 'dist', 'commands', 'run'), { recursive: true });
    for (const name of ['spillway.js', 'code-cache.js', 'package.json']) copyFileSync(join(PACKAGE_DIR, 'bin', name), join(pkg, 'bin', name));
    copyFileSync(join(PACKAGE_DIR, 'package.json'), join(pkg, 'package.json'));
    copyFileSync(join(PACKAGE_DIR, 'dist', 'run-fast.bundle.cjs'), join(pkg, 'dist', 'run-fast.bundle.cjs'));
    writeFileSync(join(pkg, 'dist', 'commands', 'run', 'adopted-run.js'), "throw new Error('the takeover cannot load');\n");
    const home = tmp();
    mkdirSync(join(home, 'root'), { mode: 0o700 });
    const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_STATE_HOME: join(home, 'state'), SPILLWAY_ROOT: join(home, 'root'), SPILLWAY_AUTO_GC: 'off', SPILLWAY_AUTO_INDEX: 'off' };
    const run = await spillway(['run', '--max-inline-bytes', '2048', '--', 'seq', '1', '100000'], { env, entry: join(pkg, 'bin', 'spillway.js') });
    expect(run.code).not.toBe(0);
    expect(run.out).toBe(`${Array.from({ length: 100_000 }, (_, i) => String(i + 1)).join('\n')}\n`);
    expect(run.stderr).toContain('the takeover cannot load');
    expect(readdirSync(join(home, 'root', '.incoming'))).toEqual([]);
  });
});
