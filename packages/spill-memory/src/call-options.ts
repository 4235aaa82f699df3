import {
  DEFAULT_GREP_MAX_LINE_BYTES,
  DEFAULT_GREP_MAX_MATCHES,
  DEFAULT_GREP_TIMEOUT_MS,
  DEFAULT_READ_LIMIT,
  DEFAULT_READ_MAX_BYTES,
  SpillError,
} from '@spillway/core';

function invalid(message: string): SpillError {
  return new SpillError('SPILL_INVALID_INPUT', message);
}

function describe(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  return value === null ? 'null' : typeof value;
}

/** Reads an options bag that may be omitted; anything but an object is refused. */
export function optionsBag(options: unknown, what: string): Readonly<Record<string, unknown>> {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) throw invalid(`${what} options must be an object when given.`);
  return options as Readonly<Record<string, unknown>>;
}

/** The `signal` of an options bag, checked to look like an `AbortSignal`. */
export function signalOf(bag: Readonly<Record<string, unknown>>): AbortSignal | undefined {
  const signal = bag.signal;
  if (signal === undefined) return undefined;
  if (
    typeof signal !== 'object' ||
    signal === null ||
    typeof (signal as { aborted?: unknown }).aborted !== 'boolean' ||
    typeof (signal as { addEventListener?: unknown }).addEventListener !== 'function'
  ) {
    throw invalid('signal must be an AbortSignal when given.');
  }
  return signal as AbortSignal;
}

function integerOption(bag: Readonly<Record<string, unknown>>, key: string, min: number, fallback: number): number {
  const value = bag[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw invalid(`${key} must be an integer of at least ${min}; got ${describe(value)}.`);
  }
  return value;
}

function booleanOption(bag: Readonly<Record<string, unknown>>, key: string): boolean {
  const value = bag[key];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw invalid(`${key} must be a boolean; got ${describe(value)}.`);
  return value;
}

/** Validated `read` options with defaults applied. */
export interface ReadParams {
  readonly offset: number;
  readonly limit: number;
  readonly maxBytes: number;
  readonly signal: AbortSignal | undefined;
}

/** Validates `read` options (`SPILL_INVALID_INPUT` on a bad one) and fills in defaults. */
export function readParams(options: unknown): ReadParams {
  const bag = optionsBag(options, 'read');
  return {
    offset: integerOption(bag, 'offset', 1, 1),
    limit: integerOption(bag, 'limit', 0, DEFAULT_READ_LIMIT),
    maxBytes: integerOption(bag, 'maxBytes', 0, DEFAULT_READ_MAX_BYTES),
    signal: signalOf(bag),
  };
}

/** Validated `grep` options with defaults applied. */
export interface GrepOptionParams {
  readonly maxMatches: number;
  readonly maxLineBytes: number;
  readonly ignoreCase: boolean;
  readonly literal: boolean;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
}

/** Validates `grep` options (`SPILL_INVALID_INPUT` on a bad one) and fills in defaults. */
export function grepParams(options: unknown): GrepOptionParams {
  const bag = optionsBag(options, 'grep');
  const timeoutMs = bag.timeoutMs ?? DEFAULT_GREP_TIMEOUT_MS;
  if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
    throw invalid(`timeoutMs must be a number of milliseconds, at least 0; got ${describe(timeoutMs)}.`);
  }
  return {
    maxMatches: integerOption(bag, 'maxMatches', 0, DEFAULT_GREP_MAX_MATCHES),
    maxLineBytes: integerOption(bag, 'maxLineBytes', 0, DEFAULT_GREP_MAX_LINE_BYTES),
    ignoreCase: booleanOption(bag, 'ignoreCase'),
    literal: booleanOption(bag, 'literal'),
    timeoutMs,
    signal: signalOf(bag),
  };
}
