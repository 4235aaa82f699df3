import { wholeNumberProblem } from '@spillway/core';
import type { SessionId, SpillCatalog, SpillEntry } from '@spillway/core';

/** Default {@link RetentionOptions.graceMs}: five minutes. */
export const DEFAULT_GRACE_MS = 5 * 60 * 1000;
/** The least age of a leftover temp file the sweep asks the backend to remove: one hour. */
export const DEFAULT_TEMP_GRACE_MS = 60 * 60 * 1000;
/**
 * The shortest protection any sweep gives a fresh artifact, whatever `graceMs` says. File
 * systems stamp times from a coarse clock, so a file written just after a sweep began can
 * carry a time a few milliseconds before it; this slack keeps "created after the sweep
 * began" safe with `graceMs: 0` too.
 */
export const CLOCK_SLACK_MS = 1000;
/** Default {@link RetentionOptions.deleteConcurrency}. */
export const DEFAULT_DELETE_CONCURRENCY = 4;
/** Default {@link RetentionOptions.maxReportedEntries}. */
export const DEFAULT_MAX_REPORTED_ENTRIES = 1000;

/**
 * Decides whether an artifact must survive whatever the limits say; typically "a live
 * transcript still references it". It may be async. A `keep` that throws or rejects
 * protects the entry (the failure is reported): retention never deletes on a doubt.
 */
export type KeepPredicate = (entry: SpillEntry) => boolean | Promise<boolean>;

/** Configuration for {@link createRetention}. Every limit is optional. */
export interface RetentionOptions {
  /** Where the artifacts are: a backend's `catalog`. */
  readonly catalog: SpillCatalog;
  /** Delete artifacts older than this many milliseconds. */
  readonly maxAgeMs?: number | undefined;
  /** Keep the catalog's total size at or under this many bytes, deleting oldest first. */
  readonly maxTotalBytes?: number | undefined;
  /** Keep each session's total size at or under this many bytes, deleting its oldest first. */
  readonly maxSessionBytes?: number | undefined;
  /**
   * Never delete an artifact younger than this (default {@link DEFAULT_GRACE_MS}), so an
   * artifact just published, whose notice may not even have reached the transcript yet,
   * is safe. Artifacts created after a sweep began are always safe, even with 0 (the
   * protection is never shorter than {@link CLOCK_SLACK_MS}).
   */
  readonly graceMs?: number | undefined;
  /** Protects artifacts from every limit; see {@link KeepPredicate}. */
  readonly keep?: KeepPredicate | undefined;
  /** Report what would be deleted, and delete nothing. */
  readonly dryRun?: boolean | undefined;
  /** The clock (epoch milliseconds or a `Date`); default `Date.now`. Tests inject one. */
  readonly now?: (() => number | Date) | undefined;
  /**
   * How old a leftover temp file must be before the sweep asks the backend to remove it
   * (`catalog.sweepTemp`). Default: the larger of `graceMs` and one hour, because a
   * long-running stream keeps its temp file open for as long as the command runs.
   */
  readonly tempGraceMs?: number | undefined;
  /** How many deletions may be in flight at once. Default {@link DEFAULT_DELETE_CONCURRENCY}. */
  readonly deleteConcurrency?: number | undefined;
  /**
   * How many deleted and kept artifacts the report names individually (each list).
   * Counts and byte totals are always complete. Default {@link DEFAULT_MAX_REPORTED_ENTRIES}.
   */
  readonly maxReportedEntries?: number | undefined;
}

/** Progress of a running sweep, for a progress bar. */
export interface SweepProgress {
  /** `scan` (totals), `select` (narrowing the quota cutoffs), `delete` (the last pass). */
  readonly phase: 'scan' | 'select' | 'delete';
  /** The 1-based number of the pass over the catalog. */
  readonly pass: number;
  /** Artifacts listed so far in this pass. */
  readonly seen: number;
  /** Artifacts the first pass listed; `undefined` during the first pass. */
  readonly total: number | undefined;
  /** Artifacts deleted (or to be deleted) so far. */
  readonly deleted: number;
}

/** Options for one {@link Retention.sweep} or {@link Retention.purgeSession}. */
export interface SweepOptions {
  /** Only this session's artifacts (the limits then apply within it). */
  readonly sessionId?: SessionId | undefined;
  /** Stops the sweep between artifacts; the report then says `complete: false`. */
  readonly signal?: AbortSignal | undefined;
  /** Called now and then while the sweep runs. It must not throw. */
  readonly onProgress?: ((progress: SweepProgress) => void) | undefined;
}

/** The settled configuration. */
export interface RetentionConfig {
  readonly catalog: SpillCatalog;
  readonly maxAgeMs: number | undefined;
  readonly maxTotalBytes: number | undefined;
  readonly maxSessionBytes: number | undefined;
  readonly graceMs: number;
  readonly keep: KeepPredicate | undefined;
  readonly dryRun: boolean;
  readonly now: () => number;
  readonly tempGraceMs: number;
  readonly deleteConcurrency: number;
  readonly maxReportedEntries: number;
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  return value === null ? 'null' : typeof value;
}

function duration(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new TypeError(`${name} must be a finite number of milliseconds, 0 or more; got ${describe(value)}.`);
  }
  return value;
}

function byteCount(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const problem = wholeNumberProblem(value, { min: 0, unit: 'bytes' });
  if (problem !== undefined) throw new TypeError(`${name} ${problem}.`);
  return value as number;
}

function positiveInt(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const problem = wholeNumberProblem(value, { min: 1 });
  if (problem !== undefined) throw new TypeError(`${name} ${problem}.`);
  return value as number;
}

function clockFrom(now: unknown): () => number {
  if (now === undefined) return () => Date.now();
  if (typeof now !== 'function') throw new TypeError(`now must be a function returning a time; got ${describe(now)}.`);
  const read = now as () => unknown;
  return () => {
    const value = read();
    const ms = value instanceof Date ? value.getTime() : value;
    if (typeof ms !== 'number' || !Number.isFinite(ms)) {
      throw new TypeError(`now() must return epoch milliseconds or a valid Date; got ${describe(ms)}.`);
    }
    return ms;
  };
}

/** Every key {@link RetentionOptions} knows. */
const KNOWN_OPTIONS: readonly string[] = [
  'catalog',
  'maxAgeMs',
  'maxTotalBytes',
  'maxSessionBytes',
  'graceMs',
  'keep',
  'dryRun',
  'now',
  'tempGraceMs',
  'deleteConcurrency',
  'maxReportedEntries',
] satisfies readonly (keyof RetentionOptions)[];

/**
 * Throws a TypeError for the first own key of `options` that is not in `known`. A misspelt
 * limit (`maxAge` for `maxAgeMs`) would otherwise be silently ignored, and retention would
 * quietly delete nothing, or, for a misspelt session filter, sweep every session.
 */
export function rejectUnknownKeys(where: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new TypeError(`${where}: unknown option ${JSON.stringify(key)}; the known options are ${known.join(', ')}.`);
    }
  }
}

/**
 * Validates options for callers without type checking and fills in the defaults.
 *
 * @throws TypeError naming the first bad option, or the first unknown key.
 */
export function resolveConfig(options: RetentionOptions): RetentionConfig {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new TypeError('createRetention needs an options object with at least a catalog.');
  }
  rejectUnknownKeys('createRetention', options, KNOWN_OPTIONS);
  const catalog = options.catalog as unknown;
  if (
    typeof catalog !== 'object' ||
    catalog === null ||
    typeof (catalog as SpillCatalog).list !== 'function' ||
    typeof (catalog as SpillCatalog).delete !== 'function'
  ) {
    throw new TypeError('catalog must be a SpillCatalog (with list and delete); pass backend.catalog.');
  }
  const keep = options.keep as unknown;
  if (keep !== undefined && typeof keep !== 'function') {
    throw new TypeError(`keep must be a function (entry) => boolean; got ${describe(keep)}.`);
  }
  const dryRun = options.dryRun as unknown;
  if (dryRun !== undefined && typeof dryRun !== 'boolean') {
    throw new TypeError(`dryRun must be a boolean; got ${describe(dryRun)}.`);
  }
  const graceMs = duration('graceMs', options.graceMs) ?? DEFAULT_GRACE_MS;
  return {
    catalog: catalog as SpillCatalog,
    maxAgeMs: duration('maxAgeMs', options.maxAgeMs),
    maxTotalBytes: byteCount('maxTotalBytes', options.maxTotalBytes),
    maxSessionBytes: byteCount('maxSessionBytes', options.maxSessionBytes),
    graceMs,
    keep: keep as KeepPredicate | undefined,
    dryRun: dryRun === true,
    now: clockFrom(options.now),
    tempGraceMs: duration('tempGraceMs', options.tempGraceMs) ?? Math.max(graceMs, DEFAULT_TEMP_GRACE_MS),
    deleteConcurrency: positiveInt('deleteConcurrency', options.deleteConcurrency, DEFAULT_DELETE_CONCURRENCY),
    maxReportedEntries: (() => {
      const v = options.maxReportedEntries as unknown;
      if (v === undefined) return DEFAULT_MAX_REPORTED_ENTRIES;
      const problem = wholeNumberProblem(v, { min: 0 });
      if (problem !== undefined) throw new TypeError(`maxReportedEntries ${problem}.`);
      return v as number;
    })(),
  };
}
