import { type ListOptions, type SessionId, type SpillEntry, abortedError, isSpillError, throwIfAborted } from '@spillway/core';
import { CLOCK_SLACK_MS, type RetentionConfig, type SweepOptions } from './config.js';
import { BoundedPool } from './delete-pool.js';
import { createdAtMs, sizeOf } from './order.js';
import { type KeepReason, type RetentionReport, ReportBuilder } from './report.js';

/**
 * Deletes every artifact of one session in a single pass. Limits and `graceMs` do not
 * apply (the session is over, so its artifacts go however young), but `keep` does (a
 * transcript elsewhere, a fork for instance, may still reference one), and so does the
 * purge's own start: an artifact created after the purge began (give or take
 * {@link CLOCK_SLACK_MS}) is left alone.
 */
export async function runPurge(
  cfg: RetentionConfig,
  sessionId: SessionId,
  options: Omit<SweepOptions, 'sessionId'>,
): Promise<RetentionReport> {
  const { signal, onProgress } = options;
  const began = performance.now();
  const start = cfg.now();
  const report = new ReportBuilder(cfg.maxReportedEntries);
  const pool = new BoundedPool(cfg.deleteConcurrency);
  const listOptions: ListOptions = {
    sessionId,
    ...(signal === undefined ? {} : { signal }),
    onProblem: (problem) => { report.addSkipped(problem); },
  };
  const callOptions = signal === undefined ? {} : { signal };
  report.passes = 1;

  const protection = async (entry: SpillEntry): Promise<KeepReason | null> => {
    const t = createdAtMs(entry);
    if (t === undefined || t >= start - CLOCK_SLACK_MS) return 'grace';
    if (cfg.keep === undefined) return null;
    try {
      return (await cfg.keep(entry)) ? 'keep' : null;
    } catch (error) {
      report.addError('keep', error, entry.locator);
      return 'keep';
    }
  };

  let seen = 0;
  try {
    for await (const entry of cfg.catalog.list(listOptions)) {
      throwIfAborted(signal, 'The purge');
      const bytes = sizeOf(entry);
      report.scanned.add(bytes);
      seen += 1;
      const protectedBy = await protection(entry);
      if (protectedBy !== null) {
        report.addKept(entry, bytes, protectedBy);
      } else if (cfg.dryRun) {
        report.addDeleted(entry, bytes, 'purge');
      } else {
        await pool.run(async () => {
          try {
            if (await cfg.catalog.delete(entry.locator, callOptions)) report.addDeleted(entry, bytes, 'purge');
            else report.vanished.add(bytes);
          } catch (error) {
            report.addError('delete', error, entry.locator);
            report.failedDeletes.add(bytes);
          }
        });
      }
      if (onProgress !== undefined && seen % 1000 === 0) {
        try {
          onProgress({ phase: 'delete', pass: 1, seen, total: undefined, deleted: report.deleted.count });
        } catch {
          // A progress display must never break a purge.
        }
      }
    }
  } catch (error) {
    report.complete = false;
    const aborted = signal?.aborted === true && !isSpillError(error);
    report.addError('list', aborted ? abortedError(signal, 'The purge') : error);
  }
  await pool.drain();
  return report.build('purge', cfg.dryRun, new Date(start), performance.now() - began, {});
}
