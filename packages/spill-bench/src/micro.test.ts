import { describe, expect, it } from 'vitest';
import { measureMicro, microPair } from './micro.js';

function busyWait(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spin: a sleep would measure the timer, not the work
  }
}

describe('measureMicro', () => {
  it('reports the latency of one operation even when operations run in batches', async () => {
    const perOp = await measureMicro({ run: () => { busyWait(0.2); } }, { timeMs: 20, batch: 5, minIterations: 4, warmupMs: 1 });
    expect(perOp).toBeGreaterThanOrEqual(0.2);
    expect(perOp).toBeLessThan(0.6);
  });

  it('runs the clean-up after timed calls', async () => {
    let runs = 0;
    let cleanups = 0;
    await measureMicro({ run: () => ++runs, afterEach: () => { cleanups++; } }, { timeMs: 5, minIterations: 4, warmupMs: 1 });
    expect(cleanups).toBeGreaterThanOrEqual(4);
    expect(runs).toBeGreaterThanOrEqual(cleanups);
  });

  it('rejects when the task throws, instead of reporting a time for nothing', async () => {
    await expect(measureMicro({ run: () => Promise.reject(new Error('broken')) }, { timeMs: 5, warmupMs: 1 })).rejects.toThrow('broken');
  });
});

describe('microPair', () => {
  it('tells a slower task from a faster one, one sample per round', async () => {
    const samples = await microPair(
      2,
      { spillway: { run: () => { busyWait(0.3); } }, baseline: { run: () => { busyWait(0.1); } } },
      { timeMs: 10, minIterations: 4, warmupMs: 1 },
    );
    expect(samples.spillway).toHaveLength(2);
    expect(samples.baseline).toHaveLength(2);
    for (let i = 0; i < 2; i++) expect(samples.spillway[i]).toBeGreaterThan(samples.baseline[i] ?? Infinity);
  });
});
