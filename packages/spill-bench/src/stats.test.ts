import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { median, pairedRatios, quantile } from './stats.js';

describe('median', () => {
  it('takes the middle value of an odd count, whatever the order', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([9, 2, 7, 4, 100])).toBe(7);
  });

  it('averages the two middle values of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('ignores one wild outlier, which a mean would not', () => {
    expect(median([10, 11, 10, 12, 5000])).toBe(11);
  });

  it('does not reorder its input', () => {
    const input = [3, 1, 2];
    median(input);
    expect(input).toEqual([3, 1, 2]);
  });

  it('refuses an empty series and non-finite values', () => {
    expect(() => median([])).toThrow(RangeError);
    expect(() => median([1, Number.NaN])).toThrow(RangeError);
  });

  it('lies between the smallest and the largest value, with as many values on each side', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e9, max: 1e9, noNaN: true }), { minLength: 1, maxLength: 50 }), (values) => {
        const m = median(values);
        expect(m).toBeGreaterThanOrEqual(Math.min(...values));
        expect(m).toBeLessThanOrEqual(Math.max(...values));
        expect(values.filter((v) => v < m).length).toBeLessThanOrEqual(values.length / 2);
        expect(values.filter((v) => v > m).length).toBeLessThanOrEqual(values.length / 2);
      }),
    );
  });
});

describe('quantile', () => {
  it('interpolates between the closest ranks', () => {
    const hundredAndOne = Array.from({ length: 101 }, (_, i) => i);
    expect(quantile(hundredAndOne, 0.99)).toBe(99);
    expect(quantile([0, 10], 0.25)).toBe(2.5);
    expect(quantile([7], 0.99)).toBe(7);
  });

  it('gives the p99 of 1000 latencies as a value near the tenth-largest', () => {
    const latencies = Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(quantile(latencies, 0.99)).toBeCloseTo(990.01, 6);
  });

  it('is the minimum at 0 and the maximum at 1, and never decreases with q', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 40 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (values, a, b) => {
          expect(quantile(values, 0)).toBe(Math.min(...values));
          expect(quantile(values, 1)).toBe(Math.max(...values));
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          expect(quantile(values, lo)).toBeLessThanOrEqual(quantile(values, hi) + 1e-9);
        },
      ),
    );
  });

  it('refuses a q outside [0, 1]', () => {
    expect(() => quantile([1, 2], 1.5)).toThrow(RangeError);
    expect(() => quantile([1, 2], -0.1)).toThrow(RangeError);
    expect(() => quantile([1, 2], Number.NaN)).toThrow(RangeError);
  });
});

describe('pairedRatios', () => {
  it('divides round by round', () => {
    expect(pairedRatios([2, 9, 5], [1, 3, 10])).toEqual([2, 3, 0.5]);
  });

  it('refuses series of different lengths, empty series and a zero baseline', () => {
    expect(() => pairedRatios([1, 2], [1])).toThrow(RangeError);
    expect(() => pairedRatios([], [])).toThrow(RangeError);
    expect(() => pairedRatios([1], [0])).toThrow(RangeError);
  });
});
