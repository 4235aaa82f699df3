import {
  type SpillEntry,
  type SpillErrorCode,
  type SpillListProblem,
  type SpillLocator,
  type SweepTempResult,
  isSpillError,
} from '@spillway/core';

/** Why an artifact was (or, in a dry run, would be) deleted. */
export type DeleteReason =
  /** Older than `maxAgeMs`. */
  | 'age'
  /** Its session was over `maxSessionBytes`, and it was among that session's oldest. */
  | 'session-quota'
  /** The catalog was over `maxTotalBytes`, and it was among the oldest. */
  | 'total-quota'
  /** `purgeSession` removed its session. */
  | 'purge';

/** Why an artifact that a limit wanted to delete was kept. */
export type KeepReason =
  /** Younger than `graceMs` (or created after the sweep began, or of unknown age). */
  | 'grace'
  /** `keep(entry)` said so, or threw (a failing `keep` protects, it never deletes). */
  | 'keep';

/** A count of artifacts and their total size. */
export interface Tally {
  /** How many artifacts. */
  readonly count: number;
  /** Their total size in bytes. */
  readonly bytes: number;
}

/** One artifact named in a report. */
export interface ReportedEntry {
  /** Its locator. */
  readonly locator: SpillLocator;
  /** Its size in bytes. */
  readonly bytes: number;
  /** When it was created. */
  readonly createdAt: Date;
  /** The backend's key for its session. */
  readonly session: string;
  /** Why it was deleted or kept. */
  readonly reason: DeleteReason | KeepReason;
}

/** Where in a sweep a failure happened. */
export type FailurePhase = 'list' | 'keep' | 'delete' | 'sweep-temp';

/** One failure met during a sweep; the sweep carried on unless the phase is `list`. */
export interface RetentionFailure {
  /** What was being done. */
  readonly phase: FailurePhase;
  /** The artifact concerned, for `keep` and `delete`. */
  readonly locator?: SpillLocator;
  /** A stable `SpillError` code (`SPILL_STORAGE_FAILED` for errors that had none). */
  readonly code: SpillErrorCode;
  /** What happened, for people. */
  readonly message: string;
}

/**
 * A part of the store the catalog refused or could not read (an unusable session
 * directory, say). The sweep left it alone and went on with everything else.
 */
export interface SkippedPart {
  /** The backend's key of the skipped session, when known. */
  readonly session?: string;
  /** What was skipped: a path or a description. */
  readonly where: string;
  /** A stable `SpillError` code (`SPILL_STORAGE_FAILED` for errors that had none). */
  readonly code: SpillErrorCode;
  /** Why, for people, with what to do about it. */
  readonly message: string;
}

/** How a byte limit stands after the sweep. */
export interface LimitStatus {
  /** The configured limit in bytes. */
  readonly limit: number;
  /**
   * The bytes left in the scope after the sweep (projected, in a dry run). When the
   * sweep stopped early this covers only what its last pass listed.
   */
  readonly bytes: number;
  /**
   * Whether `bytes <= limit` after a complete sweep (always false after one that stopped
   * early). When false, see {@link LimitStatus.reason}.
   */
  readonly met: boolean;
  /**
   * Why a limit was not met: `protected` when the kept and grace-protected artifacts
   * alone exceed it, `failures` when deletions failed or the sweep stopped early.
   */
  readonly reason?: 'protected' | 'failures';
}

/** How the per-session limit stands after the sweep. */
export interface SessionLimitStatus {
  /** The configured `maxSessionBytes`. */
  readonly limit: number;
  /** How many sessions are still over it. */
  readonly overCount: number;
  /** Up to 20 of them, largest first, with the reason each is over. */
  readonly over: readonly {
    readonly session: string;
    readonly bytes: number;
    readonly reason: 'protected' | 'failures';
  }[];
}

/**
 * What a sweep (or a purge) did. In a dry run, "deleted" means "would be deleted" and
 * nothing was touched.
 */
export interface RetentionReport {
  /** `sweep` or `purge`. */
  readonly kind: 'sweep' | 'purge';
  /** Whether this was a dry run. */
  readonly dryRun: boolean;
  /** False when the sweep stopped early (a listing failed, or it was aborted); see `errors`. */
  readonly complete: boolean;
  /** The instant the sweep judged ages against (from the injected clock). */
  readonly startedAt: Date;
  /** Wall-clock time the sweep took, in milliseconds. */
  readonly durationMs: number;
  /** How many times the catalog was listed. */
  readonly passes: number;
  /** Every artifact the last pass listed, before deletions. */
  readonly scanned: Tally;
  /** Artifacts deleted (or, in a dry run, to be deleted), by reason. */
  readonly deleted: Tally & { readonly byReason: Readonly<Record<DeleteReason, Tally>> };
  /** Artifacts that were already gone when the sweep went to delete them. */
  readonly vanished: Tally;
  /** Artifacts a limit wanted to delete but that were protected, by reason. */
  readonly kept: Tally & { readonly byReason: Readonly<Record<KeepReason, Tally>> };
  /** What is left after the sweep (projected, in a dry run). */
  readonly remaining: Tally;
  /** Limits that apply, and whether they hold now. */
  readonly limits: {
    readonly total?: LimitStatus;
    readonly session?: SessionLimitStatus;
  };
  /**
   * The artifacts deleted and kept, up to `maxReportedEntries` of each (counts above are
   * always complete). `omitted` says how many were left out of the lists.
   */
  readonly entries: {
    readonly deleted: readonly ReportedEntry[];
    readonly kept: readonly ReportedEntry[];
    readonly omitted: number;
  };
  /** What the backend's temp sweep removed; `null` when it was skipped or unsupported. */
  readonly temp: SweepTempResult | null;
  /** Failures, up to 100 (see `errorCount` for all of them). */
  readonly errors: readonly RetentionFailure[];
  /** How many failures there were in all. */
  readonly errorCount: number;
  /**
   * Parts of the store the catalog skipped, each named once (up to 100): an unusable
   * session directory, for one. Everything else was swept, so `complete` can still be
   * true; its artifacts were neither counted nor deleted.
   */
  readonly skipped: readonly SkippedPart[];
}

const MAX_ERRORS = 100;

class MutableTally {
  count = 0;
  bytes = 0;
  add(bytes: number): void {
    this.count += 1;
    this.bytes += bytes;
  }
  freeze(): Tally {
    return { count: this.count, bytes: this.bytes };
  }
}

/** Accumulates a {@link RetentionReport} with bounded memory. */
export class ReportBuilder {
  readonly scanned = new MutableTally();
  readonly deleted = new MutableTally();
  readonly vanished = new MutableTally();
  readonly failedDeletes = new MutableTally();
  readonly kept = new MutableTally();
  private readonly deletedBy: Record<DeleteReason, MutableTally> = {
    age: new MutableTally(),
    'session-quota': new MutableTally(),
    'total-quota': new MutableTally(),
    purge: new MutableTally(),
  };
  private readonly keptBy: Record<KeepReason, MutableTally> = {
    grace: new MutableTally(),
    keep: new MutableTally(),
  };
  private readonly deletedList: ReportedEntry[] = [];
  private readonly keptList: ReportedEntry[] = [];
  private omitted = 0;
  private readonly errorList: RetentionFailure[] = [];
  private errorTotal = 0;
  complete = true;
  passes = 0;
  temp: SweepTempResult | null = null;
  private readonly skippedParts = new Map<string, SkippedPart>();

  constructor(private readonly maxListed: number) {}

  /** Records an artifact deleted (or to be deleted). */
  addDeleted(entry: SpillEntry, bytes: number, reason: DeleteReason): void {
    this.deleted.add(bytes);
    this.deletedBy[reason].add(bytes);
    this.list(this.deletedList, entry, bytes, reason);
  }

  /** Records an artifact a limit wanted but protection kept. */
  addKept(entry: SpillEntry, bytes: number, reason: KeepReason): void {
    this.kept.add(bytes);
    this.keptBy[reason].add(bytes);
    this.list(this.keptList, entry, bytes, reason);
  }

  /** Records a failure. */
  addError(phase: FailurePhase, error: unknown, locator?: SpillLocator): void {
    this.errorTotal += 1;
    if (this.errorList.length >= MAX_ERRORS) return;
    const code: SpillErrorCode = isSpillError(error) ? error.code : 'SPILL_STORAGE_FAILED';
    const message = error instanceof Error ? error.message : String(error);
    this.errorList.push(locator === undefined ? { phase, code, message } : { phase, locator, code, message });
  }

  /** Records a part of the store the catalog skipped; each `where` is kept once. */
  addSkipped(problem: SpillListProblem): void {
    if (this.skippedParts.has(problem.where) || this.skippedParts.size >= MAX_ERRORS) return;
    const { error } = problem;
    const code: SpillErrorCode = isSpillError(error) ? error.code : 'SPILL_STORAGE_FAILED';
    const message = error instanceof Error ? error.message : String(error);
    this.skippedParts.set(
      problem.where,
      problem.session === undefined ? { where: problem.where, code, message } : { session: problem.session, where: problem.where, code, message },
    );
  }

  /** Whether any failure was recorded. */
  get hasErrors(): boolean {
    return this.errorTotal > 0;
  }

  /** Builds the final, immutable report. */
  build(
    kind: RetentionReport['kind'],
    dryRun: boolean,
    startedAt: Date,
    durationMs: number,
    limits: RetentionReport['limits'],
  ): RetentionReport {
    const freezeAll = <K extends string>(m: Record<K, MutableTally>): Record<K, Tally> => {
      const out = {} as Record<K, Tally>;
      for (const k of Object.keys(m) as K[]) out[k] = m[k].freeze();
      return out;
    };
    return {
      kind,
      dryRun,
      complete: this.complete,
      startedAt,
      durationMs,
      passes: this.passes,
      scanned: this.scanned.freeze(),
      deleted: { ...this.deleted.freeze(), byReason: freezeAll(this.deletedBy) },
      vanished: this.vanished.freeze(),
      kept: { ...this.kept.freeze(), byReason: freezeAll(this.keptBy) },
      remaining: this.remaining(),
      limits,
      entries: { deleted: this.deletedList, kept: this.keptList, omitted: this.omitted },
      temp: this.temp,
      errors: this.errorList,
      errorCount: this.errorTotal,
      skipped: [...this.skippedParts.values()],
    };
  }

  /** What the last pass listed, minus what was deleted or had vanished. */
  remaining(): Tally {
    return {
      count: Math.max(0, this.scanned.count - this.deleted.count - this.vanished.count),
      bytes: Math.max(0, this.scanned.bytes - this.deleted.bytes - this.vanished.bytes),
    };
  }

  private list(target: ReportedEntry[], entry: SpillEntry, bytes: number, reason: DeleteReason | KeepReason): void {
    if (target.length >= this.maxListed) {
      this.omitted += 1;
      return;
    }
    target.push({ locator: entry.locator, bytes, createdAt: entry.createdAt, session: entry.session, reason });
  }
}
