import { type SpillEntry, type ListOptions, abortedError, isSpillError, throwIfAborted } from '@spillway/core';
import { CLOCK_SLACK_MS, type RetentionConfig, type SweepOptions, type SweepProgress } from './config.js';
import { BoundedPool } from './delete-pool.js';
import { type EntryKey, createdAtMs, hashLocator, isAtOrBefore, sizeOf } from './order.js';
import {
  type DeleteReason,
  type KeepReason,
  type LimitStatus,
  type RetentionReport,
  type SessionLimitStatus,
  ReportBuilder,
} from './report.js';
import { Selector } from './selector.js';

/**
 * Knobs that trade passes over the catalog for memory. The defaults keep a sweep of
 * 100,000+ artifacts to a few megabytes; tests shrink them to force many passes.
 */
export interface SweepTuning {
  /** Buckets in the total-bytes histogram. */
  readonly globalBuckets: number;
  /** Most buckets in one session's histogram. */
  readonly sessionBuckets: number;
  /** Fewest buckets in one session's histogram, however many sessions are over quota. */
  readonly minBuckets: number;
  /** Buckets shared by all session histograms of one pass. */
  readonly bucketBudget: number;
  /** Entries that all selectors together may collect and sort in one pass. */
  readonly collectBudget: number;
  /** Passes after which unresolved cutoffs give up (deleting less, never more). */
  readonly maxPasses: number;
  /** Times one selector may start over when the catalog changes under it. */
  readonly maxRestarts: number;
  /** Entries between two progress callbacks. */
  readonly progressEvery: number;
}

/** The tuning {@link createRetention} uses. */
export const DEFAULT_TUNING: SweepTuning = {
  globalBuckets: 4096,
  sessionBuckets: 1024,
  minBuckets: 16,
  bucketBudget: 1 << 18,
  collectBudget: 50_000,
  maxPasses: 64,
  maxRestarts: 3,
  progressEvery: 1000,
};

interface Deferred {
  readonly entry: SpillEntry;
  readonly bytes: number;
  readonly key: EntryKey;
  readonly protectedBy: KeepReason | null;
  readonly selector: Selector;
}

interface SessionStatus {
  bytes: number;
  failures: number;
}

/**
 * Where `key` stands for a quota: `before` its cutoff (the quota wants it gone), `in` the
 * range still being narrowed (held back until the pass ends), or `none`. A resolved
 * selector only compares; an unresolved one also records the entry.
 */
function place(sel: Selector, key: EntryKey, bytes: number, deletable: boolean): 'before' | 'in' | 'none' {
  if (!sel.resolved) return sel.observe(key, bytes, deletable);
  return isAtOrBefore(key, sel.cutoff) ? 'before' : 'none';
}

/**
 * One sweep: passes over the catalog until every quota knows its cutoff, then a last pass
 * that deletes. Age is decided entry by entry; quotas need totals first (the catalog may
 * list in any order), so a quota sweep lists the catalog a few times and keeps only
 * counters, histograms and small sorted batches in memory.
 */
export async function runSweep(
  cfg: RetentionConfig,
  options: SweepOptions,
  tuning: SweepTuning = DEFAULT_TUNING,
): Promise<RetentionReport> {
  const { signal, onProgress, sessionId } = options;
  const began = performance.now();
  const start = cfg.now();
  const graceFrom = start - Math.max(cfg.graceMs, CLOCK_SLACK_MS);
  const ageBefore = cfg.maxAgeMs === undefined ? -Infinity : start - cfg.maxAgeMs;
  const sessionLimit = cfg.maxSessionBytes;
  const sessions = sessionLimit === undefined ? undefined : new Map<string, Selector>();
  const global = cfg.maxTotalBytes === undefined ? undefined : new Selector(cfg.maxTotalBytes);
  const hasQuota = sessions !== undefined || global !== undefined;
  const report = new ReportBuilder(cfg.maxReportedEntries);
  const pool = new BoundedPool(cfg.deleteConcurrency);
  const listOptions: ListOptions = {
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(signal === undefined ? {} : { signal }),
    onProblem: (problem) => { report.addSkipped(problem); },
  };
  const callOptions = signal === undefined ? {} : { signal };
  const statuses = new Map<string, SessionStatus>();
  let sessionsResolved = sessions === undefined;
  let firstPassTotal: number | undefined;

  const progress = (p: SweepProgress): void => {
    if (onProgress === undefined) return;
    try {
      onProgress(p);
    } catch {
      // A progress display must never break a sweep.
    }
  };

  const protection = async (entry: SpillEntry, t: number | undefined, final: boolean): Promise<KeepReason | null> => {
    // Unknown age counts as new: never delete what can't be dated.
    if (t === undefined || t >= graceFrom) return 'grace';
    if (cfg.keep === undefined) return null;
    try {
      return (await cfg.keep(entry)) ? 'keep' : null;
    } catch (error) {
      if (final) report.addError('keep', error, entry.locator);
      return 'keep';
    }
  };

  const isFinal = (pass: number): boolean => {
    if (!hasQuota) return true;
    if (pass === 1) return false;
    if (!sessionsResolved) {
      if (global !== undefined || sessions === undefined) return false;
      for (const s of sessions.values()) if (!s.resolved && s.mode.kind !== 'collect') return false;
      return true;
    }
    return global === undefined || global.resolved || global.mode.kind === 'collect';
  };

  const startDelete = async (entry: SpillEntry, bytes: number, reason: DeleteReason): Promise<void> => {
    const status = statuses.get(entry.session);
    if (cfg.dryRun) {
      report.addDeleted(entry, bytes, reason);
      if (status !== undefined) status.bytes -= bytes;
      return;
    }
    await pool.run(async () => {
      try {
        const removed = await cfg.catalog.delete(entry.locator, callOptions);
        if (removed) report.addDeleted(entry, bytes, reason);
        else report.vanished.add(bytes);
        if (status !== undefined) status.bytes -= bytes;
      } catch (error) {
        report.addError('delete', error, entry.locator);
        report.failedDeletes.add(bytes);
        if (status !== undefined) status.failures += 1;
      }
    });
  };

  let pass = 0;
  for (;;) {
    pass += 1;
    report.passes = pass;
    const final = isFinal(pass);
    const scanPass = pass === 1;
    const globalActive = global !== undefined && sessionsResolved;
    const watching: Selector[] = [];
    if (sessions !== undefined && !sessionsResolved) {
      for (const s of sessions.values()) if (!s.resolved) watching.push(s);
    }
    if (global !== undefined && globalActive && !global.resolved) watching.push(global);
    for (const s of watching) s.beginPass();
    const deferred: Deferred[] = [];
    const phase: SweepProgress['phase'] = final ? 'delete' : scanPass ? 'scan' : 'select';
    let seen = 0;

    const visit = async (entry: SpillEntry): Promise<void> => {
      const bytes = sizeOf(entry);
      const t = createdAtMs(entry);
      const key: EntryKey = { t: t ?? Infinity, h: hashLocator(entry.locator), loc: entry.locator };
      let protectedBy: KeepReason | null | undefined;
      const getProtection = async (): Promise<KeepReason | null> => {
        protectedBy ??= await protection(entry, t, final);
        return protectedBy;
      };
      if (final && sessions?.has(entry.session) === true) {
        let status = statuses.get(entry.session);
        if (status === undefined) statuses.set(entry.session, (status = { bytes: 0, failures: 0 }));
        status.bytes += bytes;
      }
      let reason: DeleteReason | undefined;
      let wanted = false; // some limit wants it gone, whether or not it is protected
      let defer: Selector | undefined;

      if (key.t < ageBefore) {
        wanted = true;
        if ((await getProtection()) === null) reason = 'age';
      }
      if (reason === undefined && hasQuota) {
        const deletable = (await getProtection()) === null;
        if (sessions !== undefined && sessionLimit !== undefined) {
          let sel = sessions.get(entry.session);
          if (sel === undefined && scanPass) {
            sel = new Selector(sessionLimit);
            sel.beginPass();
            sessions.set(entry.session, sel);
          }
          if (sel !== undefined) {
            const where = place(sel, key, bytes, deletable);
            if (where === 'in') defer = sel;
            else if (where === 'before') {
              wanted = true;
              if (deletable) reason = 'session-quota';
            }
          }
        }
        if (reason === undefined && defer === undefined && global !== undefined && globalActive) {
          const where = place(global, key, bytes, deletable);
          if (where === 'in') defer = global;
          else if (where === 'before') {
            wanted = true;
            if (deletable) reason = 'total-quota';
          }
        }
      }
      if (!final) return;
      report.scanned.add(bytes);
      if (reason !== undefined) {
        await startDelete(entry, bytes, reason);
      } else if (defer !== undefined) {
        deferred.push({ entry, bytes, key, protectedBy: await getProtection(), selector: defer });
      } else if (wanted) {
        report.addKept(entry, bytes, (await getProtection()) ?? 'grace');
      }
    };

    try {
      for await (const entry of cfg.catalog.list(listOptions)) {
        throwIfAborted(signal, 'The sweep');
        await visit(entry);
        seen += 1;
        if (seen % tuning.progressEvery === 0) {
          progress({ phase, pass, seen, total: firstPassTotal, deleted: report.deleted.count });
        }
      }
    } catch (error) {
      report.complete = false;
      const aborted = signal?.aborted === true && !isSpillError(error);
      report.addError('list', aborted ? abortedError(signal, 'The sweep') : error);
      break;
    }
    firstPassTotal ??= seen;
    progress({ phase, pass, seen, total: firstPassTotal, deleted: report.deleted.count });

    if (final) {
      // Settle the ranges that this pass collected, then act on the entries held back.
      for (const s of watching) if (!s.resolved) s.endPass(0);
      for (const d of deferred) {
        if (!isAtOrBefore(d.key, d.selector.cutoff)) continue;
        if (d.protectedBy === null) {
          await startDelete(d.entry, d.bytes, d.selector === global ? 'total-quota' : 'session-quota');
        } else {
          report.addKept(d.entry, d.bytes, d.protectedBy);
        }
      }
      break;
    }

    // Sessions first seen in this pass (the scan) are not in `watching` yet.
    const ending =
      sessions !== undefined && !sessionsResolved
        ? [...sessions.values()].filter((s) => !s.resolved)
        : [];
    if (global !== undefined && globalActive && !global.resolved) ending.push(global);
    const pending: { sel: Selector; count: number }[] = [];
    for (const s of ending) {
      s.endPass(tuning.maxRestarts);
      if (s.pending) pending.push({ sel: s, count: s.nextCount });
    }
    if (sessions !== undefined && !sessionsResolved) {
      let all = true;
      for (const [key, s] of sessions) {
        // A session within its limit needs nothing more; forget it to bound memory.
        if (s.resolved && s.cutoff.t === -Infinity) sessions.delete(key);
        else if (!s.resolved) all = false;
      }
      sessionsResolved = all;
    }
    allocate(pending, global, tuning);
    if (pass >= tuning.maxPasses) {
      for (const s of sessions?.values() ?? []) s.giveUp();
      global?.giveUp();
      sessionsResolved = true;
    }
  }
  await pool.drain();

  if (report.complete && !cfg.dryRun && cfg.catalog.sweepTemp !== undefined) {
    try {
      report.temp = await cfg.catalog.sweepTemp({ olderThanMs: cfg.tempGraceMs, ...callOptions });
      for (const problem of report.temp.problems ?? []) report.addSkipped(problem);
    } catch (error) {
      report.addError('sweep-temp', error);
    }
  }

  const troubled = !report.complete || report.failedDeletes.count > 0;
  const limits: { total?: LimitStatus; session?: SessionLimitStatus } = {};
  if (cfg.maxTotalBytes !== undefined) {
    const bytes = report.remaining().bytes;
    // A sweep that stopped early has not seen everything: never claim the limit is met.
    const met = report.complete && bytes <= cfg.maxTotalBytes;
    limits.total = met
      ? { limit: cfg.maxTotalBytes, bytes, met }
      : { limit: cfg.maxTotalBytes, bytes, met, reason: troubled ? 'failures' : 'protected' };
  }
  if (sessionLimit !== undefined) {
    const over: { session: string; bytes: number; reason: 'protected' | 'failures' }[] = [];
    for (const [session, s] of statuses) {
      if (s.bytes > sessionLimit) {
        over.push({ session, bytes: s.bytes, reason: s.failures > 0 || !report.complete ? 'failures' : 'protected' });
      }
    }
    over.sort((a, b) => b.bytes - a.bytes);
    limits.session = { limit: sessionLimit, overCount: over.length, over: over.slice(0, 20) };
  }
  return report.build('sweep', cfg.dryRun, new Date(start), performance.now() - began, limits);
}

/**
 * Splits the memory budget among selectors that know their next range: the smallest
 * ranges are collected and sorted outright while the collect budget lasts, the rest get
 * histograms (the session ones sharing a bucket budget).
 */
function allocate(pending: { sel: Selector; count: number }[], global: Selector | undefined, tuning: SweepTuning): void {
  pending.sort((a, b) => a.count - b.count);
  let used = 0;
  const histogram: Selector[] = [];
  for (const { sel, count } of pending) {
    if (used + count <= tuning.collectBudget) {
      used += count;
      sel.chooseNext(true, 0);
    } else {
      histogram.push(sel);
    }
  }
  const sessionHistograms = histogram.filter((s) => s !== global).length;
  const perSession = Math.max(
    tuning.minBuckets,
    Math.min(tuning.sessionBuckets, Math.floor(tuning.bucketBudget / Math.max(1, sessionHistograms))),
  );
  for (const sel of histogram) sel.chooseNext(false, sel === global ? tuning.globalBuckets : perSession);
}
