import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { ratioAtMost, valueAtMost, type FigureSpec } from '../figure.js';
import type { BenchContext, FigureGroup } from '../group.js';
import { runInterleaved, type InterleavedSamples } from '../interleave.js';
import { assertSucceeded, childScript, runNodeWithMaxRss, runProcess } from '../process.js';
import { commandBin } from './cli.js';
import type { Profile } from '../profile.js';
import { formatBytes } from '../sizes.js';
import { privateDir } from './common.js';

const MiB = 1024 * 1024;

/** Processes per side of the whole-process figure. */
const PROCESS_ROUNDS = 12;

interface SearchRun {
  readonly indexMs: number;
  readonly indexBytes: number;
  readonly textBytes: number;
  /** The indexing process's peak before it indexed, and once it had. */
  readonly rssBefore: number;
  readonly rssIndexed: number;
  readonly p50: number;
  readonly p99: number;
}

function specs(profile: Profile): FigureSpec[] {
  const size = formatBytes(profile.search.bytes);
  return [
    {
      id: 'search.index',
      title: `index ${size} of tool output (${String(profile.search.artifacts)} spills) through the reader`,
      baseline: 'bare FTS5 insert of the same 24-line chunks',
      unit: 'ms',
      target: ratioAtMost(1.5),
    },
    {
      id: 'search.query-p50',
      title: `spill_search p50 over a ${size} session`,
      baseline: 'bare FTS5 MATCH … ORDER BY bm25 LIMIT 8',
      unit: 'ms',
      target: valueAtMost(20),
    },
    {
      id: 'search.query-p99',
      title: `spill_search p99 over a ${size} session`,
      baseline: 'bare FTS5 MATCH … ORDER BY bm25 LIMIT 8',
      unit: 'ms',
      target: valueAtMost(100),
    },
    {
      id: 'search.index-size',
      title: `index size for ${size} of text`,
      baseline: 'the text itself',
      unit: 'bytes',
      target: ratioAtMost(1),
    },
    {
      id: 'search.process',
      title: `a whole \`spillway search\` process over the indexed ${size} session: wall time, median`,
      baseline: 'spillway --version',
      unit: 'ms',
      target: ratioAtMost(1.5),
    },
    {
      id: 'search.index-rss',
      title: `peak RSS of the process that indexes ${size} and then searches it`,
      baseline: 'the same process before indexing',
      unit: 'bytes',
      target: valueAtMost(128 * MiB),
    },
  ];
}

type Measured = SearchRun & { readonly maxRss: number };

/** One side's run on a prepared root: indexing and queries in a process of their own. */
async function once(ctx: BenchContext, mode: 'spillway' | 'baseline', dir: string): Promise<Measured> {
  const s = ctx.profile.search;
  const run = await runNodeWithMaxRss(childScript('search-child.js'), [mode, String(s.bytes), String(s.artifacts), String(s.queries), dir], ctx.scratch, { captureStdout: true });
  assertSucceeded(run, `search ${mode}`);
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as SearchRun;
  ctx.log(
    `search ${mode}: indexed in ${(result.indexMs / 1000).toFixed(1)} s, p50 ${result.p50.toFixed(1)} ms, index ${formatBytes(result.indexBytes)}, ` +
      `RSS ${formatBytes(result.rssBefore)} before indexing, ${formatBytes(result.rssIndexed)} after, ${formatBytes(run.maxRssBytes)} at exit`,
  );
  return { ...result, maxRss: run.maxRssBytes };
}

/** A round: one process saves the text, then each side indexes and searches it in its own. */
/**
 * What a person or a model feels per query: a whole `spillway search` process on the session
 * the spillway side indexed (found where the CLI looks, beside the root), against
 * `spillway --version`, interleaved. Each process asks one of the bench's two-word queries.
 */
async function searchProcesses(dir: string): Promise<InterleavedSamples<number>> {
  const queries = JSON.parse(await readFile(path.join(dir, 'queries.json'), 'utf8')) as string[];
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_STATE_HOME: path.join(dir, 'state'), SPILLWAY_ROOT: path.join(dir, 'root'), SPILLWAY_SESSION: 'bench-search', SPILLWAY_AUTO_GC: 'off', SPILLWAY_AUTO_INDEX: 'off', SPILLWAY_USAGE: 'off' };
  const script = commandBin();
  let next = 0;
  return runInterleaved(
    PROCESS_ROUNDS,
    {
      spillway: async () => {
        const query = queries[next++ % queries.length] ?? 'error';
        const r = await runProcess(process.execPath, [script, 'search', query], { env });
        assertSucceeded(r, `spillway search ${query}`);
        return r.wallMs;
      },
      baseline: async () => {
        const r = await runProcess(process.execPath, [script, '--version'], { env });
        assertSucceeded(r, 'spillway --version');
        return r.wallMs;
      },
    },
    { warmup: true },
  );
}

async function round(ctx: BenchContext): Promise<{ spillway: Measured; baseline: Measured; saveRss: number; process: InterleavedSamples<number> }> {
  const s = ctx.profile.search;
  const dir = await privateDir(ctx.scratch, 'search');
  try {
    const prepared = await runNodeWithMaxRss(childScript('search-child.js'), ['prepare', String(s.bytes), String(s.artifacts), String(s.queries), dir], ctx.scratch, { captureStdout: true });
    assertSucceeded(prepared, 'search prepare');
    ctx.log(`search: saved ${formatBytes(s.bytes)} (peak RSS of the saving process ${formatBytes(prepared.maxRssBytes)}, not counted)`);
    const baseline = await once(ctx, 'baseline', dir);
    const spillway = await once(ctx, 'spillway', dir);
    const perQuery = await searchProcesses(dir);
    return { spillway, baseline, saveRss: prepared.maxRssBytes, process: perQuery };
  } finally {
    await rm(path.join(dir), { recursive: true, force: true });
  }
}

async function run(ctx: BenchContext): Promise<void> {
  const spillway: Measured[] = [];
  const baseline: Measured[] = [];
  const saveRss: number[] = [];
  const processes: InterleavedSamples<number> = { spillway: [], baseline: [] };
  for (let r = 0; r < ctx.profile.search.rounds; r++) {
    const done = await round(ctx);
    spillway.push(done.spillway);
    baseline.push(done.baseline);
    saveRss.push(done.saveRss);
    processes.spillway.push(...done.process.spillway);
    processes.baseline.push(...done.process.baseline);
  }
  ctx.record('search.process', { spillway: processes.spillway, baseline: processes.baseline, notes: [`${String(processes.spillway.length)} interleaved processes per side, each a different two-word query`] });
  const pick = (runs: readonly Measured[], f: (r: Measured) => number): number[] => runs.map(f);
  const note = `${String(ctx.profile.search.queries)} two-word queries per run; text is the search corpus repeated`;
  const mib = (values: readonly number[]): string => values.map((v) => formatBytes(v)).join(', ');
  ctx.record('search.index', { spillway: pick(spillway, (r) => r.indexMs), baseline: pick(baseline, (r) => r.indexMs), notes: [note] });
  ctx.record('search.query-p50', { spillway: pick(spillway, (r) => r.p50), baseline: pick(baseline, (r) => r.p50) });
  ctx.record('search.query-p99', { spillway: pick(spillway, (r) => r.p99), baseline: pick(baseline, (r) => r.p99) });
  ctx.record('search.index-size', { spillway: pick(spillway, (r) => r.indexBytes), baseline: pick(spillway, (r) => r.textBytes) });
  ctx.record('search.index-rss', {
    spillway: pick(spillway, (r) => r.maxRss),
    baseline: pick(spillway, (r) => r.rssBefore),
    notes: [
      `the text is saved by a process of its own first (its peak: ${mib(saveRss)}); the figure is the lifetime peak of the process that then indexes and searches, Node's own memory included`,
      `that process's peak right after indexing: ${mib(pick(spillway, (r) => r.rssIndexed))}; the bare FTS5 side's lifetime peak: ${mib(pick(baseline, (r) => r.maxRss))}`,
    ],
  });
}

/** The search figures: indexing against bare FTS5, query latency, index size, memory. */
export const searchGroup: FigureGroup = { name: 'search', specs, run };
