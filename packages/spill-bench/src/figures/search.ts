import { rm } from 'node:fs/promises';
import path from 'node:path';
import { ratioAtMost, valueAtMost, type FigureSpec } from '../figure.js';
import type { BenchContext, FigureGroup } from '../group.js';
import { assertSucceeded, childScript, runNodeWithMaxRss } from '../process.js';
import type { Profile } from '../profile.js';
import { formatBytes } from '../sizes.js';
import { privateDir } from './common.js';

const MiB = 1024 * 1024;

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
async function round(ctx: BenchContext): Promise<{ spillway: Measured; baseline: Measured; saveRss: number }> {
  const s = ctx.profile.search;
  const dir = await privateDir(ctx.scratch, 'search');
  try {
    const prepared = await runNodeWithMaxRss(childScript('search-child.js'), ['prepare', String(s.bytes), String(s.artifacts), String(s.queries), dir], ctx.scratch, { captureStdout: true });
    assertSucceeded(prepared, 'search prepare');
    ctx.log(`search: saved ${formatBytes(s.bytes)} (peak RSS of the saving process ${formatBytes(prepared.maxRssBytes)}, not counted)`);
    const baseline = await once(ctx, 'baseline', dir);
    const spillway = await once(ctx, 'spillway', dir);
    return { spillway, baseline, saveRss: prepared.maxRssBytes };
  } finally {
    await rm(path.join(dir), { recursive: true, force: true });
  }
}

async function run(ctx: BenchContext): Promise<void> {
  const spillway: Measured[] = [];
  const baseline: Measured[] = [];
  const saveRss: number[] = [];
  for (let r = 0; r < ctx.profile.search.rounds; r++) {
    const done = await round(ctx);
    spillway.push(done.spillway);
    baseline.push(done.baseline);
    saveRss.push(done.saveRss);
  }
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
