import {
  type Cutoff,
  type EntryKey,
  DELETE_ALL,
  DELETE_NOTHING,
  HASH_SPACE,
  compareKeys,
  comparePoint,
} from './order.js';

/**
 * Finds, for one scope (the whole catalog or one session) over a byte limit, the cutoff
 * key such that deleting the deletable entries at or before it, oldest first, frees just
 * enough bytes. It never holds the scope's entries: it watches passes over the catalog and
 * narrows a key range down with a histogram each pass, until the entries left in the range
 * are few enough to collect and sort.
 *
 * Each pass recomputes the scope's bytes from scratch, so entries that appear or vanish
 * between passes (concurrent saves, deletes by someone else) only shift the answer; they
 * never make it delete a protected entry, because protection is decided by the caller.
 */
export class Selector {
  /** The byte limit for the scope. */
  readonly limit: number;
  /** The current mode; see {@link SelectorMode}. */
  mode: SelectorMode = { kind: 'scan' };
  /** How many times the selector had to start over because the catalog changed under it. */
  restarts = 0;

  // Per-pass accumulators, reset by beginPass().
  private scopeBytes = 0;
  private belowBytes = 0;
  private deletableBytes = 0;
  private deletableCount = 0;
  private minT = Infinity;
  private maxT = -Infinity;
  private histBytes: Float64Array | undefined;
  private histCounts: Uint32Array | undefined;
  private collected: CollectedKey[] = [];

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Whether the selector has its cutoff. */
  get resolved(): boolean {
    return this.mode.kind === 'resolved';
  }

  /** The cutoff; only meaningful once {@link resolved}. */
  get cutoff(): Cutoff {
    return this.mode.kind === 'resolved' ? this.mode.cutoff : DELETE_NOTHING;
  }

  /** Resets the per-pass accumulators. Call before every pass in which the selector watches. */
  beginPass(): void {
    this.scopeBytes = 0;
    this.belowBytes = 0;
    this.deletableBytes = 0;
    this.deletableCount = 0;
    this.minT = Infinity;
    this.maxT = -Infinity;
    this.collected = [];
    if (this.mode.kind === 'histogram') {
      this.histBytes = new Float64Array(this.mode.buckets.count);
      this.histCounts = new Uint32Array(this.mode.buckets.count);
    } else {
      this.histBytes = undefined;
      this.histCounts = undefined;
    }
  }

  /**
   * Records one entry of the scope that survives every earlier rule. `deletable` is false
   * for protected entries: they count towards the scope's bytes but can't be chosen.
   * Returns where the entry lies relative to the range being narrowed: `before` it (the
   * limit certainly wants it gone), `in` it (undecided until the pass ends), or `none`
   * (after the range, or the selector has no range yet).
   */
  observe(key: EntryKey, bytes: number, deletable: boolean): 'before' | 'in' | 'none' {
    this.scopeBytes += bytes;
    const mode = this.mode;
    switch (mode.kind) {
      case 'scan':
        if (deletable) {
          this.deletableBytes += bytes;
          this.deletableCount += 1;
          if (key.t < this.minT) this.minT = key.t;
          if (key.t > this.maxT) this.maxT = key.t;
        }
        return 'none';
      case 'resolved':
        return 'none';
      case 'histogram':
      case 'collect': {
        const r = mode.range;
        if (comparePoint(key.t, key.h, r.tLo, r.hLo) < 0) {
          if (deletable) this.belowBytes += bytes;
          return 'before';
        }
        if (comparePoint(key.t, key.h, r.tHi, r.hHi) > 0) return 'none';
        if (mode.kind === 'collect') {
          this.collected.push({ key, bytes, deletable });
          return 'in';
        }
        // Both arrays exist in histogram mode (beginPass made them). Protected entries
        // count for the memory budget of a later collect, not for bytes.
        const i = bucketIndex(mode.buckets, key);
        const counts = this.histCounts as Uint32Array;
        counts[i] = (counts[i] as number) + 1;
        if (deletable) {
          const sums = this.histBytes as Float64Array;
          sums[i] = (sums[i] as number) + bytes;
        }
        return 'in';
      }
    }
    return 'none';
  }

  /**
   * Ends a pass and decides what the next one does. When the selector becomes pending,
   * {@link nextCount} says how many entries its next range held, so the caller can budget
   * memory before {@link chooseNext}.
   */
  endPass(maxRestarts: number): void {
    const mode = this.mode;
    switch (mode.kind) {
      case 'resolved':
        return;
      case 'scan': {
        const excess = this.scopeBytes - this.limit;
        if (excess <= 0) {
          this.resolve(DELETE_NOTHING);
        } else if (this.deletableBytes < excess) {
          this.resolve(DELETE_ALL);
        } else {
          this.mode = { kind: 'pending', range: { tLo: this.minT, hLo: 0, tHi: this.maxT, hHi: HASH_SPACE - 1 } };
          this.nextCount = this.deletableCount;
        }
        return;
      }
      case 'histogram': {
        const excess = this.scopeBytes - this.limit - this.belowBytes;
        if (excess <= 0) {
          this.resolve(cutBefore(mode.range));
          return;
        }
        const bytes = this.histBytes ?? new Float64Array(0);
        const counts = this.histCounts ?? new Uint32Array(0);
        let cum = 0;
        for (let i = 0; i < bytes.length; i++) {
          cum += bytes[i] ?? 0;
          if (cum >= excess) {
            this.mode = { kind: 'pending', range: bucketRange(mode.buckets, i) };
            this.nextCount = counts[i] ?? 0;
            return;
          }
        }
        this.startOver(maxRestarts, mode.range);
        return;
      }
      case 'collect': {
        const excess = this.scopeBytes - this.limit - this.belowBytes;
        if (excess <= 0) {
          this.resolve(cutBefore(mode.range));
          return;
        }
        this.collected.sort((x, y) => compareKeys(x.key, y.key));
        let cum = 0;
        for (const c of this.collected) {
          if (!c.deletable) continue;
          cum += c.bytes;
          if (cum >= excess) {
            this.resolve({ t: c.key.t, h: c.key.h, loc: c.key.loc });
            return;
          }
        }
        this.startOver(maxRestarts, mode.range);
        return;
      }
      case 'pending':
        throw new Error('A pending selector needs chooseNext() before another pass.');
    }
  }

  /** Entries in the range a pending selector will look at next (see {@link endPass}). */
  nextCount = 0;

  /**
   * Turns a pending selector into a histogram or a collect for the next pass. A range
   * that is a single point can't be split further, so it is always collected.
   */
  chooseNext(collect: boolean, buckets: number): void {
    const mode = this.mode;
    if (mode.kind !== 'pending') return;
    const r = mode.range;
    const single = r.tLo === r.tHi && r.hLo === r.hHi;
    if (collect || single) {
      this.mode = { kind: 'collect', range: r };
    } else {
      this.mode = { kind: 'histogram', range: r, buckets: makeBuckets(r, buckets) };
    }
  }

  /**
   * Stops narrowing (too many passes): deletes only what is certainly within the limit's
   * reach, the entries before the current range, so it errs on the side of keeping.
   */
  giveUp(): void {
    const mode = this.mode;
    if (mode.kind === 'resolved') return;
    this.resolve(mode.kind === 'scan' ? DELETE_NOTHING : cutBefore(mode.range));
  }

  /** Whether the selector is waiting for {@link chooseNext}. */
  get pending(): boolean {
    return this.mode.kind === 'pending';
  }

  /** Entries collected in the last pass (final-pass deferral reads them). */
  get lastCollected(): readonly CollectedKey[] {
    return this.collected;
  }

  private resolve(cutoff: Cutoff): void {
    this.mode = { kind: 'resolved', cutoff };
    this.collected = [];
    this.histBytes = undefined;
    this.histCounts = undefined;
  }

  /**
   * The range no longer holds enough deletable bytes: the catalog changed between passes.
   * Start from a fresh scan, a bounded number of times; then settle for deleting only what
   * is certainly old enough (the entries before the range) and let the report say the
   * limit was not met.
   */
  private startOver(maxRestarts: number, range: KeyRange): void {
    if (this.restarts >= maxRestarts) {
      this.resolve(cutBefore(range));
      return;
    }
    this.restarts += 1;
    this.mode = { kind: 'scan' };
    this.collected = [];
  }
}

/** An entry remembered by a collecting selector. */
export interface CollectedKey {
  readonly key: EntryKey;
  readonly bytes: number;
  readonly deletable: boolean;
}

/** An inclusive range of `(t, h)` points. */
export interface KeyRange {
  readonly tLo: number;
  readonly hLo: number;
  readonly tHi: number;
  readonly hHi: number;
}

/** What a selector does in the next pass. */
export type SelectorMode =
  /** Totals only: scope bytes, deletable bytes, time span. */
  | { readonly kind: 'scan' }
  /** Bytes per bucket of `range`. */
  | { readonly kind: 'histogram'; readonly range: KeyRange; readonly buckets: Buckets }
  /** Every entry in `range`, to sort. */
  | { readonly kind: 'collect'; readonly range: KeyRange }
  /** Knows its next range, waits to be told whether to collect it. */
  | { readonly kind: 'pending'; readonly range: KeyRange }
  /** Done. */
  | { readonly kind: 'resolved'; readonly cutoff: Cutoff };

/**
 * Equal-width buckets over one dimension of a range: time when the range spans more
 * than one millisecond, else the locator hash within that millisecond.
 */
export interface Buckets {
  readonly range: KeyRange;
  readonly onHash: boolean;
  readonly lo: number;
  readonly width: number;
  readonly count: number;
}

function makeBuckets(range: KeyRange, wanted: number): Buckets {
  const onHash = range.tLo === range.tHi;
  const lo = onHash ? range.hLo : range.tLo;
  const span = (onHash ? range.hHi : range.tHi) - lo + 1;
  const width = Math.max(1, Math.ceil(span / Math.max(2, wanted)));
  return { range, onHash, lo, width, count: Math.ceil(span / width) };
}

function bucketIndex(b: Buckets, key: EntryKey): number {
  const v = b.onHash ? key.h : key.t;
  const i = Math.floor((v - b.lo) / b.width);
  return i < 0 ? 0 : i >= b.count ? b.count - 1 : i;
}

function bucketRange(b: Buckets, i: number): KeyRange {
  const start = b.lo + i * b.width;
  const r = b.range;
  if (b.onHash) {
    return { tLo: r.tLo, tHi: r.tHi, hLo: start, hHi: Math.min(r.hHi, start + b.width - 1) };
  }
  const tHi = Math.min(r.tHi, start + b.width - 1);
  // The first and last time buckets keep the range's hash bounds; the inner ones span all.
  return {
    tLo: start,
    hLo: start === r.tLo ? r.hLo : 0,
    tHi,
    hHi: tHi === r.tHi ? r.hHi : HASH_SPACE - 1,
  };
}

/** A cutoff that deletes the keys strictly before the range. */
function cutBefore(range: KeyRange): Cutoff {
  return { t: range.tLo, h: range.hLo, loc: null };
}
