import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countIn, lineRuns } from './line-ranges.js';

const RUNS = 500;
const INT32_MAX = 2 ** 31 - 1;

/** A number as a file view shows it: mostly small, some at the edge of 32 bits (and past it, as a line's digits may be). */
const numberArb = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 300 }) },
  { weight: 1, arbitrary: fc.integer({ min: INT32_MAX - 40, max: INT32_MAX + 40 }) },
);
/** Line numbers as views and previews hold them: runs (a head, a tail, a whole view) and single lines (excerpts), in turn or not, repeated or not. */
const numbersArb = fc
  .tuple(
    fc.array(
      fc.oneof(
        numberArb.map((n) => [n]),
        fc.tuple(numberArb, fc.integer({ min: 1, max: 120 })).map(([first, length]) => Array.from({ length }, (_, i) => first + i)),
      ),
      { maxLength: 12 },
    ),
    fc.boolean(),
  )
  .map(([parts, sorted]) => {
    const numbers = parts.flat();
    return sorted ? numbers.sort((a, b) => a - b) : numbers;
  });
/** A range a later call reads: within the numbers, around them, or far past them. */
const boundArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -5, max: 320 }) },
  { weight: 1, arbitrary: fc.integer({ min: INT32_MAX - 50, max: INT32_MAX + 50 }) },
  { weight: 1, arbitrary: fc.constant(Number.MAX_SAFE_INTEGER) },
);
const rangeArb = fc.tuple(boundArb, boundArb).map(([a, b]) => ({ first: Math.min(a, b), last: Math.max(a, b) }));

describe('lineRuns and countIn', () => {
  it('count the numbers in a range as the numbers one by one do, in as many runs as the numbers make', () => {
    fc.assert(
      fc.property(numbersArb, fc.array(rangeArb, { minLength: 1, maxLength: 8 }), (numbers, ranges) => {
        // Each number taken as 32 bits, as an Int32Array stores it.
        const set = new Set(numbers.map((n) => n | 0));
        const runs = lineRuns(numbers);
        for (const { first, last } of ranges) {
          let expected = 0;
          for (const n of set) if (n >= first && n <= last) expected++;
          expect(countIn(runs, first, last), `${String(first)}-${String(last)}`).toBe(expected);
        }
        expect(runs.starts.length).toBe([...set].filter((n) => !set.has(n - 1)).length);
        expect(runs.before.at(-1)).toBe(set.size);
      }),
      { numRuns: RUNS },
    );
  });

  it('keep a whole view as one run, and a preview as one run per part it shows', () => {
    const range = (first: number, last: number): number[] => Array.from({ length: last - first + 1 }, (_, i) => first + i);
    expect(lineRuns(range(1, 5000)).starts).toEqual(Int32Array.of(1));
    const preview = lineRuns([...range(1, 40), 900, 1204, 1205, ...range(4970, 5000)]);
    expect([...preview.starts]).toEqual([1, 900, 1204, 4970]);
    expect(countIn(preview, 30, 1204)).toBe(13);
  });
});
