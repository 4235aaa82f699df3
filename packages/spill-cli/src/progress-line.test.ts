import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { barAndPercent, itemsProgressText, progressBar } from './progress-line.js';

describe('progress text', () => {
  it('names the item under way, and never counts past a total', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.nat(2000), fc.nat(1 << 30), fc.nat(2 ** 31), (items, itemsDone, bytes, bytesDone) => {
        const text = itemsProgressText('reading', 'file', { items, itemsDone, bytes, bytesDone });
        const m = /^reading (\d+) of (\d+) files? \[([#-]{24})\] +(\d+)% /.exec(text);
        expect(m).not.toBeNull();
        const [, which, total, bar, percent] = m ?? [];
        expect(Number(which)).toBeLessThanOrEqual(Number(total));
        expect(Number(which)).toBe(Math.min(items, itemsDone + 1));
        expect(Number(percent)).toBeLessThanOrEqual(100);
        expect(bar).toBe(progressBar(bytes === 0 ? 1 : bytesDone / bytes).slice(1, -1));
      }),
    );
  });

  it('keeps the bar and percentage in step', () => {
    expect(barAndPercent(0)).toBe('[------------------------]   0%');
    expect(barAndPercent(0.5)).toBe('[############------------]  50%');
    expect(barAndPercent(2)).toBe('[########################] 100%');
    expect(barAndPercent(-1)).toBe('[------------------------]   0%');
  });
});
