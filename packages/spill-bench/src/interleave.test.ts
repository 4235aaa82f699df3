import { describe, expect, it } from 'vitest';
import { interleavedOrder, runInterleaved, type Side } from './interleave.js';

describe('interleavedOrder', () => {
  it('alternates spillway and baseline, one pair per round (A B A B …)', () => {
    expect(interleavedOrder(3).map((r) => `${r.side[0] ?? ''}${r.round}`)).toEqual(['s0', 'b0', 's1', 'b1', 's2', 'b2']);
  });

  it('puts one unmeasured warm-up of each side first when asked', () => {
    const order = interleavedOrder(2, true);
    expect(order.slice(0, 2)).toEqual([
      { round: -1, side: 'spillway' },
      { round: -1, side: 'baseline' },
    ]);
    expect(order).toHaveLength(6);
  });

  it('refuses zero or fractional rounds', () => {
    expect(() => interleavedOrder(0)).toThrow(RangeError);
    expect(() => interleavedOrder(1.5)).toThrow(RangeError);
  });
});

describe('runInterleaved', () => {
  it('runs the sides in interleaved order and returns one sample per side and round', async () => {
    const calls: string[] = [];
    const make = (side: Side) => async (round: number) => {
      await Promise.resolve();
      calls.push(`${side}:${round}`);
      return round * 10 + (side === 'spillway' ? 1 : 2);
    };
    const samples = await runInterleaved(3, { spillway: make('spillway'), baseline: make('baseline') }, { warmup: true });
    expect(calls).toEqual([
      'spillway:-1',
      'baseline:-1',
      'spillway:0',
      'baseline:0',
      'spillway:1',
      'baseline:1',
      'spillway:2',
      'baseline:2',
    ]);
    expect(samples).toEqual({ spillway: [1, 11, 21], baseline: [2, 12, 22] });
  });

  it('stops at the first failing run and rejects with its error', async () => {
    let baselineRuns = 0;
    const run = runInterleaved(3, {
      spillway: (round) => {
        if (round === 1) throw new Error('boom');
        return 1;
      },
      baseline: () => ++baselineRuns,
    });
    await expect(run).rejects.toThrow('boom');
    expect(baselineRuns).toBe(1);
  });
});
