import { describe, expect, it } from 'vitest';
import { measureMicro, microPair } from './micro.js';

/**
 * A clock that only the timed operations move: each takes exactly the time it says,
 * however busy the machine is, so the figures below are exact.
 */
function fakeClock(): { readonly now: () => number; readonly spend: (ms: number) => void } {
  let t = 0;
  return {
    now: () => t,
    spend: (ms) => {
      t += ms;
    },
  };
}

describe('measureMicro', () => {
  it('reports the latency of one operation even when operations run in batches', async () => {
    const clock = fakeClock();
    const perOp = await measureMicro({ run: () => { clock.spend(0.2); } }, { timeMs: 20, batch: 5, minIterations: 4, warmupMs: 1, now: clock.now });
    expect(perOp).toBeCloseTo(0.2, 9);
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
    const clock = fakeClock();
    const samples = await microPair(
      2,
      { spillway: { run: () => { clock.spend(0.3); } }, baseline: { run: () => { clock.spend(0.1); } } },
      { timeMs: 10, minIterations: 4, warmupMs: 1, now: clock.now },
    );
    expect(samples.spillway.map((ms) => ms.toFixed(9))).toEqual(['0.300000000', '0.300000000']);
    expect(samples.baseline.map((ms) => ms.toFixed(9))).toEqual(['0.100000000', '0.100000000']);
  });
});
