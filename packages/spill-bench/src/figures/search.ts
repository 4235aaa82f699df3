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
  readonly rssBefore: number;
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
      title: `peak RSS while indexing ${size}`,
      baseline: 'the same process before indexing',
      unit: 'bytes',
      target: valueAtMost(128 * MiB),
    },
  ];
}

async function once(ctx: BenchContext, mode: 'spillway' | 'baseline'): Promise<SearchRun & { maxRss: number }> {
  const s = ctx.profile.search;
  const dir = await privateDir(ctx.scratch, `search-${mode}`);
  try {
    const run = await runNodeWithMaxRss(childScript('search-child.js'), [mode, String(s.bytes), String(s.artifacts), String(s.queries), dir], ctx.scratch, { captureStdout: true });
    assertSucceeded(run, `search ${mode}`);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as SearchRun;
    ctx.log(`search ${mode}: indexed in ${(result.indexMs / 1000).toFixed(1)} s, p50 ${result.p50.toFixed(1)} ms, index ${formatBytes(result.indexBytes)}`);
    return { ...result, maxRss: run.maxRssBytes };
  } finally {
    await rm(path.join(dir), { recursive: true, force: true });
  }
}

async function run(ctx: BenchContext): Promise<void> {
  const spillway: (SearchRun & { maxRss: number })[] = [];
  const baseline: (SearchRun & { maxRss: number })[] = [];
  for (let round = 0; round < ctx.profile.search.rounds; round++) {
    baseline.push(await once(ctx, 'baseline'));
    spillway.push(await once(ctx, 'spillway'));
  }
  const pick = (runs: readonly SearchRun[], f: (r: SearchRun & { maxRss: number }) => number): number[] => runs.map((r) => f(r as SearchRun & { maxRss: number }));
  const note = `${String(ctx.profile.search.queries)} two-word queries per run; text is the search corpus repeated`;
  ctx.record('search.index', { spillway: pick(spillway, (r) => r.indexMs), baseline: pick(baseline, (r) => r.indexMs), notes: [note] });
  ctx.record('search.query-p50', { spillway: pick(spillway, (r) => r.p50), baseline: pick(baseline, (r) => r.p50) });
  ctx.record('search.query-p99', { spillway: pick(spillway, (r) => r.p99), baseline: pick(baseline, (r) => r.p99) });
  ctx.record('search.index-size', { spillway: pick(spillway, (r) => r.indexBytes), baseline: pick(spillway, (r) => r.textBytes) });
  ctx.record('search.index-rss', { spillway: pick(spillway, (r) => r.maxRss), baseline: pick(spillway, (r) => r.rssBefore) });
}

/** The search figures: indexing against bare FTS5, query latency, index size, memory. */
export const searchGroup: FigureGroup = { name: 'search', specs, run };
