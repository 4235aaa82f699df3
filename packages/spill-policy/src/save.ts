import { SpillError } from '@spillway/core';
import type { SpillKeptReason } from './types.js';

/** A ref that passed every check. */
export interface CheckedRef {
  readonly locator: string;
  readonly bytes: number;
  readonly retrievalHint: string;
}

/** How a guarded save ended. */
export type SaveOutcome =
  | { readonly ok: true; readonly ref: CheckedRef; readonly ms: number }
  | { readonly ok: false; readonly reason: SpillKeptReason; readonly error: unknown };

/** The error a save that ran out of time is aborted with (and that events report). */
export function timeoutError(timeoutMs: number): SpillError {
  return new SpillError(
    'SPILL_TIMEOUT',
    `The backend did not finish saving within ${String(timeoutMs)} ms, so the save was aborted and the result kept. ` +
      'Check the backend, or raise saveTimeoutMs.',
  );
}

/** A save in flight. */
export interface StartedSave {
  /**
   * Waits for the save, giving up after `timeoutMs` (the save is then aborted with a
   * `SPILL_TIMEOUT` error), and reports how it ended. Never rejects.
   */
  settle(timeoutMs: number): Promise<SaveOutcome>;
  /** Aborts the save through its signal; from now on it ends with `reason`. */
  abort(error: unknown, reason: SpillKeptReason): void;
  /** How it ended, or `undefined` while it is still in flight. */
  peek(): SaveOutcome | undefined;
  /** Resolves when the backend's promise settles (either way); never rejects. */
  readonly finished: Promise<void>;
}

/**
 * Calls `call` with an `AbortSignal` and turns whatever it does (return a promise,
 * return garbage, throw synchronously, return a thenable that throws, never settle) into
 * a {@link SaveOutcome}, checking the ref against the bytes that were handed over.
 * Nothing here ever throws or rejects.
 */
export function startSave(call: (signal: AbortSignal) => unknown, expectedBytes: () => number): StartedSave {
  const controller = new AbortController();
  const started = performance.now();
  let answer: { value: unknown; ok: boolean; ms: number } | undefined;
  let forced: { reason: SpillKeptReason; error: unknown } | undefined;
  let wake: (() => void) | undefined;
  let pending: unknown;
  try {
    pending = call(controller.signal);
  } catch (error) {
    forced = { reason: 'save-threw', error };
  }
  const finished =
    forced !== undefined
      ? Promise.resolve()
      : new Promise<unknown>((resolve) => {
          // A promise's resolve function absorbs a throwing `then` getter or method.
          resolve(pending);
        }).then(
          (value: unknown) => {
            answer = { value, ok: true, ms: performance.now() - started };
            wake?.();
          },
          (error: unknown) => {
            answer = { value: error, ok: false, ms: performance.now() - started };
            wake?.();
          },
        );

  function peek(): SaveOutcome | undefined {
    if (forced !== undefined) return { ok: false, ...forced };
    if (answer === undefined) return undefined;
    if (!answer.ok) return { ok: false, reason: 'save-rejected', error: answer.value };
    const checked = checkRef(answer.value, expectedBytes());
    return checked instanceof SpillError
      ? { ok: false, reason: 'malformed-ref', error: checked }
      : { ok: true, ref: checked, ms: answer.ms };
  }

  function abort(error: unknown, reason: SpillKeptReason): void {
    if (answer !== undefined || forced !== undefined) return;
    forced = { reason, error };
    controller.abort(error);
    wake?.();
  }

  return {
    finished,
    peek,
    abort,
    async settle(timeoutMs) {
      if (peek() === undefined) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            abort(timeoutError(timeoutMs), 'timeout');
          }, timeoutMs);
          wake = () => {
            clearTimeout(timer);
            wake = undefined;
            resolve();
          };
        });
      }
      return peek() ?? { ok: false, reason: 'timeout', error: timeoutError(timeoutMs) };
    },
  };
}

/**
 * Checks that `value` is a usable `SpillRef` for content of `expectedBytes` bytes, reading
 * each property once (a getter may answer differently the second time).
 */
export function checkRef(value: unknown, expectedBytes: number): CheckedRef | SpillError {
  const bad = (what: string): SpillError =>
    new SpillError('SPILL_STORAGE_FAILED', `The backend answered the save with ${what}; the result was kept inline. Fix the backend.`, {
      cause: value,
    });
  if (typeof value !== 'object' || value === null) return bad(`${value === null ? 'null' : typeof value} instead of a SpillRef`);
  let locator: unknown;
  let bytes: unknown;
  let retrievalHint: unknown;
  try {
    ({ locator, bytes, retrievalHint } = value as Record<string, unknown>);
  } catch {
    return bad('a SpillRef whose properties throw');
  }
  if (typeof locator !== 'string' || locator.length === 0) return bad('a SpillRef without a non-empty string locator');
  if (typeof retrievalHint !== 'string') return bad('a SpillRef without a string retrievalHint');
  if (typeof bytes !== 'number' || bytes !== expectedBytes) {
    return bad(`a SpillRef of ${String(bytes)} bytes for content of ${String(expectedBytes)} bytes`);
  }
  return { locator, bytes, retrievalHint };
}
