import { isSpillError } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { callSignal, configInteger, configOptions } from './options.js';

function codeOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return isSpillError(error) ? error.code : error instanceof TypeError ? 'TypeError' : error;
  }
  return undefined;
}

describe('call options', () => {
  it('accept an omitted bag and a real signal, and refuse anything else with SPILL_INVALID_INPUT', () => {
    const signal = new AbortController().signal;
    expect(callSignal(undefined, 'save')).toBeUndefined();
    expect(callSignal({ signal }, 'save')).toBe(signal);
    expect(codeOf(() => callSignal('fast', 'save'))).toBe('SPILL_INVALID_INPUT');
    expect(codeOf(() => callSignal(null, 'save'))).toBe('SPILL_INVALID_INPUT');
    expect(codeOf(() => callSignal({ signal: { aborted: 'no' } }, 'save'))).toBe('SPILL_INVALID_INPUT');
  });
});

describe('configuration', () => {
  it('refuses a non-object and a misspelt key with a TypeError naming the factory', () => {
    expect(configOptions('createX', undefined, ['a'])).toEqual({});
    expect(() => configOptions('createX', 3, ['a'])).toThrow(/createX: options must be an object/);
    expect(() => configOptions('createX', { b: 1 }, ['a'])).toThrow(/createX: unknown option "b"; expected one of a/);
  });

  it('takes whole numbers within the range, the fallback when omitted, and nothing else', () => {
    const range = { min: 1, max: 10, fallback: 5 };
    expect(configInteger('createX', 'n', undefined, range)).toBe(5);
    expect(configInteger('createX', 'n', 10, range)).toBe(10);
    for (const bad of [0, 11, 1.5, Number.NaN, Infinity, '3', null]) {
      expect(codeOf(() => configInteger('createX', 'n', bad, range))).toBe('TypeError');
    }
    expect(() => configInteger('createX', 'n', -1, { min: 0, fallback: 0 })).toThrow('createX: n must be a whole number, at least 0; got -1.');
  });
});
