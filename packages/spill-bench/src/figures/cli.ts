import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ratioAtMost, valueAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { runInterleaved } from '../interleave.js';
import { assertSucceeded, childScript, MAXRSS_FILE_ENV, runNodeWithMaxRss, runProcess } from '../process.js';
import { writeCorpusLog } from '../preview-corpus.js';
import type { Profile } from '../profile.js';
import { findRepoRoot } from '../report.js';
import { formatBytes } from '../sizes.js';
import { median } from '../stats.js';
import { formatDuration } from '../format.js';
import { emptyDir, privateDir, treeSize } from './common.js';

/** A 100-byte line (with its newline) repeated by `yes` and cut by `head`: a fast generator. */
const LINE = 'spillway bench output line: the quick brown fox jumps over the lazy dog 0123456789 abcdefghijklmnop';

/** The shell command that prints exactly `bytes` bytes of text. */
export function generatorCommand(bytes: number): string {
  return `yes '${LINE}' | head -c ${bytes}`;
}

/** The built CLI: `SPILLWAY_BENCH_CLI`, or `packages/spill-cli/dist/bin.js` in this repository. */
export function cliBin(): string {
  const fromEnv = process.env.SPILLWAY_BENCH_CLI;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const root = findRepoRoot();
  if (root === undefined) throw new Error('Cannot find the repository root to locate the spillway CLI; set SPILLWAY_BENCH_CLI.');
  return path.join(root, 'packages', 'spill-cli', 'dist', 'bin.js');
}

/** The command as a package manager installs it (`bin/spillway.js`, beside the built CLI's `dist/`): what a user or a host starts. */
export function commandBin(): string {
  return path.join(path.dirname(cliBin()), '..', 'bin', 'spillway.js');
}

/**
 * Writes every dirty page to disk (untimed), so that a timed run never pays for the
 * writeback of the gigabyte the run before it wrote: without it, whichever side ran second
 * inherited the first side's writeback.
 */
function settleDisk(): void {
  spawnSync('sync', { stdio: 'ignore' });
}

function specs(profile: Profile): FigureSpec[] {
  const size = formatBytes(profile.cli.bytes);
  return [
    {
      id: 'cli.wall',
      title: `spillway run -- <${size} generator>: wall time`,
      baseline: '<generator> > file 2>&1 (sh)',
      unit: 'ms',
      target: ratioAtMost(1.15),
    },
    {
      id: 'cli.rss',
      title: `spillway run -- <${size} generator>: peak RSS`,
      baseline: 'node piping the generator to a file',
      unit: 'bytes',
      target: valueAtMost(64 * 1024 * 1024),
    },
    {
      id: 'cli.log.wall',
      title: `spillway run -- cat <${formatBytes(profile.cli.logBytes)} of log text>: wall time`,
      baseline: 'cat <the same file> > file (sh)',
      unit: 'ms',
      target: ratioAtMost(1.3),
    },
    {
      id: 'cli.unusable.wall',
      title: `spillway run -- <${size} generator>, store unusable: wall time`,
      baseline: "sh -c '<generator>' | cat > /dev/null",
      unit: 'ms',
      target: ratioAtMost(1.3),
    },
    {
      id: 'cli.unusable.rss',
      title: `spillway run -- <${size} generator>, store unusable: peak RSS`,
      baseline: 'node piping the generator to a file',
      unit: 'bytes',
      target: valueAtMost(64 * 1024 * 1024),
    },
  ];
}

/**
 * Figure 5: the whole `spillway run` process around a command that prints a lot. Wall
 * time is compared with the shell redirecting the same generator to a file (the
 * physical floor: one pipe, one file). Peak RSS is the CLI process's own (`VmHWM`
 * via a preloaded exit hook), compared with a minimal Node program that pipes the same
 * generator into a file.
 */
export const cliGroup: FigureGroup = {
  name: 'cli',
  specs,
  async run(ctx) {
    // The bin a user runs (CommonJS, small outputs answered from a bundle), not the compiled
    // ES module entry, which loads more before it starts and so holds more memory.
    const bin = commandBin();
    if (!existsSync(cliBin()) || !existsSync(bin)) throw new Error(`The CLI is not built (${cliBin()}); run pnpm build first.`);
    const { bytes, rounds } = ctx.profile.cli;
    const generator = generatorCommand(bytes);
    const root = await privateDir(ctx.scratch, 'root');
    // The runs' usage events (and any fallback root) stay in the scratch directory, out of
    // the state directory of whoever runs the bench.
    const state = { XDG_STATE_HOME: await privateDir(ctx.scratch, 'state') };
    const out = path.join(ctx.scratch, 'baseline.txt');
    const problems = new Set<string>();
    const check = (what: string, stored: number): void => {
      if (stored !== bytes) problems.add(`${what} stored ${stored} bytes, expected ${bytes}`);
    };

    type Sample = { readonly wallMs: number; readonly rss: number; readonly pipeMs?: number };
    const spillway = async (round: number): Promise<Sample> => {
      const run = await runNodeWithMaxRss(bin, ['run', '--root', root, '--session', 'bench', '--', 'sh', '-c', generator], ctx.scratch, { env: state });
      assertSucceeded(run, 'spillway run');
      check('spillway run', (await treeSize(root)).bytes);
      await emptyDir(root);
      settleDisk();
      ctx.log(`round ${round} spillway run: ${(run.wallMs / 1000).toFixed(2)} s, peak RSS ${formatBytes(run.maxRssBytes)}`);
      return { wallMs: run.wallMs, rss: run.maxRssBytes };
    };
    const baseline = async (round: number): Promise<Sample> => {
      const shell = await runProcess('sh', ['-c', `${generator} > '${out}' 2>&1`]);
      assertSucceeded(shell, 'the shell baseline');
      check('the shell baseline', (await stat(out)).size);
      await rm(out);
      settleDisk();
      const piped = await runNodeWithMaxRss(childScript('pipe-child.js'), [out, 'sh', '-c', generator], ctx.scratch);
      assertSucceeded(piped, 'the node pipe baseline');
      check('the node pipe baseline', (await stat(out)).size);
      await rm(out);
      settleDisk();
      ctx.log(`round ${round} baseline: sh ${(shell.wallMs / 1000).toFixed(2)} s, node pipe peak RSS ${formatBytes(piped.maxRssBytes)}`);
      return { wallMs: shell.wallMs, rss: piped.maxRssBytes, pipeMs: piped.wallMs };
    };

    // The first run after the groups before it (which write gigabytes) was the slowest of
    // either side: an unmeasured warm-up of each side absorbs it.
    const samples = await runInterleaved(rounds, { spillway, baseline }, { warmup: true });

    // The same with a store that cannot be used (a root open to other users, refused with
    // SPILL_UNSAFE_ROOT): the output goes to stdout as it arrives. Both sides print into a
    // pipe read by `cat > /dev/null`.
    const unsafeRoot = path.join(ctx.scratch, 'unsafe-root');
    await mkdir(unsafeRoot);
    await chmod(unsafeRoot, 0o777);
    // The fallback roots (the user's default root, then one under TMPDIR) would take the
    // output instead, and a gigabyte a round would land in the user's own state directory:
    // both are put under a regular file, where no directory can be made.
    const noDir = path.join(ctx.scratch, 'not-a-directory');
    await writeFile(noDir, '');
    const noFallback = { XDG_STATE_HOME: noDir, TMPDIR: noDir };
    const hook = new URL('../children/maxrss-hook.js', import.meta.url).pathname;
    const unusable = async (round: number): Promise<Sample> => {
      const rssFile = path.join(ctx.scratch, `unusable-rss-${String(round)}`);
      const run = await runProcess('sh', ['-c', '"$NODE" --import "$HOOK" "$BIN" run --root "$ROOT" -- sh -c "$GEN" | cat > /dev/null'], {
        env: { NODE: process.execPath, HOOK: hook, BIN: bin, ROOT: unsafeRoot, GEN: generator, [MAXRSS_FILE_ENV]: rssFile, ...noFallback },
      });
      assertSucceeded(run, 'spillway run with an unusable root');
      if (!/SPILL_UNSAFE_ROOT/.test(run.stderr)) problems.add('spillway run with an unusable root did not warn about it');
      if (!/printed in full/.test(run.stderr)) problems.add('spillway run with an unusable root did not print the output in full (a fallback root took it)');
      const rss = Number(await readFile(rssFile, 'utf8').catch(() => 'NaN'));
      await rm(rssFile, { force: true });
      ctx.log(`round ${round} spillway run (store unusable): ${(run.wallMs / 1000).toFixed(2)} s, peak RSS ${formatBytes(rss)}`);
      return { wallMs: run.wallMs, rss };
    };
    const piped = async (round: number): Promise<Sample> => {
      const shell = await runProcess('sh', ['-c', 'sh -c "$GEN" | cat > /dev/null'], { env: { GEN: generator } });
      assertSucceeded(shell, 'the shell pipe baseline');
      ctx.log(`round ${round} baseline: sh into cat ${(shell.wallMs / 1000).toFixed(2)} s`);
      return { wallMs: shell.wallMs, rss: median(samples.baseline.map((s) => s.rss)) };
    };
    const unusableSamples = await runInterleaved(rounds, { spillway: unusable, baseline: piped });
    ctx.record('cli.unusable.wall', {
      spillway: unusableSamples.spillway.map((s) => s.wallMs),
      baseline: unusableSamples.baseline.map((s) => s.wallMs),
      notes: ['the root is refused (SPILL_UNSAFE_ROOT), so the output is printed in full as it arrives'],
    });
    ctx.record('cli.unusable.rss', {
      spillway: unusableSamples.spillway.map((s) => s.rss),
      baseline: unusableSamples.baseline.map((s) => s.rss),
      notes: ['peak RSS (VmHWM) of the spillway process alone; the baseline is the bare Node pipe of the figure above'],
    });
    // Real log text, whose every line the preview's scan classifies (the generator's one
    // repeated line is the scan's easiest case).
    const log = path.join(ctx.scratch, 'log.txt');
    await writeCorpusLog(log, ctx.profile.cli.logBytes);
    const logBytes = (await stat(log)).size;
    const logOut = path.join(ctx.scratch, 'log-out.txt');
    const logSamples = await runInterleaved(
      rounds,
      {
        spillway: async () => {
          const run = await runProcess(process.execPath, [bin, 'run', '--root', root, '--session', 'bench', '--', 'cat', log], { env: state });
          assertSucceeded(run, 'spillway run of the log');
          if (run.stdout.length > 64 * 1024) problems.add('spillway run of the log printed more than its preview');
          const stored = (await treeSize(root)).bytes;
          if (stored !== logBytes) problems.add(`spillway run of the log stored ${String(stored)} bytes, expected ${String(logBytes)}`);
          await emptyDir(root);
          settleDisk();
          return run.wallMs;
        },
        baseline: async () => {
          const shell = await runProcess('sh', ['-c', 'cat "$LOG" > "$OUT" 2>&1'], { env: { LOG: log, OUT: logOut } });
          assertSucceeded(shell, 'the log baseline');
          await rm(logOut);
          settleDisk();
          return shell.wallMs;
        },
      },
      { warmup: true },
    );
    await rm(log);
    ctx.record('cli.log.wall', { spillway: logSamples.spillway, baseline: logSamples.baseline, notes: [`${formatBytes(logBytes)} of the preview corpus's outputs, repeated`] });
    const notes = problems.size === 0 ? [`every run stored exactly ${bytes} bytes`] : [...problems];
    const pipeMs = median(samples.baseline.map((s) => s.pipeMs ?? 0));
    const shellMs = median(samples.baseline.map((s) => s.wallMs));
    notes.push(`the bare Node pipe (the Node floor) took ${formatDuration(pipeMs)}, ${(pipeMs / shellMs).toFixed(2)}× the shell`);
    ctx.record('cli.wall', { spillway: samples.spillway.map((s) => s.wallMs), baseline: samples.baseline.map((s) => s.wallMs), notes });
    ctx.record('cli.rss', {
      spillway: samples.spillway.map((s) => s.rss),
      baseline: samples.baseline.map((s) => s.rss),
      notes: ['peak RSS (VmHWM) of the spillway process alone; the baseline is the bare Node pipe'],
    });
  },
};
