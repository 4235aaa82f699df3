import { abortedError, throwIfAborted } from '@spillway/core';
import { isRetryable, s3Error } from './errors.js';

/** How requests are retried; see `S3BackendOptions.retry`. */
export interface RetrySettings {
  /** Attempts per request, the first included. */
  readonly attempts: number;
  /** Delay before the second attempt; doubled each time, with full jitter. */
  readonly baseDelayMs: number;
  /** The longest delay between two attempts. */
  readonly maxDelayMs: number;
  /** How long one attempt may take before it is abandoned (and retried). */
  readonly attemptTimeoutMs: number;
}

/** Default {@link RetrySettings}. */
export const DEFAULT_RETRY: RetrySettings = { attempts: 5, baseDelayMs: 100, maxDelayMs: 5000, attemptTimeoutMs: 120_000 };

/** What every request of one backend shares. */
export interface RequestContext {
  readonly bucket: string;
  readonly retry: RetrySettings;
}

/** Marks an error that {@link request} must hand back untouched (the caller knows what it means). */
export class Passthrough extends Error {
  /** The SDK's error. */
  readonly original: unknown;
  constructor(original: unknown) {
    super('passthrough');
    this.original = original;
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Sends one S3 request with retries: each attempt gets a signal that fires when the
 * caller's `signal` does or when the attempt outlives `attemptTimeoutMs`; throttling, 5xx
 * answers, broken connections and timed-out attempts are retried with exponential backoff
 * and full jitter. Everything else (and the last failure) becomes a SpillError naming the
 * bucket and the operation, except errors `passthrough` selects: those reject with a
 * {@link Passthrough} holding the SDK's error.
 */
export async function request<T>(
  ctx: RequestContext,
  operation: string,
  signal: AbortSignal | undefined,
  send: (attemptSignal: AbortSignal) => Promise<T>,
  passthrough?: (error: unknown) => boolean,
): Promise<T> {
  const { attempts, baseDelayMs, maxDelayMs, attemptTimeoutMs } = ctx.retry;
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(signal, `${operation} on bucket "${ctx.bucket}"`);
    const timeout = AbortSignal.timeout(attemptTimeoutMs);
    const attemptSignal = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
    try {
      return await send(attemptSignal);
    } catch (error) {
      if (signal?.aborted === true) throw abortedError(signal, `${operation} on bucket "${ctx.bucket}"`);
      if (passthrough?.(error) === true) throw new Passthrough(error);
      if (attempt >= attempts || !(timeout.aborted || isRetryable(error))) throw s3Error(error, operation, ctx.bucket);
      const cap = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
      await sleep(Math.random() * cap, signal);
    }
  }
}
