import type { SessionId } from '@spillway/core';
import { type RetentionOptions, type SweepOptions, rejectUnknownKeys, resolveConfig } from './config.js';
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
   */
  sweep(options?: SweepOptions): Promise<RetentionReport>;
  /**
   * Deletes every artifact of a session that `keep` does not protect, whatever its age
   * (a finished conversation's artifacts can go at once). Artifacts created after the
   * purge began are left alone.
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
      return runSweep(cfg, sweepOptions);
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
