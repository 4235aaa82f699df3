import {
  DEFAULT_GREP_MAX_LINE_BYTES,
  DEFAULT_GREP_MAX_MATCHES,
  DEFAULT_GREP_TIMEOUT_MS,
  DEFAULT_READ_LIMIT,
  DEFAULT_READ_MAX_BYTES,
  isAbortSignalLike,
  MAX_GREP_PATTERN_LENGTH,
  SpillError,
  wholeNumberProblem,
} from '@spillway/core';

/**
 * The one place where every argument of `read` and `grep` is checked. The table (each
 * kind of bad input has exactly one code, whatever the backend):
 *
 * | input | rule | code |
 * |---|---|---|
 * | the options argument | `undefined` or a plain object (not `null`, an array, a number…) | `SPILL_INVALID_INPUT` |
 * | `offset` | a safe integer ≥ 1 | `SPILL_INVALID_INPUT` |
 * | `limit`, `maxBytes`, `offsetByte`, `maxMatches`, `maxLineBytes` | a safe integer ≥ 0 | `SPILL_INVALID_INPUT` |
 * | `timeoutMs` | a finite number > 0 (0, negative, NaN, Infinity, a string: refused) | `SPILL_INVALID_INPUT` |
 * | `ignoreCase`, `literal` | a boolean | `SPILL_INVALID_INPUT` |
 * | `signal` | an `AbortSignal` | `SPILL_INVALID_INPUT` |
 * | the pattern | a string of at most {@link MAX_PATTERN_LENGTH} UTF-16 code units, with no lone surrogate | `SPILL_INVALID_PATTERN` |
 * | the pattern (not `literal`) | valid RE2 syntax (see the dialect module) | `SPILL_INVALID_PATTERN` |
 * | the locator | a string (then the backend's `open` decides) | `SPILL_INVALID_LOCATOR` |
 *
 * An option that is `undefined` takes its default; unknown keys are ignored. Checks run
 * in this order: options, pattern, an already-fired signal (`SPILL_ABORTED`), locator.
 */

/** The longest grep pattern accepted, in UTF-16 code units (literal or not): core's contract value. */
export const MAX_PATTERN_LENGTH = MAX_GREP_PATTERN_LENGTH;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

type Bag = Readonly<Record<string, unknown>>;

function invalidInput(call: string, message: string): SpillError {
  return new SpillError('SPILL_INVALID_INPUT', `${call}: ${message}`);
}

function describe(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function bagOf(call: string, options: unknown): Bag {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw invalidInput(call, `options must be an object when given; got ${describe(options)}.`);
  }
  return options as Bag;
}

function integer(call: string, bag: Bag, key: string, min: number, fallback: number, hint: string): number {
  const value = bag[key];
  if (value === undefined) return fallback;
  const problem = wholeNumberProblem(value, { min });
  if (problem !== undefined) throw invalidInput(call, `${key} ${problem}${hint}.`);
  return value as number;
}

function boolean(call: string, bag: Bag, key: string): boolean {
  const value = bag[key];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw invalidInput(call, `${key} must be true or false; got ${describe(value)}.`);
  return value;
}

function signalOf(call: string, bag: Bag): AbortSignal | undefined {
  const signal = bag.signal;
  if (signal === undefined) return undefined;
  if (!isAbortSignalLike(signal)) throw invalidInput(call, `signal must be an AbortSignal when given; got ${describe(signal)}.`);
  return signal;
}

/** `read` options after validation, with defaults applied. */
export interface ReadSettings {
  readonly offset: number;
  readonly limit: number;
  readonly maxBytes: number;
  /** Where line `offset` starts, as the caller learnt it; checked against the bytes before use. */
  readonly offsetByte?: number;
  readonly signal: AbortSignal | undefined;
}

/** Validates `read` options (see the table above) and applies the defaults. */
export function readSettings(options: unknown): ReadSettings {
  const bag = bagOf('read', options);
  const offsetByte = bag.offsetByte === undefined ? undefined : integer('read', bag, 'offsetByte', 0, 0, ' (a byte position)');
  return {
    offset: integer('read', bag, 'offset', 1, 1, ' (lines count from 1)'),
    limit: integer('read', bag, 'limit', 0, DEFAULT_READ_LIMIT, ''),
    maxBytes: integer('read', bag, 'maxBytes', 0, DEFAULT_READ_MAX_BYTES, ''),
    ...(offsetByte === undefined ? {} : { offsetByte }),
    signal: signalOf('read', bag),
  };
}

/** Validates the options of a call that takes only a signal (`readBytes`). */
export function callSettings(call: string, options: unknown): { readonly signal: AbortSignal | undefined } {
  return { signal: signalOf(call, bagOf(call, options)) };
}

/** `grep` options after validation, with defaults applied. */
export interface GrepSettings {
  readonly maxMatches: number;
  readonly maxLineBytes: number;
  readonly ignoreCase: boolean;
  readonly literal: boolean;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
}

/** Validates `grep` options (see the table above) and applies the defaults. */
export function grepSettings(options: unknown): GrepSettings {
  const bag = bagOf('grep', options);
  const timeoutMs = bag.timeoutMs ?? DEFAULT_GREP_TIMEOUT_MS;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw invalidInput('grep', `timeoutMs must be a finite number of milliseconds greater than 0; got ${describe(timeoutMs)}.`);
  }
  return {
    maxMatches: integer('grep', bag, 'maxMatches', 0, DEFAULT_GREP_MAX_MATCHES, ''),
    maxLineBytes: integer('grep', bag, 'maxLineBytes', 0, DEFAULT_GREP_MAX_LINE_BYTES, ''),
    ignoreCase: boolean('grep', bag, 'ignoreCase'),
    literal: boolean('grep', bag, 'literal'),
    timeoutMs,
    signal: signalOf('grep', bag),
  };
}

/** Checks that a pattern is a string of acceptable length (`SPILL_INVALID_PATTERN`). */
export function assertPatternString(pattern: unknown): asserts pattern is string {
  if (typeof pattern !== 'string') {
    throw new SpillError('SPILL_INVALID_PATTERN', `A grep pattern must be a string; got ${describe(pattern)}.`);
  }
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new SpillError(
      'SPILL_INVALID_PATTERN',
      `The grep pattern is ${pattern.length} characters long; the limit is ${MAX_PATTERN_LENGTH}. Search for a shorter distinctive part.`,
    );
  }
  if (LONE_SURROGATE.test(pattern)) {
    throw new SpillError('SPILL_INVALID_PATTERN', 'The grep pattern holds a lone surrogate (half a UTF-16 pair), which no stored text can contain; remove it.');
  }
}

/** Checks that a locator is a string before a backend sees it (`SPILL_INVALID_LOCATOR`). */
export function assertLocatorString(locator: unknown): asserts locator is string {
  if (typeof locator !== 'string') {
    throw new SpillError('SPILL_INVALID_LOCATOR', `A locator must be the string a save returned; got ${describe(locator)}.`);
  }
}
