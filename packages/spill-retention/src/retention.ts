import type { SessionId } from '@spillway/core';
import { type RetentionConfig, type RetentionOptions, type SweepOptions, rejectUnknownKeys, resolveConfig } from './config.js';
import { runPurge } from './purge.js';
import type { RetentionReport } from './report.js';
import { runSweep } from './sweep.js';

/** What {@link createRetention} returns. */
export interface Retention {
  /**
   * Applies the limits once: deletes artifacts older than `maxAgeMs`, then the oldest of
   * each session over `maxSessionBytes`, then the oldest overall while over
   * `maxTotalBytes`; never a kept or grace-protected one. Removes stale temp files through
   * the backend. A failed deletion is reported and the sweep goes on; the promise only
   * rejects for a programmer mistake (a clock that returns garbage).
   *
   * Sweeps over one catalog run in turn: a sweep called while another is running on the
   * same catalog (through this retention or another one in the process) waits for it to
   * end, then starts with its own clock reading, so two sweeps never race for the same
   * artifacts and nothing saved after a sweep began is deleted by it. A call that finds
   * an equivalent sweep still waiting (same retention and session filter, and neither call
   * has a `signal` or `onProgress`) shares that sweep's report rather than queuing
   * another, so sweeps started on a timer never pile up. A part of the store
   * the catalog skips (an unusable session directory) is named in `skipped` and does not
   * stop the sweep.
   */
  sweep(options?: SweepOptions): Promise<RetentionReport>;
  /**
   * Deletes every artifact of a session that `keep` does not protect, whatever its age
   * (a finished conversation's artifacts can go at once). Artifacts created after the
   * purge began are left alone. Purges are not queued behind sweeps: they run at once,
   * alongside anything else, and an artifact that another sweep or purge deleted first is
   * counted as `vanished`, never as deleted twice.
   *
   * @throws TypeError when `sessionId` is not a non-empty string.
   */
  purgeSession(sessionId: SessionId, options?: Omit<SweepOptions, 'sessionId'>): Promise<RetentionReport>;
}

const SWEEP_KEYS: readonly string[] = ['sessionId', 'signal', 'onProgress'] satisfies readonly (keyof SweepOptions)[];
const PURGE_KEYS: readonly string[] = ['signal', 'onProgress'] satisfies readonly (keyof SweepOptions)[];

function checkSweepOptions(where: string, options: unknown, known: readonly string[]): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) throw new TypeError('Sweep options must be an object.');
  rejectUnknownKeys(where, options, known);
  const { sessionId, onProgress, signal } = options as Record<string, unknown>;
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId === '')) {
    throw new TypeError('sessionId must be a non-empty string.');
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') throw new TypeError('onProgress must be a function.');
  if (signal !== undefined && !(typeof signal === 'object' && signal !== null && 'aborted' in signal)) {
    throw new TypeError('signal must be an AbortSignal.');
  }
}

/** One catalog's sweeps: the tail of its queue, and the sweep waiting to start, if any. */
interface SweepQueue {
  tail: Promise<void>;
  waiting: { readonly key: string; readonly config: object; readonly ticket: object; readonly report: Promise<RetentionReport> } | undefined;
}

/**
 * Each catalog's sweeps, so that sweeps over one catalog (from one retention or several)
 * run one at a time, in call order. Weak: a catalog that is dropped takes its queue with
 * it.
 */
const sweepQueues = new WeakMap<object, SweepQueue>();

/** Resolves when `previous` settles, or at once when `signal` fires (the sweep then aborts itself). */
function turnOrAbort(previous: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return previous;
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    void previous.then(done);
  });
}

/**
 * Runs a sweep once every sweep queued before it on `catalog` has ended. A call that
 * finds an equivalent sweep still waiting for its turn (same retention, same session
 * filter, neither with a signal or a progress callback) shares that sweep's report instead
 * of queuing another: however often sweeps are started, at most one runs and one waits per
 * kind. A sweep aborted while it waits starts at once, and ends at once with an aborted
 * report without deleting anything.
 */
function inTurn(cfg: RetentionConfig, options: SweepOptions): Promise<RetentionReport> {
  const { catalog } = cfg;
  let queue = sweepQueues.get(catalog);
  if (queue === undefined) sweepQueues.set(catalog, (queue = { tail: Promise.resolve(), waiting: undefined }));
  const shareable = options.signal === undefined && options.onProgress === undefined;
  const key = options.sessionId === undefined ? '*' : `=${options.sessionId}`;
  const waiting = queue.waiting;
  if (shareable && waiting !== undefined && waiting.key === key && waiting.config === cfg) return waiting.report;

  const previous = queue.tail;
  let finish = (): void => undefined;
  const mine = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const tail = previous.then(() => mine);
  queue.tail = tail;
  const q = queue;
  const ticket = {};
  const report = (async (): Promise<RetentionReport> => {
    try {
      await turnOrAbort(previous, options.signal);
      if (q.waiting?.ticket === ticket) q.waiting = undefined;
      return await runSweep(cfg, options);
    } finally {
      finish();
      if (q.waiting?.ticket === ticket) q.waiting = undefined;
      if (q.tail === tail && q.waiting === undefined) sweepQueues.delete(catalog);
    }
  })();
  if (shareable) q.waiting = { key, config: cfg, ticket, report };
  return report;
}

/**
 * Creates retention over a backend's catalog.
 *
 * @example
 * const retention = createRetention({
 *   catalog: backend.catalog,
 *   maxAgeMs: 7 * 24 * 3600_000,
 *   maxTotalBytes: 2e9,
 *   keep: (entry) => referenced.has(entry.locator),
 * });
 * const report = await retention.sweep();
 *
 * @throws TypeError for an invalid option (a negative limit, a missing catalog, an unknown
 * key such as `maxAge`…). `sweep` and `purgeSession` throw a TypeError for an unknown
 * option key too.
 */
export function createRetention(options: RetentionOptions): Retention {
  const cfg = resolveConfig(options);
  return {
    sweep: (sweepOptions = {}) => {
      checkSweepOptions('sweep', sweepOptions, SWEEP_KEYS);
      return inTurn(cfg, sweepOptions);
    },
    purgeSession: (sessionId, purgeOptions = {}) => {
      if (typeof sessionId !== 'string' || (sessionId as string) === '') {
        throw new TypeError('purgeSession needs a non-empty session id.');
      }
      checkSweepOptions('purgeSession', purgeOptions, PURGE_KEYS);
      return runPurge(cfg, sessionId, purgeOptions);
    },
  };
}
