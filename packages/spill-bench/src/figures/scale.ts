import { sessionId, type SpillBackend } from '@spillway/core';
import { rm } from 'node:fs/promises';
import { ratioAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { median, quantile } from '../stats.js';
import type { Profile } from '../profile.js';
import { formatBytes } from '../sizes.js';
import { formatDuration } from '../format.js';
import { textOfSize } from '../text.js';
import { privateDir, saveRequest } from './common.js';

function specs(profile: Profile): FigureSpec[] {
  const { saves, window, contentBytes, memoryMaxBytes } = profile.scale;
  const what = `${saves.toLocaleString('en-US')} saves of ${formatBytes(contentBytes)}`;
  const baseline = `the first ${window.toLocaleString('en-US')} saves of the same run`;
  const last = `last ${window.toLocaleString('en-US')}`;
  const memory = `memory, evicting at ${formatBytes(memoryMaxBytes)}`;
  return [
    { id: 'scale.local.p50', title: `local ${what}: median latency of the ${last}`, baseline, unit: 'ms', target: ratioAtMost(1.5) },
    { id: 'scale.local.p99', title: `local ${what}: p99 latency of the ${last}`, baseline, unit: 'ms', target: ratioAtMost(1.5) },
    { id: 'scale.memory.p50', title: `${memory} ${what}: median latency of the ${last}`, baseline, unit: 'ms', target: ratioAtMost(1.5) },
    { id: 'scale.memory.p99', title: `${memory} ${what}: p99 latency of the ${last}`, baseline, unit: 'ms', target: ratioAtMost(1.5) },
  ];
}

/** Saves made before the measured run (into another backend), so the first window is not the JIT's cold start. */
const WARMUP_SAVES = 2000;

/** Latencies of a run of saves, and how far it got. */
interface SaveRun {
  /** One latency per save made, in ms. */
  readonly ms: Float64Array;
  /** True when the time budget ran out before every save was made. */
  readonly stoppedEarly: boolean;
}

/**
 * Saves up to `count` times into one session, one after another, and returns each
 * save's latency. Stops early (and says so) when `budgetMs` runs out, so that a machine
 * slowed down by other work cannot push the whole benchmark past its time limit.
 */
async function latencies(backend: SpillBackend, count: number, content: string, budgetMs: number, session?: string): Promise<SaveRun> {
  const ms = new Float64Array(count);
  const deadline = performance.now() + budgetMs;
  const owner = session === undefined ? undefined : { sessionId: sessionId(session) };
  for (let i = 0; i < count; i++) {
    const request = saveRequest(content, 'scale.txt', i);
    const t0 = performance.now();
    await backend.saveText(owner === undefined ? request : { ...request, owner });
    const t1 = performance.now();
    ms[i] = t1 - t0;
    if (t1 > deadline) return { ms: ms.subarray(0, i + 1), stoppedEarly: true };
  }
  return { ms, stoppedEarly: false };
}

/**
 * Figure 6: does a save get slower as a session fills up? 100,000 saves go into one
 * session, and the latencies of the last 1,000 are compared with the first 1,000 of the
 * same run: a directory that degrades with its entry count, or an eviction structure
 * that is not O(1), shows up as a ratio well above 1. Both backends are warmed up first
 * in a separate instance, so that the first window measures a fresh session, not a cold
 * JIT (which would flatter the ratio). A run that exceeds its time budget stops early;
 * the note then says how many saves were made.
 */
export const scaleGroup: FigureGroup = {
  name: 'scale',
  specs,
  async run(ctx) {
    const { createLocalBackend } = await import('@spillway/local');
    const { createMemoryBackend } = await import('@spillway/memory');
    const { saves, window, contentBytes, memoryMaxBytes, runs, budgetMs } = ctx.profile.scale;
    const content = textOfSize(contentBytes);
    type Windows = { first: number[]; last: number[] };
    const fresh = (): { p50: Windows; p99: Windows } => ({ p50: { first: [], last: [] }, p99: { first: [], last: [] } });
    const collect = (target: { p50: Windows; p99: Windows }, ms: Float64Array): void => {
      if (ms.length < 2 * window) throw new Error(`only ${ms.length} saves were made within the time budget; two windows of ${window} are needed`);
      const first = Array.from(ms.subarray(0, window));
      const last = Array.from(ms.subarray(ms.length - window));
      target.p50.first.push(median(first));
      target.p50.last.push(median(last));
      target.p99.first.push(quantile(first, 0.99));
      target.p99.last.push(quantile(last, 0.99));
    };
    // Medians of ten windows spread along the run: shows a trend (or its absence) that
    // the first and last windows alone cannot.
    const along = (ms: Float64Array): string => {
      const blocks = Math.floor(ms.length / window);
      const picks = [...new Set(Array.from({ length: 10 }, (_, k) => Math.round((k * (blocks - 1)) / 9)))];
      return picks.map((b) => formatDuration(median(Array.from(ms.subarray(b * window, (b + 1) * window))))).join(', ');
    };
    const describe = (run: SaveRun, seconds: number): string =>
      run.stoppedEarly
        ? `STOPPED EARLY: ${run.ms.length.toLocaleString('en-US')} of ${saves.toLocaleString('en-US')} saves in the ${(budgetMs / 1000).toFixed(0)} s budget`
        : `all ${saves.toLocaleString('en-US')} saves in ${seconds.toFixed(1)} s`;

    const warmRoot = await privateDir(ctx.scratch, 'warm');
    await latencies(createLocalBackend({ root: warmRoot }), WARMUP_SAVES, content, budgetMs, 'bench-warmup');
    await latencies(createMemoryBackend({ maxBytes: memoryMaxBytes }), WARMUP_SAVES, content, budgetMs, 'bench-warmup');
    await rm(warmRoot, { recursive: true, force: true });

    const local = fresh();
    const localNotes: string[] = [];
    for (let run = 0; run < runs; run++) {
      const root = await privateDir(ctx.scratch, 'root');
      const t0 = performance.now();
      const result = await latencies(createLocalBackend({ root }), saves, content, budgetMs);
      const note = `${describe(result, (performance.now() - t0) / 1000)}, one session directory`;
      ctx.log(`local run ${run}: ${note}`);
      localNotes.push(note, `medians of ${window}-save windows along the run: ${along(result.ms)}`);
      collect(local, result.ms);
      await rm(root, { recursive: true, force: true });
    }
    ctx.record('scale.local.p50', { spillway: local.p50.last, baseline: local.p50.first, notes: localNotes });
    ctx.record('scale.local.p99', { spillway: local.p99.last, baseline: local.p99.first });

    const memory = fresh();
    const memoryNotes: string[] = [];
    for (let run = 0; run < runs; run++) {
      const backend = createMemoryBackend({ maxBytes: memoryMaxBytes });
      const t0 = performance.now();
      const result = await latencies(backend, saves, content, budgetMs);
      const { evictions, artifacts } = backend.stats();
      memoryNotes.push(
        `${describe(result, (performance.now() - t0) / 1000)}; ${evictions.toLocaleString('en-US')} evictions, ${artifacts} artifacts held at the end`,
        `medians of ${window}-save windows along the run: ${along(result.ms)}`,
      );
      collect(memory, result.ms);
    }
    ctx.record('scale.memory.p50', { spillway: memory.p50.last, baseline: memory.p50.first, notes: memoryNotes });
    ctx.record('scale.memory.p99', { spillway: memory.p99.last, baseline: memory.p99.first });
  },
};
