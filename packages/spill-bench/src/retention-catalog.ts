import { spillLocator, type SpillCatalog, type SpillEntry } from '@spillway/core';
import type { createRetention as createRetentionFn } from '@spillway/retention';

/** Milliseconds between the creation times of two consecutive (by age) generated entries. */
export const GENERATED_STEP_MS = 1000;

/** The epoch-ms creation time of the oldest generated entry. */
export const GENERATED_EPOCH_MS = Date.UTC(2026, 0, 1);

/** The multiplier of the listing permutation; a prime that divides no power of ten. */
const STRIDE = 7919;

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * Whether {@link ageRankAt} is a permutation for `count` entries.
 */
export function isPermutableCount(count: number): boolean {
  return Number.isSafeInteger(count) && count > 0 && count * STRIDE < Number.MAX_SAFE_INTEGER && gcd(STRIDE, count) === 1;
}

/**
 * The age rank (0 = oldest) of the entry listed at position `index` (0 ≤ index < count):
 * a multiplicative permutation when {@link isPermutableCount}, so the listing is out of
 * age order yet every rank comes exactly once, with nothing stored.
 */
export function ageRankAt(index: number, count: number): number {
  return (index * STRIDE) % count;
}

/** The size in bytes of the entry of age rank `rank`: 1 KiB to 9 KiB, varied, deterministic. */
export function generatedBytes(rank: number): number {
  return 1024 + ((rank * 2654435761) >>> 0) % 8192;
}

/**
 * An in-memory `SpillCatalog` of `count` generated entries that makes each entry when
 * it lists it and remembers only which ones were deleted (one byte per entry), so a
 * measurement of the sweep's memory is not buried under the catalog's own. Entries are
 * listed out of age order ({@link ageRankAt}), spread over `sessions` sessions.
 */
export class GeneratedCatalog implements SpillCatalog {
  private readonly gone: Uint8Array;
  /** How many `delete` calls removed an entry. */
  deletedCount = 0;
  /** The bytes of the entries not deleted. */
  remainingBytes: number;
  /** How many times the catalog was listed. */
  listings = 0;

  constructor(
    readonly count: number,
    readonly sessions = 100,
  ) {
    if (!isPermutableCount(count)) throw new RangeError(`A generated catalog cannot have ${String(count)} entries; use a positive count not divisible by ${String(STRIDE)}.`);
    this.gone = new Uint8Array(count);
    this.remainingBytes = GeneratedCatalog.totalBytes(count);
  }

  /** The total size of a fresh catalog of `count` entries. */
  static totalBytes(count: number): number {
    let sum = 0;
    for (let rank = 0; rank < count; rank++) sum += generatedBytes(rank);
    return sum;
  }

  /** The creation time of the youngest entry. */
  get youngestMs(): number {
    return GENERATED_EPOCH_MS + (this.count - 1) * GENERATED_STEP_MS;
  }

  async *list(): AsyncIterable<SpillEntry> {
    this.listings += 1;
    for (let index = 0; index < this.count; index++) {
      const rank = ageRankAt(index, this.count);
      if (this.gone[rank] === 1) continue;
      // An async listing, like a directory walk: one microtask turn per entry at least.
      await Promise.resolve();
      yield {
        locator: spillLocator(`bench/${String(rank % this.sessions)}/${String(rank)}.txt`),
        bytes: generatedBytes(rank),
        createdAt: new Date(GENERATED_EPOCH_MS + rank * GENERATED_STEP_MS),
        session: `session-${String(rank % this.sessions)}`,
      };
    }
  }

  delete(locator: SpillEntry['locator']): Promise<boolean> {
    const rank = Number(locator.slice(locator.lastIndexOf('/') + 1, -'.txt'.length));
    if (!Number.isInteger(rank) || rank < 0 || rank >= this.count || this.gone[rank] === 1) return Promise.resolve(false);
    this.gone[rank] = 1;
    this.deletedCount += 1;
    this.remainingBytes -= generatedBytes(rank);
    return Promise.resolve(true);
  }
}

/** What one side of the retention comparison did. */
export interface QuotaSweepOutcome {
  /** Entries deleted. */
  readonly deleted: number;
  /** Times the catalog was listed. */
  readonly passes: number;
}

/**
 * The naive total-quota sweep, the retention figure's baseline: list everything into an
 * array, sort it oldest first, and delete from the front until the total is under
 * `maxTotalBytes`. Correct, and it holds every entry in memory at once.
 */
export async function naiveQuotaSweep(catalog: SpillCatalog, maxTotalBytes: number): Promise<QuotaSweepOutcome> {
  const all: SpillEntry[] = [];
  for await (const entry of catalog.list()) all.push(entry);
  all.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  let total = 0;
  for (const entry of all) total += entry.bytes;
  let deleted = 0;
  for (const entry of all) {
    if (total <= maxTotalBytes) break;
    if (await catalog.delete(entry.locator)) deleted += 1;
    total -= entry.bytes;
  }
  return { deleted, passes: 1 };
}

/** The `createRetention` function, passed in so that this module does not load the package it measures. */
export type CreateRetention = typeof createRetentionFn;

/** One measured side of the retention figure. */
export interface RetentionRun extends QuotaSweepOutcome {
  /** Wall time of the sweep, in ms. */
  readonly ms: number;
  /** Bytes left in the catalog. */
  readonly remainingBytes: number;
}

/** The quota both sides sweep down to: half the catalog's bytes. */
export function retentionQuota(count: number): number {
  return Math.floor(GeneratedCatalog.totalBytes(count) / 2);
}

/**
 * Sweeps a fresh generated catalog of `count` entries down to {@link retentionQuota},
 * either with `createRetention` (the clock an hour after the youngest entry, so no grace
 * protects anything) or with {@link naiveQuotaSweep}, and times it.
 */
export async function sweepGenerated(side: 'spillway' | 'baseline', count: number, createRetention: CreateRetention): Promise<RetentionRun> {
  const catalog = new GeneratedCatalog(count);
  const quota = retentionQuota(count);
  const t0 = performance.now();
  let outcome: QuotaSweepOutcome;
  if (side === 'spillway') {
    const retention = createRetention({ catalog, maxTotalBytes: quota, now: () => catalog.youngestMs + 3_600_000 });
    const report = await retention.sweep();
    outcome = { deleted: report.deleted.count, passes: report.passes };
  } else {
    outcome = await naiveQuotaSweep(catalog, quota);
  }
  const ms = performance.now() - t0;
  return { ...outcome, ms, remainingBytes: catalog.remainingBytes };
}
