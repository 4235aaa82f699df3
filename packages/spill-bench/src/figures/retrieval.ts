import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SpillLocator, SpillReader } from '@spillway/core';
import type { createSpillReader as CreateSpillReader } from '@spillway/retrieval';
import { ratioAtMost, valueAtMost, type FigureSpec } from '../figure.js';
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
/** The hostile pattern: nested quantifiers that a backtracking engine takes exponential time on with `aaa…a!`. */
const HOSTILE = '(a+)+$';
/** The C locale: byte semantics, the fastest (hardest) baseline for sed and grep. */
const C_LOCALE = { LC_ALL: 'C' };

/** Lines per page of the paging figure. */
const PAGE_LINES = 1000;
/** Everyday regular expressions (an alternation, a class with a count, an anchored one), all rare in the log. */
const EVERYDAY: readonly (readonly [name: string, pattern: string])[] = [
  ['alternation', `${NEEDLE}|qqqq-absent`],
  ['class with a count', 'zyzz[a-z]{3}-needle'],
  ['anchored', `^[0-9]{9} ${NEEDLE}`],
];

function specs(profile: Profile): FigureSpec[] {
  const r = profile.retrieval;
  const readSize = formatBytes(r.readLines * LINE_BYTES);
  const at = r.readAt.toLocaleString('en-US');
  const both = (prefix: string, who: string): FigureSpec[] => [
    {
      id: `retrieval.${prefix}page`,
      title: `${who}page through ${readSize}, ${PAGE_LINES} lines at a time`,
      baseline: "one LC_ALL=C sed -n p pass",
      unit: 'ms',
      target: ratioAtMost(5),
    },
    {
      id: `retrieval.${prefix}read`,
      title: `${who}read 100 lines at line ${at} of ${readSize}`,
      baseline: `sed -n '${r.readAt},+99p'`,
      unit: 'ms',
      target: ratioAtMost(1.5),
    },
    {
      id: `retrieval.${prefix}read-near`,
      title: `${who}a second read near line ${at}`,
      baseline: `sed -n '${r.readAt + 500},+99p'`,
      unit: 'ms',
      target: valueAtMost(10),
    },
    {
      id: `retrieval.${prefix}grep`,
      title: `${who}grep a literal over ${formatBytes(r.grepBytes)}`,
      baseline: 'GNU grep -F -n -m 100',
      unit: 'ms',
      target: ratioAtMost(1.5),
    },
    ...EVERYDAY.map(([name]) => ({
      id: `retrieval.${prefix}regex-${name.replace(/ /g, '-')}`,
      title: `${who}grep a regex (${name}) over ${formatBytes(r.grepBytes)}`,
      baseline: 'GNU grep -E -n -m 100',
      unit: 'ms' as const,
      target: ratioAtMost(3),
    })),
  ];
  return [
    ...both('', ''),
    {
      id: 'retrieval.regex',
      title: `grep ${HOSTILE} on a ${formatBytes(r.regexLineBytes)} line`,
      baseline: 'GNU grep -E on the same line',
      unit: 'ms',
      target: ratioAtMost(10),
    },
    ...both('memory-', 'memory: '),
  ];
}

/** The reader side of one backend, and a way to start it cold (no line index yet). */
interface Subject {
  readonly prefix: string;
  readonly locatorOf: (name: 'log' | 'grep') => SpillLocator;
  readonly fresh: () => SpillReader;
  readonly warm: SpillReader;
}

function firstColumnNumbers(stdout: string): number[] {
  return stdout.split('\n').filter((l) => l !== '').map((l) => Number(l.slice(0, l.indexOf(':'))));
}

/**
 * Figure 7: retrieval from a big spill, for the local backend and for the memory
 * backend (same engine, a buffer instead of pread). Baselines read the same bytes from a
 * file: `sed` for reads and paging, GNU `grep` for searches, all in the C locale. Answers
 * are compared, so a fast wrong answer does not pass.
 */
export const retrievalGroup: FigureGroup = {
  name: 'retrieval',
  specs,
  async run(ctx) {
    const { createLocalBackend } = await import('@spillway/local');
    const { createMemoryBackend } = await import('@spillway/memory');
    const r = ctx.profile.retrieval;
    const root = await privateDir(ctx.scratch, 'root');
    const backend = createLocalBackend({ root });

    let t0 = performance.now();
    const logRef = await backend.saveTextStream(streamRequest(numberedChunks(1, r.readLines, 64 * 1024), 'log.txt'));
    ctx.log(`saved a ${formatBytes(logRef.bytes)} log in ${formatDuration(performance.now() - t0)}`);
    const lines = Math.ceil(r.grepBytes / LINE_BYTES);
    const every = Math.floor(lines / NEEDLES);
    const marked = (n: number): string => (n % every === 0 && n / every <= NEEDLES ? `${NEEDLE} ` : '');
    t0 = performance.now();
    const grepRef = await backend.saveTextStream(streamRequest(numberedChunks(1, lines, 64 * 1024, marked), 'grep.txt'));
    ctx.log(`saved a ${formatBytes(grepRef.bytes)} log in ${formatDuration(performance.now() - t0)}`);

    const local: Subject = {
      prefix: '',
      locatorOf: (name) => (name === 'log' ? logRef.locator : grepRef.locator),
      fresh: () => createLocalBackend({ root }).reader,
      warm: backend.reader,
    };
    // The baselines read a file either way: the spilled file itself (in the page cache).
    await measure(ctx, local, { log: logRef.locator, grep: grepRef.locator });

    // Memory: the same two texts in a memory backend; the baselines read copies in RAM (tmpfs) when there is one.
    const { createSpillReader } = await import('@spillway/retrieval');
    const logBytes = await readFile(logRef.locator);
    const memory = createMemoryBackend({ maxBytes: logRef.bytes + grepRef.bytes + 1024 });
    t0 = performance.now();
    const memLog = await memory.saveTextStream(streamRequest(numberedChunks(1, r.readLines, 64 * 1024), 'log.txt'));
    const memGrep = await memory.saveTextStream(streamRequest(numberedChunks(1, lines, 64 * 1024, marked), 'grep.txt'));
    ctx.log(`saved both into memory in ${formatDuration(performance.now() - t0)}`);
    const ram = existsSync('/dev/shm') ? await mkdtemp(path.join('/dev/shm', 'spillway-bench-')) : await privateDir(ctx.scratch, 'ram');
    try {
      const files = { log: path.join(ram, 'log.txt'), grep: path.join(ram, 'grep.txt') };
      await copyFile(logRef.locator, files.log);
      await copyFile(grepRef.locator, files.grep);
      const mem: Subject = {
        prefix: 'memory-',
        locatorOf: (name) => (name === 'log' ? memLog.locator : memGrep.locator),
        // The memory backend's reader keeps its line index between rounds; cold figures use
        // a fresh reader of the same engine over the same bytes.
        fresh: () => coldBufferReader(createSpillReader, logBytes),
        warm: memory.reader,
      };
      await measure(ctx, mem, files);
    } finally {
      await rm(ram, { recursive: true, force: true });
      await memory.catalog.delete(memLog.locator);
      await memory.catalog.delete(memGrep.locator);
    }
    await backend.catalog.delete(logRef.locator);
    await backend.catalog.delete(grepRef.locator);

    await hostilePattern(ctx.scratch, r, ctx);
    await rm(root, { recursive: true, force: true });
  },
};

/**
 * A reader with no line index over `bytes`, built exactly as the memory backend builds
 * its own (a buffer byte source), so each round of a cold-read figure starts cold.
 */
function coldBufferReader(createSpillReader: typeof CreateSpillReader, bytes: Uint8Array): SpillReader {
  return createSpillReader({
    open: () =>
      Promise.resolve({
        size: bytes.length,
        cacheKey: 'bench',
        preferredReadBytes: 1024 * 1024,
        read: (position: number, length: number) => Promise.resolve(bytes.subarray(position, position + length)),
      }),
  });
}

async function measure(ctx: BenchContext, s: Subject, files: { readonly log: string; readonly grep: string }): Promise<void> {
  const r = ctx.profile.retrieval;
  const id = (name: string): string => `retrieval.${s.prefix}${name}`;

  // Paging: every page by nextOffset, against one sed pass printing everything.
  let pagedBytes = 0;
  const page = await runInterleaved(r.rounds, {
    spillway: async () => {
      const reader = s.fresh();
      const start = performance.now();
      let offset: number | undefined = 1;
      pagedBytes = 0;
      while (offset !== undefined) {
        const result = await reader.read(s.locatorOf('log'), { offset, limit: PAGE_LINES, maxBytes: 1024 * 1024 });
        pagedBytes += result.text.length;
        offset = result.nextOffset;
      }
      return performance.now() - start;
    },
    baseline: async () => {
      const run = await runProcess('sh', ['-c', 'sed -n p "$1" > /dev/null', 'sh', files.log], { env: C_LOCALE });
      assertSucceeded(run, 'sed');
      return run.wallMs;
    },
  });
  ctx.record(id('page'), { ...page, notes: [`paged ${formatBytes(pagedBytes)} in ${Math.ceil(r.readLines / PAGE_LINES)} reads`] });

  // A deep read from a cold reader (no line index), then one near it.
  let readOut = '';
  let sedOut = '';
  const read = await runInterleaved(r.rounds, {
    spillway: async () => {
      const reader = s.fresh();
      const start = performance.now();
      readOut = (await reader.read(s.locatorOf('log'), { offset: r.readAt, limit: 100 })).text;
      return performance.now() - start;
    },
    baseline: async () => {
      const run = await runProcess('sed', ['-n', `${r.readAt},+99p`, files.log], { captureStdout: true, env: C_LOCALE });
      assertSucceeded(run, 'sed');
      sedOut = run.stdout;
      return run.wallMs;
    },
  });
  ctx.record(id('read'), { ...read, notes: [readOut === sedOut && sedOut.split('\n').length === 101 ? 'read returned exactly what sed printed' : 'read and sed DISAGREE'] });

  await s.warm.read(s.locatorOf('log'), { offset: r.readAt, limit: 100 });
  let near = '';
  let sedNear = '';
  const nearRead = await runInterleaved(r.rounds, {
    spillway: async () => {
      const start = performance.now();
      near = (await s.warm.read(s.locatorOf('log'), { offset: r.readAt + 500, limit: 100 })).text;
      return performance.now() - start;
    },
    baseline: async () => {
      const run = await runProcess('sed', ['-n', `${r.readAt + 500},+99p`, files.log], { captureStdout: true, env: C_LOCALE });
      assertSucceeded(run, 'sed');
      sedNear = run.stdout;
      return run.wallMs;
    },
  });
  ctx.record(id('read-near'), { ...nearRead, notes: [near === sedNear ? 'read returned exactly what sed printed' : 'read and sed DISAGREE'] });

  // grep: a literal, then three everyday regexes; all rare, so both sides scan everything.
  const searches: (readonly [figure: string, pattern: string, literal: boolean, flag: string])[] = [
    ['grep', NEEDLE, true, '-F'],
    ...EVERYDAY.map(([name, pattern]) => [`regex-${name.replace(/ /g, '-')}`, pattern, false, '-E'] as const),
  ];
  for (const [figure, pattern, literal, flag] of searches) {
    let ours: number[] = [];
    let theirs: number[] = [];
    const samples = await runInterleaved(r.rounds, {
      spillway: async () => {
        const start = performance.now();
        const result = await s.warm.grep(s.locatorOf('grep'), pattern, { literal, maxMatches: 100, timeoutMs: 600_000 });
        const ms = performance.now() - start;
        ours = result.matches.map((m) => m.line);
        return ms;
      },
      baseline: async () => {
        const run = await runProcess('grep', [flag, '-n', '-m', '100', pattern, files.grep], { captureStdout: true, env: C_LOCALE });
        assertSucceeded(run, 'grep');
        theirs = firstColumnNumbers(run.stdout);
        return run.wallMs;
      },
    });
    const same = ours.length === NEEDLES && ours.join() === theirs.join();
    ctx.record(id(figure), { ...samples, notes: [same ? `both found the same ${NEEDLES} lines` : `grep results DISAGREE (spillway ${ours.length}, GNU grep ${theirs.length})`] });
  }
}

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
  // The baseline: GNU grep -E on the same line, once per spillway run (it runs a DFA).
  const line = path.join(root, 'long-line.txt');
  await writeFile(line, `first line\n${'a'.repeat(r.regexLineBytes)}!\nlast line\n`);
  const baseline: number[] = [];
  for (let i = 0; i < spillway.length; i++) {
    const gnu = await runProcess('grep', ['-c', '-E', HOSTILE, line], { env: C_LOCALE, deadlineMs: 30_000, captureStdout: true });
    baseline.push(gnu.wallMs);
  }
  notes.push('spillway is timed inside its process (its first run starts the regex worker); GNU grep includes its process start');
  ctx.log(`hostile pattern: ${spillway.map((ms) => formatDuration(ms)).join(', ')}; GNU grep ${baseline.map((ms) => formatDuration(ms)).join(', ')}`);
  ctx.record('retrieval.regex', { spillway, baseline, notes });
  await rm(root, { recursive: true, force: true });
}

