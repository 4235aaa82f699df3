import { SpillwayError } from './spillway-error.js';

/**
 * Every stable error code a spillway package can raise. Codes never change meaning and
 * are never renamed; messages may change between releases, so branch on codes only.
 */
export const SPILL_ERROR_CODES = [
  /** The backend could not store the content (any storage fault without a better code). */
  'SPILL_STORAGE_FAILED',
  /** The storage is full (ENOSPC, EDQUOT, out of inodes). */
  'SPILL_NO_SPACE',
  /** The storage root (or a directory under it) is not private and safe to use. */
  'SPILL_UNSAFE_ROOT',
  /** A locator is malformed, forged, or points outside what the backend owns. */
  'SPILL_INVALID_LOCATOR',
  /** A well-formed locator names nothing (never stored, or deleted). */
  'SPILL_NOT_FOUND',
  /** The operation was cancelled through its `AbortSignal`. */
  'SPILL_ABORTED',
  /** The content stream threw or yielded something that is not a string. */
  'SPILL_STREAM_FAILED',
  /** The content is larger than the backend will ever hold. */
  'SPILL_TOO_LARGE',
  /** The artifact existed but was evicted or removed by retention. */
  'SPILL_EXPIRED',
  /** A grep pattern is not a valid or not an acceptable regular expression. */
  'SPILL_INVALID_PATTERN',
  /** A bounded operation (such as grep) ran out of its time budget. */
  'SPILL_TIMEOUT',
  /** A request is malformed (for example, `content` that is not a string). */
  'SPILL_INVALID_INPUT',
] as const;

/** One of {@link SPILL_ERROR_CODES}. */
export type SpillErrorCode = (typeof SPILL_ERROR_CODES)[number];

/**
 * The marker that identifies a {@link SpillError}. `Symbol.for` makes it the same symbol
 * in every copy of this package, so the check survives duplicate installs, where
 * `instanceof` does not.
 */
export const SPILL_ERROR_MARKER: unique symbol = Symbol.for('spillway.SpillError') as never;

/** Options for {@link SpillError}. */
export interface SpillErrorOptions {
  /** The underlying error, usually a system error with an errno `code`. */
  readonly cause?: unknown;
}

/**
 * The one error type spillway raises for runtime faults. Branch on {@link SpillError.code}
 * (stable), never on the message (written for people, may change). Programmer mistakes,
 * such as invalid configuration, are `TypeError`s instead.
 */
export class SpillError extends SpillwayError<SpillErrorCode> {
  /** The stable code. */
  declare readonly code: SpillErrorCode;
  /** Always `true`; see {@link SPILL_ERROR_MARKER}. */
  readonly [SPILL_ERROR_MARKER] = true as const;

  /**
   * @param code - a stable code from {@link SPILL_ERROR_CODES}
   * @param message - what went wrong and what to do about it
   * @param options - the `cause`, when there is one
   */
  constructor(code: SpillErrorCode, message: string, options: SpillErrorOptions = {}) {
    super('SpillError', code, message, options);
  }
}

/**
 * Tells whether `error` is a {@link SpillError} from any copy of spillway, optionally
 * with a given code.
 *
 * @example
 * if (isSpillError(err, 'SPILL_NO_SPACE')) warnDiskFull();
 */
export function isSpillError(error: unknown, code?: SpillErrorCode): error is SpillError {
  if (typeof error !== 'object' || error === null) return false;
  if ((error as Record<symbol, unknown>)[SPILL_ERROR_MARKER] !== true) return false;
  return code === undefined || (error as { code?: unknown }).code === code;
}

/** Tells whether `code` is one of the stable {@link SPILL_ERROR_CODES}. */
export function isSpillErrorCode(code: unknown): code is SpillErrorCode {
  return typeof code === 'string' && (SPILL_ERROR_CODES as readonly string[]).includes(code);
}

/**
 * The error to reject with when `signal` has fired: a `SPILL_ABORTED` {@link SpillError}
 * whose `cause` is the signal's reason.
 */
export function abortedError(signal: AbortSignal | undefined, what = 'The operation'): SpillError {
  return new SpillError('SPILL_ABORTED', `${what} was aborted by its AbortSignal.`, {
    cause: signal?.reason,
  });
}

/**
 * True when `value` can serve as an `AbortSignal`: an object with a boolean `aborted` and
 * an `addEventListener` method. A shape test, not `instanceof`, so that a signal from
 * another realm or a polyfill passes; what options validators check before using a signal.
 */
export function isAbortSignalLike(value: unknown): value is AbortSignal {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { aborted?: unknown }).aborted === 'boolean' &&
    typeof (value as { addEventListener?: unknown }).addEventListener === 'function'
  );
}

/**
 * Throws {@link abortedError} when `signal` has already fired; does nothing otherwise.
 */
export function throwIfAborted(signal: AbortSignal | undefined, what?: string): void {
  if (signal?.aborted === true) throw abortedError(signal, what);
}

/**
 * Settles like `promise`, unless `signal` fires first: then it rejects with
 * {@link abortedError}. The abort listener is removed either way, so a long stream that
 * races every chunk does not pile up listeners, and a `promise` that loses the race never
 * becomes an unhandled rejection.
 */
export async function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined, what?: string): Promise<T> {
  if (signal === undefined) return promise;
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => {
      reject(abortedError(signal, what));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
