import { isSpillError, sessionId, type SpillBackend, type SpillLocator } from '@spillway/core';
import { rm } from 'node:fs/promises';
import { ratioAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { median, quantile } from '../stats.js';
import type { Profile } from '../profile.js';
import { formatBytes } from '../sizes.js';
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
const WARMUP_SAVES = 500;

/** Saves `count` times into one session, one after another, and returns each save's latency. */
async function latencies(backend: SpillBackend, count: number, content: string, session?: string): Promise<{ ms: Float64Array; first: SpillLocator | undefined }> {
  const ms = new Float64Array(count);
  let first: SpillLocator | undefined;
  for (let i = 0; i < count; i++) {
    const request = saveRequest(content, 'scale.txt', i);
    const t0 = performance.now();
    const ref = await backend.saveText(session === undefined ? request : { ...request, owner: { sessionId: sessionId(session) } });
    ms[i] = performance.now() - t0;
    if (i === 0) first = ref.locator;
  }
  return { ms, first };
}

/**
 * Figure 6: does a save get slower as a session fills up? 100,000 saves go into one
 * session, and the latencies of the last 1,000 are compared with the first 1,000 of the
 * same run: a directory that degrades with its entry count, or an eviction structure
 * that is not O(1), shows up as a ratio well above 1. Both backends are warmed up first
 * in a separate instance, so that the first window measures a fresh session, not a cold
 * JIT (which would flatter the ratio).
 */
export const scaleGroup: FigureGroup = {
  name: 'scale',
  specs,
  async run(ctx) {
    const { createLocalBackend } = await import('@spillway/local');
    const { createMemoryBackend } = await import('@spillway/memory');
    const { saves, window, contentBytes, memoryMaxBytes, runs } = ctx.profile.scale;
    const content = textOfSize(contentBytes);
    const stats = { p50: { first: [] as number[], last: [] as number[] }, p99: { first: [] as number[], last: [] as number[] } };
    const collect = (target: typeof stats, ms: Float64Array): void => {
      const first = Array.from(ms.subarray(0, window));
      const last = Array.from(ms.subarray(ms.length - window));
      target.p50.first.push(median(first));
      target.p50.last.push(median(last));
      target.p99.first.push(quantile(first, 0.99));
      target.p99.last.push(quantile(last, 0.99));
    };

    const local = structuredClone(stats);
    const warmRoot = await privateDir(ctx.scratch, 'warm');
    await latencies(createLocalBackend({ root: warmRoot }), WARMUP_SAVES, content, 'bench-warmup');
    await latencies(createMemoryBackend({ maxBytes: memoryMaxBytes }), WARMUP_SAVES, content, 'bench-warmup');
    await rm(warmRoot, { recursive: true, force: true });
    for (let run = 0; run < runs; run++) {
      const root = await privateDir(ctx.scratch, 'root');
      const t0 = performance.now();
      const { ms } = await latencies(createLocalBackend({ root }), saves, content);
      ctx.log(`local run ${run}: ${saves} saves in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      collect(local, ms);
      await rm(root, { recursive: true, force: true });
    }
    const localNotes = [`one session directory holding ${saves} files at the end`];
    ctx.record('scale.local.p50', { spillway: local.p50.last, baseline: local.p50.first, notes: localNotes });
    ctx.record('scale.local.p99', { spillway: local.p99.last, baseline: local.p99.first, notes: localNotes });

    const memory = structuredClone(stats);
    const memoryNotes: string[] = [];
    for (let run = 0; run < runs; run++) {
      const backend = createMemoryBackend({ maxBytes: memoryMaxBytes });
      const { ms, first } = await latencies(backend, saves, content);
      collect(memory, ms);
      if (run === 0 && first !== undefined) {
        const evicted = await backend.reader.read(first).then(
          () => false,
          (error: unknown) => isSpillError(error, 'SPILL_EXPIRED'),
        );
        memoryNotes.push(evicted ? 'eviction was active: the first save answered SPILL_EXPIRED' : 'the first save was NOT evicted');
      }
    }
    ctx.record('scale.memory.p50', { spillway: memory.p50.last, baseline: memory.p50.first, notes: memoryNotes });
    ctx.record('scale.memory.p99', { spillway: memory.p99.last, baseline: memory.p99.first, notes: memoryNotes });
  },
};
