import { isAbortSignalLike, SpillError, wholeNumberProblem } from '@spillway/core';

function invalid(message: string): SpillError {
  return new SpillError('SPILL_INVALID_INPUT', message);
}

/**
 * Reads a call's options bag, which may be omitted; anything but an object is refused
 * with `SPILL_INVALID_INPUT` (a call's input is data, not configuration).
 *
 * @param what - the call, for the message (`'save'`, `'list'`)
 */
export function optionsBag(options: unknown, what: string): Readonly<Record<string, unknown>> {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) throw invalid(`${what} options must be an object when given.`);
  return options as Readonly<Record<string, unknown>>;
}

/** The `signal` of an options bag, checked to look like an `AbortSignal` (`SPILL_INVALID_INPUT` otherwise). */
export function signalOf(bag: Readonly<Record<string, unknown>>): AbortSignal | undefined {
  const signal = bag.signal;
  if (signal === undefined) return undefined;
  if (!isAbortSignalLike(signal)) throw invalid('signal must be an AbortSignal when given.');
  return signal;
}

/** {@link signalOf} of {@link optionsBag}: the checked signal of a call's options. */
export function callSignal(options: unknown, what: string): AbortSignal | undefined {
  return signalOf(optionsBag(options, what));
}

/**
 * Checks a factory's options object: omitted is `{}`; anything but an object, or a key
 * not in `known`, is a `TypeError` (configuration mistakes fail the deployment).
 *
 * @param factory - the function's name, for the message (`'createMemoryBackend'`)
 */
export function configOptions(factory: string, options: unknown, known: readonly string[]): Readonly<Record<string, unknown>> {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) throw new TypeError(`${factory}: options must be an object when given.`);
  const bag = options as Readonly<Record<string, unknown>>;
  for (const key of Object.keys(bag)) {
    if (!known.includes(key)) throw new TypeError(`${factory}: unknown option ${JSON.stringify(key)}; expected one of ${known.join(', ')}.`);
  }
  return bag;
}

/** Bounds and a default for {@link configInteger}. */
export interface IntegerRange {
  /** The smallest value allowed. */
  readonly min: number;
  /** The largest value allowed; default `Number.MAX_SAFE_INTEGER`. */
  readonly max?: number;
  /** What an omitted value becomes. */
  readonly fallback: number;
}

/**
 * A whole-number option: `undefined` is `range.fallback`; anything else must be a safe
 * integer within the range, or it is a `TypeError` that names the option and the range.
 *
 * @example const partBytes = configInteger('createS3Backend', 'partBytes', options.partBytes, { min: 5 << 20, fallback: 8 << 20 });
 */
export function configInteger(factory: string, key: string, value: unknown, range: IntegerRange): number {
  if (value === undefined) return range.fallback;
  const problem = wholeNumberProblem(value, range);
  if (problem !== undefined) throw new TypeError(`${factory}: ${key} ${problem}.`);
  return value as number;
}
