import { rm } from 'node:fs/promises';
import { ratioAtMost, type FigureSpec } from '../figure.js';
import type { BenchContext, FigureGroup } from '../group.js';
import { runInterleaved } from '../interleave.js';
import { assertSucceeded, childScript, runProcess } from '../process.js';
import type { Profile } from '../profile.js';
import { formatBytes } from '../sizes.js';
import { formatDuration } from '../format.js';
import { LINE_BYTES, numberedChunks } from '../text.js';
import { privateDir, streamRequest } from './common.js';

/** The literal the grep figure looks for; it appears in {@link NEEDLES} lines only. */
const NEEDLE = 'zyzzyva-needle';
/** How many lines carry the needle: fewer than `-m 100`, so both sides scan everything. */
const NEEDLES = 50;
/** The hostile pattern: nested quantifiers that backtrack exponentially on `aaa…a!`. */
const HOSTILE = '(a+)+$';
/** The C locale: byte semantics, the fastest (hardest) baseline for sed and grep. */
const C_LOCALE = { LC_ALL: 'C' };

function specs(profile: Profile): FigureSpec[] {
  const r = profile.retrieval;
  const readSize = formatBytes(r.readLines * LINE_BYTES);
  return [
    {
      id: 'retrieval.read',
      title: `read 100 lines at line ${r.readAt.toLocaleString('en-US')} of ${readSize}`,
      baseline: `sed -n '${r.readAt},+99p'`,
      unit: 'ms',
      target: ratioAtMost(1.5),
    },
    {
      id: 'retrieval.grep',
      title: `grep a literal over ${formatBytes(r.grepBytes)}`,
      baseline: 'GNU grep -n -m 100',
      unit: 'ms',
      target: ratioAtMost(3),
    },
    {
      id: 'retrieval.regex',
      title: `grep ${HOSTILE} on a ${formatBytes(r.regexLineBytes)} line`,
      baseline: 'its time budget (timeoutMs)',
      unit: 'ms',
      target: ratioAtMost(1.1),
    },
  ];
}

/**
 * Figure 7: retrieval from a big spill. `read` of a line range deep into the file is
 * compared with `sed`, which must scan to the line; `grep` of a literal that occurs
 * rarely (so both sides scan the whole file) with GNU `grep -n -m 100`. Outputs are
 * compared, so a fast wrong answer does not pass. The hostile pattern runs in a child
 * process with a hard deadline and must come back within its time budget.
 */
export const retrievalGroup: FigureGroup = {
  name: 'retrieval',
  specs,
  async run(ctx) {
    const { createLocalBackend } = await import('@spillway/local');
    const r = ctx.profile.retrieval;
    const root = await privateDir(ctx.scratch, 'root');
    const backend = createLocalBackend({ root });
    const reader = backend.reader;

    // read: a numbered log, saved through the backend (so any index built at save time exists).
    let t0 = performance.now();
    const logRef = await backend.saveTextStream(streamRequest(numberedChunks(1, r.readLines, 64 * 1024), 'log.txt'));
    ctx.log(`saved a ${formatBytes(logRef.bytes)} log in ${formatDuration(performance.now() - t0)}`);
    const file = logRef.locator;
    let sedOut = '';
    let readOut = '';
    const read = await runInterleaved(r.rounds, {
      spillway: async () => {
        const s = performance.now();
        readOut = (await reader.read(logRef.locator, { offset: r.readAt, limit: 100 })).text;
        return performance.now() - s;
      },
      baseline: async () => {
        const run = await runProcess('sed', ['-n', `${r.readAt},+99p`, file], { captureStdout: true, env: C_LOCALE });
        assertSucceeded(run, 'sed');
        sedOut = run.stdout;
        return run.wallMs;
      },
    });
    const readSame = readOut === sedOut && sedOut.split('\n').length === 101;
    ctx.record('retrieval.read', { ...read, notes: [readSame ? 'read returned exactly what sed printed' : 'read and sed DISAGREE'] });
    await backend.catalog.delete(logRef.locator);

    // grep: a log with the needle in a few evenly spread lines.
    const lines = Math.ceil(r.grepBytes / LINE_BYTES);
    const every = Math.floor(lines / NEEDLES);
    const marked = (n: number): string => (n % every === 0 && n / every <= NEEDLES ? `${NEEDLE} ` : '');
    t0 = performance.now();
    const grepRef = await backend.saveTextStream(streamRequest(numberedChunks(1, lines, 64 * 1024, marked), 'grep.txt'));
    ctx.log(`saved a ${formatBytes(grepRef.bytes)} log in ${formatDuration(performance.now() - t0)}`);
    let ours: number[] = [];
    let theirs: number[] = [];
    const grep = await runInterleaved(r.rounds, {
      spillway: async () => {
        const s = performance.now();
        const result = await reader.grep(grepRef.locator, NEEDLE, { literal: true, maxMatches: 100, timeoutMs: 600_000 });
        const ms = performance.now() - s;
        ours = result.matches.map((m) => m.line);
        return ms;
      },
      baseline: async () => {
        const run = await runProcess('grep', ['-n', '-m', '100', NEEDLE, grepRef.locator], { captureStdout: true, env: C_LOCALE });
        assertSucceeded(run, 'grep');
        theirs = run.stdout.split('\n').filter((l) => l !== '').map((l) => Number(l.slice(0, l.indexOf(':'))));
        return run.wallMs;
      },
    });
    const grepSame = ours.length === NEEDLES && ours.join() === theirs.join();
    ctx.record('retrieval.grep', {
      ...grep,
      notes: [grepSame ? `both found the same ${NEEDLES} lines` : `grep results DISAGREE (spillway ${ours.length}, GNU grep ${theirs.length})`],
    });
    await backend.catalog.delete(grepRef.locator);

    // hostile pattern, in a child with a hard deadline.
    await hostilePattern(ctx.scratch, r, ctx);
    await rm(root, { recursive: true, force: true });
  },
};

async function hostilePattern(
  scratch: string,
  r: Profile['retrieval'],
  ctx: BenchContext,
): Promise<void> {
  const root = await privateDir(scratch, 'regex-root');
  const deadlineMs = r.regexRounds * r.regexTimeoutMs * 3 + 10_000;
  const run = await runProcess(
    process.execPath,
    [childScript('grep-child.js'), root, String(r.regexLineBytes), String(r.regexTimeoutMs), String(r.regexRounds), HOSTILE],
    { captureStdout: true, deadlineMs },
  );
  let spillway: number[];
  let notes: string[];
  if (run.timedOut) {
    spillway = [run.wallMs];
    notes = [`grep did not return: the child was killed after ${formatDuration(deadlineMs)}`];
  } else {
    assertSucceeded(run, 'The grep child');
    const runs = JSON.parse(run.stdout) as { ms: number; outcome: string }[];
    spillway = runs.map((x) => x.ms);
    notes = [`outcomes: ${[...new Set(runs.map((x) => x.outcome))].join(', ')}`];
  }
  // For scale: GNU grep runs a DFA and never backtracks on this pattern.
  const gnu = await runProcess('sh', ['-c', `printf 'first\\n%0${r.regexLineBytes}d!\\n' 0 | tr 0 a | grep -c -E '${HOSTILE}'`], {
    env: C_LOCALE,
    deadlineMs: 30_000,
  });
  notes.push(`GNU grep -E on the same line: ${formatDuration(gnu.wallMs)}`);
  ctx.log(`hostile pattern: ${spillway.map((ms) => formatDuration(ms)).join(', ')}`);
  ctx.record('retrieval.regex', { spillway, baseline: spillway.map(() => r.regexTimeoutMs), notes });
  await rm(root, { recursive: true, force: true });
}

