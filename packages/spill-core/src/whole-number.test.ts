import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkOptionNames } from './option-names.js';
import { wholeNumberProblem } from './whole-number.js';

describe('wholeNumberProblem', () => {
  it('accepts exactly the safe integers within the range', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -1000, max: 1000 }), fc.anything(), (min, span, value) => {
        const max = min + Math.abs(span);
        const ok = typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
        expect(wholeNumberProblem(value, { min, max }) === undefined).toBe(ok);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50 }), fc.oneof(fc.integer(), fc.double()), (min, value) => {
        const ok = Number.isSafeInteger(value) && value >= min;
        expect(wholeNumberProblem(value, { min }) === undefined).toBe(ok);
      }),
    );
  });

  it('says the bound, the unit and what was given', () => {
    expect(wholeNumberProblem(0, { min: 1 })).toBe('must be a whole number, at least 1; got 0');
    expect(wholeNumberProblem(-3, { min: 0, unit: 'bytes' })).toBe('must be a whole number of bytes, at least 0; got -3');
    expect(wholeNumberProblem(11, { min: 1, max: 10 })).toBe('must be a whole number, from 1 to 10; got 11');
    expect(wholeNumberProblem(1.5, { min: 1 })).toBe('must be a whole number, at least 1; got 1.5');
    expect(wholeNumberProblem(Number.NaN, { min: 1 })).toBe('must be a whole number, at least 1; got NaN');
    expect(wholeNumberProblem(2 ** 53, { min: 1 })).toBe(`must be a whole number, at least 1; got ${String(2 ** 53)}`);
    expect(wholeNumberProblem('8', { min: 1 })).toBe('must be a whole number, at least 1; got the string "8"');
    expect(wholeNumberProblem('x'.repeat(100), { min: 1 })).toMatch(/got the string "x{40}…"$/);
    expect(wholeNumberProblem(null, { min: 1 })).toMatch(/got null$/);
    expect(wholeNumberProblem(undefined, { min: 1 })).toMatch(/got nothing$/);
    expect(wholeNumberProblem([], { min: 1 })).toMatch(/got an array$/);
    expect(wholeNumberProblem({}, { min: 1 })).toMatch(/got an object$/);
    expect(wholeNumberProblem(1n, { min: 1 })).toMatch(/got a bigint$/);
  });
});

describe('checkOptionNames', () => {
  it('refuses a key the caller does not accept, listing those it does', () => {
    expect(() => { checkOptionNames('f', { a: 1, b: undefined }, ['a', 'b']); }).not.toThrow();
    expect(() => { checkOptionNames('f', { a: 1, c: undefined }, ['a', 'b']); }).toThrow(new TypeError('f does not know the option "c"; the options are a, b.'));
  });
});
