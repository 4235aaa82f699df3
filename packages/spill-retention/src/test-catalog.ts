// Test helpers (not built): an in-memory SpillCatalog that lists in a chosen order, can
// fail on purpose and lets a test act between two listed entries; plus a plain reference
// implementation of the retention rules to compare the streaming sweep against.
import {
  type ListOptions,
  type SpillCatalog,
  type SpillEntry,
  type SweepTempResult,
  SpillError,
  spillLocator,
} from '@spillway/core';
import { CLOCK_SLACK_MS } from './config.js';
import { compareKeys, entryKey } from './order.js';

/** The catalog's key for a session id, the way a backend would hash it. */
export function sessionKey(id: string): string {
  return `session-${id}`;
}

/** Makes an entry. */
export function entry(locator: string, bytes: number, createdAt: number, session = 'a'): SpillEntry {
  return { locator: spillLocator(locator), bytes, createdAt: new Date(createdAt), session: sessionKey(session) };
}

/** How {@link ModelCatalog.list} orders entries. */
export type ListOrder = 'insertion' | 'reverse' | 'shuffled';

/** An in-memory catalog with knobs for tests. */
export class ModelCatalog implements SpillCatalog {
  readonly entries = new Map<string, SpillEntry>();
  listCalls = 0;
  deleteCalls = 0;
  /** Locators whose deletion rejects. */
  readonly failDelete = new Set<string>();
  /** Locators whose deletion reports "already gone" (and removes them). */
  readonly vanishOnDelete = new Set<string>();
  /** Reject the listing after this many entries, when set. */
  failListAfter: number | undefined;
  /** Called after each listed entry (index within the listing). */
  between: ((index: number) => void | Promise<void>) | undefined;
  sweepTempCalls: { olderThanMs: number }[] = [];
  sweepTempResult: SweepTempResult | Error = { removed: 0, bytes: 0 };
  private seed: number;

  constructor(
    items: Iterable<SpillEntry> = [],
    readonly order: ListOrder = 'insertion',
    seed = 1,
  ) {
    for (const e of items) this.entries.set(e.locator, e);
    this.seed = seed;
  }

  add(e: SpillEntry): void {
    this.entries.set(e.locator, e);
  }

  async *list(options: ListOptions = {}): AsyncIterable<SpillEntry> {
    this.listCalls += 1;
    let keys = [...this.entries.keys()];
    if (this.order === 'reverse') keys.reverse();
    if (this.order === 'shuffled') keys = shuffle(keys, this.seed++);
    const want = options.sessionId === undefined ? undefined : sessionKey(options.sessionId);
    let index = 0;
    for (const k of keys) {
      const e = this.entries.get(k);
      if (e === undefined || (want !== undefined && e.session !== want)) continue;
      if (this.failListAfter !== undefined && index >= this.failListAfter) {
        throw new SpillError('SPILL_STORAGE_FAILED', 'The listing broke (test).');
      }
      await Promise.resolve();
      yield e;
      await this.between?.(index);
      index += 1;
    }
  }

  delete(locator: SpillEntry['locator']): Promise<boolean> {
    this.deleteCalls += 1;
    if (this.failDelete.has(locator)) {
      return Promise.reject(new SpillError('SPILL_STORAGE_FAILED', `Could not delete ${locator} (test).`));
    }
    if (this.vanishOnDelete.has(locator)) {
      this.entries.delete(locator);
      return Promise.resolve(false);
    }
    return Promise.resolve(this.entries.delete(locator));
  }

  sweepTemp(options: { readonly olderThanMs: number }): Promise<SweepTempResult> {
    this.sweepTempCalls.push({ olderThanMs: options.olderThanMs });
    const r = this.sweepTempResult;
    return r instanceof Error ? Promise.reject(r) : Promise.resolve(r);
  }

  totalBytes(): number {
    let sum = 0;
    for (const e of this.entries.values()) sum += e.bytes;
    return sum;
  }
}

function shuffle<T>(items: T[], seed: number): T[] {
  let s = seed >>> 0 || 1;
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** The inputs of {@link referenceSweep}. */
export interface ReferenceConfig {
  readonly start: number;
  readonly graceMs: number;
  readonly maxAgeMs?: number | undefined;
  readonly maxTotalBytes?: number | undefined;
  readonly maxSessionBytes?: number | undefined;
  readonly keep: ReadonlySet<string>;
}

/**
 * The retention rules written the obvious way (everything in memory, sorted): what the
 * streaming sweep must agree with. Returns the locators to delete.
 */
export function referenceSweep(entries: readonly SpillEntry[], cfg: ReferenceConfig): Set<string> {
  const isProtected = (e: SpillEntry): boolean =>
    e.createdAt.getTime() >= cfg.start - Math.max(cfg.graceMs, CLOCK_SLACK_MS) || cfg.keep.has(e.locator);
  const deleted = new Set<string>();
  if (cfg.maxAgeMs !== undefined) {
    const before = cfg.start - cfg.maxAgeMs;
    for (const e of entries) if (e.createdAt.getTime() < before && !isProtected(e)) deleted.add(e.locator);
  }
  const oldestFirst = (list: SpillEntry[]): SpillEntry[] =>
    list.sort((a, b) => compareKeys(entryKey(a, a.createdAt.getTime()), entryKey(b, b.createdAt.getTime())));
  const trim = (scope: SpillEntry[], limit: number): void => {
    let total = scope.reduce((sum, e) => sum + e.bytes, 0);
    for (const e of oldestFirst(scope.filter((x) => !isProtected(x)))) {
      if (total <= limit) break;
      deleted.add(e.locator);
      total -= e.bytes;
    }
  };
  if (cfg.maxSessionBytes !== undefined) {
    const bySession = new Map<string, SpillEntry[]>();
    for (const e of entries) {
      if (deleted.has(e.locator)) continue;
      const list = bySession.get(e.session) ?? [];
      list.push(e);
      bySession.set(e.session, list);
    }
    for (const list of bySession.values()) trim(list, cfg.maxSessionBytes);
  }
  if (cfg.maxTotalBytes !== undefined) {
    trim(
      entries.filter((e) => !deleted.has(e.locator)),
      cfg.maxTotalBytes,
    );
  }
  return deleted;
}
