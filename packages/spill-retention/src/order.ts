import type { SpillEntry } from '@spillway/core';

/**
 * Where an entry stands in "oldest first" order: creation time, then a 32-bit hash of the
 * locator, then the locator itself. The hash splits artifacts created in the same
 * millisecond into numeric ranges, so a sweep can narrow down on them with histograms
 * instead of holding them all; the locator breaks the (rare) hash ties. Any fixed order
 * among equal times is "oldest first", so this one is as good as any and is stable across
 * passes over the catalog.
 */
export interface EntryKey {
  /** Creation time in epoch milliseconds (an integer). */
  readonly t: number;
  /** FNV-1a hash of the locator, in `[0, 2^32)`. */
  readonly h: number;
  /** The locator. */
  readonly loc: string;
}

/** One past the largest {@link EntryKey.h}. */
export const HASH_SPACE = 0x1_0000_0000;

/** 32-bit FNV-1a over UTF-16 code units: cheap, allocation-free and well spread. */
export function hashLocator(locator: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < locator.length; i++) {
    h ^= locator.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The key of an entry whose `createdAt` is a valid date. */
export function entryKey(entry: SpillEntry, t: number): EntryKey {
  return { t, h: hashLocator(entry.locator), loc: entry.locator };
}

/** Compares `(t, h)` pairs. */
export function comparePoint(t1: number, h1: number, t2: number, h2: number): number {
  if (t1 !== t2) return t1 < t2 ? -1 : 1;
  if (h1 !== h2) return h1 < h2 ? -1 : 1;
  return 0;
}

/** Compares two keys in oldest-first order. */
export function compareKeys(a: EntryKey, b: EntryKey): number {
  const byPoint = comparePoint(a.t, a.h, b.t, b.h);
  if (byPoint !== 0) return byPoint;
  if (a.loc === b.loc) return 0;
  return a.loc < b.loc ? -1 : 1;
}

/**
 * The last key a limit deletes: every deletable entry at or before it goes. `loc: null`
 * stands for "before every locator", so `{ t, h, loc: null }` deletes only keys strictly
 * before `(t, h)`. `t: Infinity` means "everything deletable".
 */
export interface Cutoff {
  readonly t: number;
  readonly h: number;
  readonly loc: string | null;
}

/** A cutoff that deletes nothing. */
export const DELETE_NOTHING: Cutoff = { t: -Infinity, h: 0, loc: null };
/** A cutoff that deletes every deletable entry. */
export const DELETE_ALL: Cutoff = { t: Infinity, h: 0, loc: null };

/** Whether `key` is at or before `cutoff`, meaning the limit wants it deleted. */
export function isAtOrBefore(key: EntryKey, cutoff: Cutoff): boolean {
  const byPoint = comparePoint(key.t, key.h, cutoff.t, cutoff.h);
  if (byPoint !== 0) return byPoint < 0;
  return cutoff.loc !== null && key.loc <= cutoff.loc;
}

/** The epoch milliseconds of `createdAt`, or `undefined` when it is not a valid date. */
export function createdAtMs(entry: SpillEntry): number | undefined {
  const created: unknown = entry.createdAt;
  // Duck-typed so that a Date from another realm (vm, worker) is accepted too.
  const ms =
    typeof created === 'object' && created !== null && typeof (created as Date).getTime === 'function'
      ? (created as Date).getTime()
      : Number.NaN;
  return Number.isFinite(ms) ? Math.floor(ms) : undefined;
}

/** A non-negative, finite byte count; a catalog that reports garbage counts as 0. */
export function sizeOf(entry: SpillEntry): number {
  const bytes: unknown = entry.bytes;
  return typeof bytes === 'number' && Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
}
