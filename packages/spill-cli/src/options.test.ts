import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from 'commander';
import { isSpillError } from '@spillway/core';
import { CliError } from './cli-error.js';
import {
  DEFAULT_SESSION_ID,
  locatorArgument,
  nonNegativeInt,
  parseShare,
  positiveInt,
  resolveRoot,
  resolveSession,
} from './options.js';

describe('share options (audit --max-needed)', () => {
  it('reads a bare number as a share in [0, 1] and a number with % as a percentage in [0, 100]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), (k) => {
        // Every share to four places, written bare and as a percentage, means the same.
        expect(parseShare(String(k / 10_000))).toBe(k / 10_000);
        expect(parseShare(`${String(k / 100)}%`)).toBeCloseTo(k / 10_000, 12);
      }),
    );
    expect(parseShare('1')).toBe(1);
    expect(parseShare('0')).toBe(0);
    expect(parseShare('.5')).toBe(0.5);
    expect(parseShare('100%')).toBe(1);
  });

  it('refuses a bare number over 1 and a percentage over 100, never reading either as another scale', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (k) => {
        // Over 1 by k thousandths, and over 100 % by k thousandths of a percent.
        expect(parseShare(String(1 + k / 1000))).toBeUndefined();
        expect(parseShare(`${String(100 + k / 1000)}%`)).toBeUndefined();
      }),
    );
  });

  it.each(['', '%', ' 0.1', '0.1 ', '-0.1', '-1%', '1e-1', '0x1', 'abc', '10 %', '10%%', 'NaN', 'Infinity', '1.5', '2', '101', '101%'])('refuses %j', (value) => {
    expect(parseShare(value)).toBeUndefined();
  });

  it('gives every string it accepts as a share in [0, 1]', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        const share = parseShare(value);
        if (share !== undefined) expect(share >= 0 && share <= 1).toBe(true);
      }),
    );
  });
});

describe('integer options', () => {
  it('accepts every safe non-negative integer written in plain decimal', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => {
        expect(nonNegativeInt(String(n))).toBe(n);
      }),
    );
  });

  it('accepts positive integers and refuses zero for positiveInt', () => {
    expect(positiveInt('1')).toBe(1);
    expect(() => positiveInt('0')).toThrow(InvalidArgumentError);
  });

  it.each(['', ' ', ' 1', '1 ', '-1', '1.5', '1e3', '0x10', '01', 'abc', '12abc', 'Infinity', 'NaN', '9007199254740993'])(
    'refuses %j with an InvalidArgumentError that names the value',
    (value) => {
      expect(() => nonNegativeInt(value)).toThrow(InvalidArgumentError);
      expect(() => nonNegativeInt(value)).toThrow(`'${value}'`);
    },
  );

  it('refuses any string that is not canonical decimal', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/^(?:0|[1-9][0-9]*)$/.test(s)),
        (s) => {
          expect(() => nonNegativeInt(s)).toThrow(InvalidArgumentError);
        },
      ),
    );
  });
});

describe('resolveRoot', () => {
  const home = '/home/u';

  it('prefers --root, resolved against the working directory', () => {
    expect(resolveRoot('spill', { SPILLWAY_ROOT: '/env' }, '/cwd', home)).toEqual({ path: '/cwd/spill', source: 'option' });
  });

  it('falls back to SPILLWAY_ROOT', () => {
    expect(resolveRoot(undefined, { SPILLWAY_ROOT: '/env/root' }, '/cwd', home)).toEqual({ path: '/env/root', source: 'env' });
  });

  it('ignores an empty SPILLWAY_ROOT and uses XDG_STATE_HOME', () => {
    expect(resolveRoot(undefined, { SPILLWAY_ROOT: '', XDG_STATE_HOME: '/state' }, '/cwd', home)).toEqual({
      path: '/state/spillway',
      source: 'default',
    });
  });

  it('ignores a relative XDG_STATE_HOME, as the XDG spec requires', () => {
    expect(resolveRoot(undefined, { XDG_STATE_HOME: 'rel/state' }, '/cwd', home).path).toBe('/home/u/.local/state/spillway');
  });

  it('defaults to ~/.local/state/spillway', () => {
    expect(resolveRoot(undefined, {}, '/cwd', home)).toEqual({ path: '/home/u/.local/state/spillway', source: 'default' });
  });

  it('refuses an empty --root as a usage error', () => {
    expect(() => resolveRoot('', {}, '/cwd', home)).toThrow(CliError);
  });
});

describe('resolveSession', () => {
  it('prefers --session, then SPILLWAY_SESSION, then the fixed shell id', () => {
    expect(resolveSession('a', { SPILLWAY_SESSION: 'b' })).toBe('a');
    expect(resolveSession(undefined, { SPILLWAY_SESSION: 'b' })).toBe('b');
    expect(resolveSession(undefined, { SPILLWAY_SESSION: '' })).toBe(DEFAULT_SESSION_ID);
    expect(resolveSession(undefined, {})).toBe('shell');
  });

  it('refuses an empty --session as a usage error', () => {
    expect(() => resolveSession('', {})).toThrow(expect.objectContaining({ code: 'USAGE', exitCode: 2 }));
  });
});

describe('locatorArgument', () => {
  it('passes any non-empty text through unchanged, leaving judgement to the backend', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (s) => {
        expect(locatorArgument(s)).toBe(s);
      }),
    );
  });

  it('answers SPILL_INVALID_LOCATOR for an empty locator', () => {
    let caught: unknown;
    try {
      locatorArgument('');
    } catch (error) {
      caught = error;
    }
    expect(isSpillError(caught, 'SPILL_INVALID_LOCATOR')).toBe(true);
  });
});
