import { type SpillEntry, SpillError, sessionId, spillLocator } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RetentionOptions, resolveConfig } from './config.js';
import { createRetention } from './retention.js';
import { DEFAULT_TUNING, type SweepTuning, runSweep } from './sweep.js';
import { ModelCatalog, entry, referenceSweep, sessionKey } from './test-catalog.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2025, 0, 15, 12);
const clock = (): number => NOW;

/** Tuning small enough that a few dozen entries need many passes to narrow a cutoff. */
const TINY: SweepTuning = {
  ...DEFAULT_TUNING,
  globalBuckets: 2,
  sessionBuckets: 3,
  minBuckets: 2,
  bucketBudget: 4,
  collectBudget: 2,
  maxPasses: 100_000,
  progressEvery: 3,
};

function sweepWith(catalog: ModelCatalog, options: Omit<RetentionOptions, 'catalog'>, tuning = DEFAULT_TUNING) {
  return runSweep(resolveConfig({ catalog, now: clock, ...options }), {}, tuning);
}

describe('configuration', () => {
  const catalog = new ModelCatalog();
  it.each([
    ['a missing catalog', { catalog: undefined }],
    ['a catalog without delete', { catalog: { list: () => [] } }],
    ['a negative age', { catalog, maxAgeMs: -1 }],
    ['an infinite age', { catalog, maxAgeMs: Infinity }],
    ['NaN total bytes', { catalog, maxTotalBytes: Number.NaN }],
    ['fractional session bytes', { catalog, maxSessionBytes: 1.5 }],
    ['a negative grace', { catalog, graceMs: -5 }],
    ['a keep that is not a function', { catalog, keep: true }],
    ['a string dryRun', { catalog, dryRun: 'yes' }],
    ['a clock that is not a function', { catalog, now: 5 }],
    ['zero delete concurrency', { catalog, deleteConcurrency: 0 }],
    ['negative reported entries', { catalog, maxReportedEntries: -1 }],
  ])('rejects %s with a TypeError', (_name, options) => {
    expect(() => createRetention(options as unknown as RetentionOptions)).toThrow(TypeError);
  });

  const KNOWN =
    'catalog, maxAgeMs, maxTotalBytes, maxSessionBytes, graceMs, keep, dryRun, now, tempGraceMs, deleteConcurrency, maxReportedEntries';

  it.each([
    ['maxAge', { catalog, maxAge: 1 }],
    ['maxBytes', { catalog, maxBytes: 10 }],
    ['grace', { catalog, maxAgeMs: 1, grace: 0 }],
    ['dryrun', { catalog, dryrun: true }],
  ])('rejects the unknown key %s with a TypeError that names it and lists the known ones', (key, options) => {
    expect(() => createRetention(options as unknown as RetentionOptions)).toThrow(
      new TypeError(`createRetention: unknown option "${key}"; the known options are ${KNOWN}.`),
    );
  });

  it('never runs a sweep configured with a misspelt limit: maxAge: 1 is refused instead of deleting nothing', () => {
    const c = new ModelCatalog([entry('old', 5, NOW - 8 * DAY)]);
    expect(() => createRetention({ catalog: c, now: clock, maxAge: 1 } as unknown as RetentionOptions)).toThrow(/"maxAge"/);
    expect(c.entries.size).toBe(1);
  });

  it('rejects unknown keys in sweep and purgeSession options, where a misspelt session filter would widen the sweep', () => {
    const r = createRetention({ catalog });
    expect(() => r.sweep({ session: 's1' } as never)).toThrow(
      new TypeError('sweep: unknown option "session"; the known options are sessionId, signal, onProgress.'),
    );
    expect(() => r.purgeSession(sessionId('s1'), { sessionId: 's2' } as never)).toThrow(
      new TypeError('purgeSession: unknown option "sessionId"; the known options are signal, onProgress.'),
    );
  });

  it('accepts every documented key', async () => {
    const all: Required<RetentionOptions> = {
      catalog,
      maxAgeMs: DAY,
      maxTotalBytes: 1000,
      maxSessionBytes: 100,
      graceMs: 0,
      keep: () => false,
      dryRun: true,
      now: clock,
      tempGraceMs: HOUR,
      deleteConcurrency: 2,
      maxReportedEntries: 5,
    };
    const r = createRetention(all);
    await expect(r.sweep({ sessionId: sessionId('s1'), signal: new AbortController().signal, onProgress: () => undefined })).resolves.toBeDefined();
    await expect(r.purgeSession(sessionId('s1'), { signal: new AbortController().signal, onProgress: () => undefined })).resolves.toBeDefined();
  });

  it('accepts no limits at all (a sweep then deletes nothing)', async () => {
    const c = new ModelCatalog([entry('x', 10, NOW - 100 * DAY)]);
    const report = await createRetention({ catalog: c, now: clock }).sweep();
    expect(report.deleted.count).toBe(0);
    expect(c.entries.size).toBe(1);
  });

  it('rejects a clock that returns garbage when the sweep starts', async () => {
    const r = createRetention({ catalog, now: () => Number.NaN });
    await expect(r.sweep()).rejects.toThrow(TypeError);
  });

  it('accepts a clock that returns a Date', async () => {
    const c = new ModelCatalog([entry('old', 1, NOW - 2 * DAY)]);
    const report = await createRetention({ catalog: c, now: () => new Date(NOW), maxAgeMs: DAY }).sweep();
    expect(report.startedAt.getTime()).toBe(NOW);
    expect(report.deleted.count).toBe(1);
  });

  it('rejects bad sweep options and session ids with TypeErrors', () => {
    const r = createRetention({ catalog });
    expect(() => r.sweep({ sessionId: '' as never })).toThrow(TypeError);
    expect(() => r.sweep({ onProgress: 1 as never })).toThrow(TypeError);
    expect(() => r.purgeSession('' as never)).toThrow(TypeError);
  });
});

describe('age', () => {
  it('deletes entries older than maxAgeMs in a single pass and keeps the rest', async () => {
    const c = new ModelCatalog(
      [entry('old', 5, NOW - 8 * DAY), entry('edge', 6, NOW - 7 * DAY), entry('new', 7, NOW - DAY)],
      'shuffled',
    );
    const report = await sweepWith(c, { maxAgeMs: 7 * DAY });
    expect([...c.entries.keys()].sort()).toEqual(['edge', 'new']);
    expect(report.passes).toBe(1);
    expect(c.listCalls).toBe(1);
    expect(report.deleted).toMatchObject({ count: 1, bytes: 5, byReason: { age: { count: 1, bytes: 5 } } });
    expect(report.remaining).toEqual({ count: 2, bytes: 13 });
    expect(report.entries.deleted.map((e) => e.locator)).toEqual(['old']);
  });

  it('keeps an old entry that keep() protects and says why', async () => {
    const c = new ModelCatalog([entry('old', 5, NOW - 8 * DAY), entry('older', 9, NOW - 9 * DAY)]);
    const report = await sweepWith(c, { maxAgeMs: DAY, keep: (e) => e.locator === 'old' });
    expect([...c.entries.keys()]).toEqual(['old']);
    expect(report.kept).toMatchObject({ count: 1, bytes: 5, byReason: { keep: { count: 1, bytes: 5 } } });
    expect(report.entries.kept).toMatchObject([{ locator: 'old', reason: 'keep' }]);
  });

  it('never deletes within the grace period, even when maxAgeMs is shorter', async () => {
    const c = new ModelCatalog([entry('fresh', 5, NOW - 2 * MIN), entry('stale', 5, NOW - 20 * MIN)]);
    const report = await sweepWith(c, { maxAgeMs: MIN, graceMs: 10 * MIN });
    expect([...c.entries.keys()]).toEqual(['fresh']);
    expect(report.kept.byReason.grace).toEqual({ count: 1, bytes: 5 });
  });

  it('gives fresh entries at least a second even with graceMs 0, for coarse file clocks', async () => {
    const c = new ModelCatalog([entry('just-now', 1, NOW - 500), entry('two-seconds', 1, NOW - 2000)]);
    await sweepWith(c, { maxAgeMs: 0, graceMs: 0 });
    expect([...c.entries.keys()]).toEqual(['just-now']);
  });

  it('treats an entry without a valid date as new', async () => {
    const bad: SpillEntry = { ...entry('undated', 5, 0), createdAt: new Date(Number.NaN) };
    const c = new ModelCatalog([bad, entry('old', 5, NOW - 9 * DAY)]);
    await sweepWith(c, { maxAgeMs: DAY, maxTotalBytes: 0 });
    expect([...c.entries.keys()]).toEqual(['undated']);
  });

  it('protects an entry whose keep() throws, and reports the failure', async () => {
    const c = new ModelCatalog([entry('old', 5, NOW - 9 * DAY)]);
    const report = await sweepWith(c, {
      maxAgeMs: DAY,
      keep: () => {
        throw new Error('transcript store is down');
      },
    });
    expect(c.entries.size).toBe(1);
    expect(report.kept.byReason.keep.count).toBe(1);
    expect(report.errors).toMatchObject([{ phase: 'keep', locator: 'old', code: 'SPILL_STORAGE_FAILED' }]);
  });

  it('awaits an async keep()', async () => {
    const c = new ModelCatalog([entry('a', 1, NOW - 9 * DAY), entry('b', 1, NOW - 9 * DAY)]);
    await sweepWith(c, { maxAgeMs: DAY, keep: async (e) => Promise.resolve(e.locator === 'b') });
    expect([...c.entries.keys()]).toEqual(['b']);
  });
});

describe('quotas', () => {
  it('trims the total to maxTotalBytes oldest first, whatever order the catalog lists in', async () => {
    for (const order of ['insertion', 'reverse', 'shuffled'] as const) {
      const items = Array.from({ length: 10 }, (_, i) => entry(`e${i}`, 10, NOW - (10 - i) * HOUR));
      const c = new ModelCatalog(items, order);
      const report = await sweepWith(c, { maxTotalBytes: 35 });
      expect([...c.entries.keys()].sort()).toEqual(['e7', 'e8', 'e9']);
      expect(report.deleted.byReason['total-quota']).toEqual({ count: 7, bytes: 70 });
      expect(report.limits.total).toEqual({ limit: 35, bytes: 30, met: true });
    }
  });

  it('trims each session to maxSessionBytes, then the total', async () => {
    const items = [
      entry('a1', 10, NOW - 5 * HOUR, 'a'),
      entry('a2', 10, NOW - 4 * HOUR, 'a'),
      entry('a3', 10, NOW - 3 * HOUR, 'a'),
      entry('b1', 10, NOW - 6 * HOUR, 'b'),
      entry('b2', 10, NOW - 2 * HOUR, 'b'),
    ];
    const c = new ModelCatalog(items, 'shuffled');
    const report = await sweepWith(c, { maxSessionBytes: 20, maxTotalBytes: 30 });
    // a1 goes for session a's quota; then b1 (oldest left) for the total.
    expect([...c.entries.keys()].sort()).toEqual(['a2', 'a3', 'b2']);
    expect(report.deleted.byReason['session-quota']).toEqual({ count: 1, bytes: 10 });
    expect(report.deleted.byReason['total-quota']).toEqual({ count: 1, bytes: 10 });
    expect(report.limits.session).toEqual({ limit: 20, overCount: 0, over: [] });
  });

  it('says a limit is unmet because of protected entries when they alone exceed it', async () => {
    const c = new ModelCatalog([
      entry('kept', 50, NOW - 9 * HOUR),
      entry('fresh', 50, NOW - MIN),
      entry('other', 50, NOW - 8 * HOUR),
    ]);
    const report = await sweepWith(c, { maxTotalBytes: 60, keep: (e) => e.locator === 'kept' });
    expect([...c.entries.keys()].sort()).toEqual(['fresh', 'kept']);
    expect(report.limits.total).toEqual({ limit: 60, bytes: 100, met: false, reason: 'protected' });
    expect(report.kept.byReason).toEqual({ keep: { count: 1, bytes: 50 }, grace: { count: 1, bytes: 50 } });
  });

  it('names sessions that stay over their quota', async () => {
    const c = new ModelCatalog([entry('a1', 50, NOW - MIN, 'a'), entry('a2', 50, NOW - 2 * MIN, 'a')]);
    const report = await sweepWith(c, { maxSessionBytes: 10 });
    expect(report.limits.session).toEqual({
      limit: 10,
      overCount: 1,
      over: [{ session: sessionKey('a'), bytes: 100, reason: 'protected' }],
    });
  });

  it('finds the exact cutoff among thousands of artifacts created in the same millisecond', async () => {
    const items = Array.from({ length: 5000 }, (_, i) => entry(`same-${i}`, 1 + (i % 7), NOW - DAY));
    const c = new ModelCatalog(items, 'shuffled');
    const expected = referenceSweep(items, { start: NOW, graceMs: 5 * MIN, maxTotalBytes: 9000, keep: new Set() });
    const tuning = { ...DEFAULT_TUNING, collectBudget: 100, globalBuckets: 64 };
    const report = await sweepWith(c, { maxTotalBytes: 9000 }, tuning);
    expect(new Set(items.map((e) => e.locator).filter((l) => !c.entries.has(l)))).toEqual(expected);
    expect(c.totalBytes()).toBeLessThanOrEqual(9000);
    // A scan, one histogram over the locator hash (all share one millisecond), then a
    // last pass that collects the ~80 entries of the boundary bucket and deletes.
    expect(report.passes).toBe(3);
  });
});

describe('failures', () => {
  it('reports a failed deletion and goes on with the rest', async () => {
    const c = new ModelCatalog([entry('a', 10, NOW - 9 * DAY), entry('b', 10, NOW - 9 * DAY), entry('c', 10, NOW - 9 * DAY)]);
    c.failDelete.add('b');
    const report = await sweepWith(c, { maxAgeMs: DAY, maxTotalBytes: 0 });
    expect([...c.entries.keys()]).toEqual(['b']);
    expect(report.deleted.count).toBe(2);
    expect(report.errorCount).toBe(1);
    expect(report.errors[0]).toMatchObject({ phase: 'delete', locator: 'b', code: 'SPILL_STORAGE_FAILED' });
    expect(report.limits.total).toMatchObject({ met: false, reason: 'failures', bytes: 10 });
    expect(report.complete).toBe(true);
  });

  it('counts an artifact that vanished before its deletion apart from deleted ones', async () => {
    const c = new ModelCatalog([entry('a', 10, NOW - 9 * DAY)]);
    c.vanishOnDelete.add('a');
    const report = await sweepWith(c, { maxAgeMs: DAY });
    expect(report.deleted.count).toBe(0);
    expect(report.vanished).toEqual({ count: 1, bytes: 10 });
    expect(report.remaining).toEqual({ count: 0, bytes: 0 });
  });

  it('stops with complete: false when the listing fails, and does not sweep temp files', async () => {
    const c = new ModelCatalog([entry('a', 10, NOW - 9 * DAY), entry('b', 10, NOW - 9 * DAY)]);
    c.failListAfter = 1;
    const report = await sweepWith(c, { maxAgeMs: DAY });
    expect(report.complete).toBe(false);
    expect(report.errors).toMatchObject([{ phase: 'list', code: 'SPILL_STORAGE_FAILED' }]);
    expect(c.sweepTempCalls).toEqual([]);
  });

  it('stops a quota sweep that cannot list before deleting anything, and does not claim the limit is met', async () => {
    const c = new ModelCatalog([entry('a', 10, NOW - 9 * DAY), entry('b', 10, NOW - 9 * DAY)]);
    c.failListAfter = 1;
    const report = await sweepWith(c, { maxTotalBytes: 0 });
    expect(c.entries.size).toBe(2);
    expect(report.limits.total).toMatchObject({ met: false, reason: 'failures' });
  });

  it('stops when aborted, reporting SPILL_ABORTED', async () => {
    const items = Array.from({ length: 20 }, (_, i) => entry(`e${i}`, 1, NOW - 9 * DAY));
    const c = new ModelCatalog(items);
    const controller = new AbortController();
    c.between = (i) => {
      if (i === 4) controller.abort();
    };
    const r = createRetention({ catalog: c, now: clock, maxAgeMs: DAY });
    const report = await r.sweep({ signal: controller.signal });
    expect(report.complete).toBe(false);
    expect(report.errors).toMatchObject([{ phase: 'list', code: 'SPILL_ABORTED' }]);
    expect(c.entries.size).toBe(15);
  });

  it('reports a failing temp sweep without failing the sweep', async () => {
    const c = new ModelCatalog([]);
    c.sweepTempResult = new SpillError('SPILL_STORAGE_FAILED', 'temp dir unreadable');
    const report = await sweepWith(c, {});
    expect(report.complete).toBe(true);
    expect(report.errors).toMatchObject([{ phase: 'sweep-temp', code: 'SPILL_STORAGE_FAILED' }]);
  });
});

describe('temp files, dry runs, progress and report size', () => {
  it('asks the backend to remove temp files older than max(grace, 1h)', async () => {
    const c = new ModelCatalog([]);
    c.sweepTempResult = { removed: 2, bytes: 300 };
    const report = await sweepWith(c, { graceMs: 2 * MIN });
    expect(c.sweepTempCalls).toEqual([{ olderThanMs: HOUR }]);
    expect(report.temp).toEqual({ removed: 2, bytes: 300 });
    await sweepWith(c, { graceMs: 3 * HOUR });
    expect(c.sweepTempCalls[1]).toEqual({ olderThanMs: 3 * HOUR });
  });

  it('deletes nothing in a dry run, skips the temp sweep, and reports what it would do', async () => {
    const items = Array.from({ length: 10 }, (_, i) => entry(`e${i}`, 10, NOW - (10 - i) * DAY));
    const c = new ModelCatalog(items, 'shuffled');
    const report = await sweepWith(c, { dryRun: true, maxAgeMs: 5 * DAY, maxTotalBytes: 30 }, TINY);
    expect(c.entries.size).toBe(10);
    expect(c.deleteCalls).toBe(0);
    expect(c.sweepTempCalls).toEqual([]);
    expect(report.dryRun).toBe(true);
    expect(report.temp).toBeNull();
    expect(report.deleted.byReason.age.count).toBe(5);
    expect(report.deleted.byReason['total-quota'].count).toBe(2);
    expect(report.remaining).toEqual({ count: 3, bytes: 30 });
  });

  it('reports progress with the total from the first pass', async () => {
    const items = Array.from({ length: 10 }, (_, i) => entry(`e${i}`, 10, NOW - (10 - i) * DAY));
    const c = new ModelCatalog(items);
    const seen: { phase: string; total: number | undefined }[] = [];
    await runSweep(
      resolveConfig({ catalog: c, now: clock, maxTotalBytes: 30 }),
      {
        onProgress: (p) => {
          seen.push({ phase: p.phase, total: p.total });
          throw new Error('a broken progress bar must not break the sweep');
        },
      },
      TINY,
    );
    expect(seen[0]).toEqual({ phase: 'scan', total: undefined });
    expect(seen.at(-1)).toEqual({ phase: 'delete', total: 10 });
    expect(c.entries.size).toBe(3);
  });

  it('names at most maxReportedEntries artifacts but counts them all', async () => {
    const items = Array.from({ length: 10 }, (_, i) => entry(`e${i}`, 1, NOW - 9 * DAY));
    const report = await sweepWith(new ModelCatalog(items), { maxAgeMs: DAY, maxReportedEntries: 3 });
    expect(report.deleted.count).toBe(10);
    expect(report.entries.deleted).toHaveLength(3);
    expect(report.entries.omitted).toBe(7);
  });

  it('limits a sweep to one session when asked', async () => {
    const c = new ModelCatalog([entry('a', 1, NOW - 9 * DAY, 'a'), entry('b', 1, NOW - 9 * DAY, 'b')]);
    const report = await createRetention({ catalog: c, now: clock, maxAgeMs: DAY }).sweep({ sessionId: sessionId('a') });
    expect([...c.entries.keys()]).toEqual(['b']);
    expect(report.scanned.count).toBe(1);
  });

  it('keeps at most deleteConcurrency deletions in flight', async () => {
    const items = Array.from({ length: 30 }, (_, i) => entry(`e${i}`, 1, NOW - 9 * DAY));
    const c = new ModelCatalog(items);
    let inFlight = 0;
    let peak = 0;
    const slow = c.delete.bind(c);
    c.delete = async (loc) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight -= 1;
      return slow(loc);
    };
    await sweepWith(c, { maxAgeMs: DAY, deleteConcurrency: 3 });
    expect(c.entries.size).toBe(0);
    expect(peak).toBe(3);
  });
});

describe('purgeSession', () => {
  it('deletes every artifact of the session, young or old, except kept ones and later saves', async () => {
    const c = new ModelCatalog([
      entry('old', 1, NOW - 9 * DAY, 'a'),
      entry('young', 2, NOW - 5000, 'a'),
      entry('kept', 3, NOW - 9 * DAY, 'a'),
      entry('later', 4, NOW + 10, 'a'),
      entry('other', 5, NOW - 9 * DAY, 'b'),
    ]);
    const r = createRetention({ catalog: c, now: clock, keep: (e) => e.locator === 'kept' });
    const report = await r.purgeSession(sessionId('a'));
    expect([...c.entries.keys()].sort()).toEqual(['kept', 'later', 'other']);
    expect(report.kind).toBe('purge');
    expect(report.deleted.byReason.purge).toEqual({ count: 2, bytes: 3 });
    expect(report.kept.byReason).toEqual({ keep: { count: 1, bytes: 3 }, grace: { count: 1, bytes: 4 } });
  });

  it('deletes nothing in a dry run', async () => {
    const c = new ModelCatalog([entry('old', 1, NOW - 9 * DAY, 'a')]);
    const report = await createRetention({ catalog: c, now: clock, dryRun: true }).purgeSession(sessionId('a'));
    expect(c.entries.size).toBe(1);
    expect(report.deleted.count).toBe(1);
  });

  it('reports failures and carries on', async () => {
    const c = new ModelCatalog([entry('x', 1, NOW - DAY, 'a'), entry('y', 1, NOW - DAY, 'a')]);
    c.failDelete.add('x');
    const report = await createRetention({ catalog: c, now: clock }).purgeSession(sessionId('a'));
    expect([...c.entries.keys()]).toEqual(['x']);
    expect(report.errors).toMatchObject([{ phase: 'delete', locator: 'x' }]);
  });
});

// ---------------------------------------------------------------------------------------
// Properties

const arbScenario = fc.record({
  entries: fc.uniqueArray(
    fc.record({
      id: fc.string({ minLength: 1, maxLength: 6 }),
      bytes: fc.nat({ max: 50 }),
      // Coarse ages with many ties, so same-millisecond narrowing gets exercised.
      ageMin: fc.integer({ min: -3, max: 40 }),
      session: fc.constantFrom('a', 'b', 'c'),
      kept: fc.boolean(),
    }),
    { selector: (e) => e.id, maxLength: 40 },
  ),
  maxAgeMs: fc.option(fc.integer({ min: 0, max: 40 }).map((m) => m * MIN), { nil: undefined }),
  maxTotalBytes: fc.option(fc.nat({ max: 600 }), { nil: undefined }),
  maxSessionBytes: fc.option(fc.nat({ max: 300 }), { nil: undefined }),
  graceMs: fc.integer({ min: 0, max: 10 }).map((m) => m * MIN),
  order: fc.constantFrom('insertion' as const, 'reverse' as const, 'shuffled' as const),
  tiny: fc.boolean(),
  seed: fc.nat(),
});

type Scenario = typeof arbScenario extends fc.Arbitrary<infer T> ? T : never;

function build(s: Scenario): { items: SpillEntry[]; keep: Set<string>; catalog: ModelCatalog } {
  const items = s.entries.map((e) => entry(e.id, e.bytes, NOW - e.ageMin * MIN, e.session));
  const keep = new Set(s.entries.filter((e) => e.kept).map((e) => e.id));
  return { items, keep, catalog: new ModelCatalog(items, s.order, s.seed) };
}

async function runScenario(s: Scenario, catalog: ModelCatalog, keep: Set<string>, dryRun = false) {
  const cfg = resolveConfig({
    catalog,
    now: clock,
    maxAgeMs: s.maxAgeMs,
    maxTotalBytes: s.maxTotalBytes,
    maxSessionBytes: s.maxSessionBytes,
    graceMs: s.graceMs,
    keep: (e) => keep.has(e.locator),
    dryRun,
  });
  return runSweep(cfg, {}, s.tiny ? TINY : DEFAULT_TUNING);
}

describe('properties', () => {
  it('deletes exactly what the in-memory reference rules delete', async () => {
    await fc.assert(
      fc.asyncProperty(arbScenario, async (s) => {
        const { items, keep, catalog } = build(s);
        const expected = referenceSweep(items, { start: NOW, ...s, keep });
        const report = await runScenario(s, catalog, keep);
        const gone = new Set(items.map((e) => e.locator as string).filter((l) => !catalog.entries.has(l)));
        expect(gone).toEqual(expected);
        expect(report.deleted.count).toBe(expected.size);
        expect(report.remaining.bytes).toBe(catalog.totalBytes());
      }),
      { numRuns: 300 },
    );
  });

  it('leaves every limit met, except where only protected artifacts remain over it (and says so)', async () => {
    await fc.assert(
      fc.asyncProperty(arbScenario, async (s) => {
        const { keep, catalog } = build(s);
        const report = await runScenario(s, catalog, keep);
        const left = [...catalog.entries.values()];
        const isProtected = (e: SpillEntry): boolean =>
          e.createdAt.getTime() >= NOW - s.graceMs || keep.has(e.locator);
        if (s.maxAgeMs !== undefined) {
          for (const e of left) if (e.createdAt.getTime() < NOW - s.maxAgeMs) expect(isProtected(e)).toBe(true);
        }
        if (s.maxTotalBytes !== undefined) {
          const total = catalog.totalBytes();
          const status = report.limits.total;
          expect(status?.bytes).toBe(total);
          if (total > s.maxTotalBytes) {
            expect(left.every(isProtected)).toBe(true);
            expect(status).toMatchObject({ met: false, reason: 'protected' });
          } else {
            expect(status?.met).toBe(true);
          }
        }
        if (s.maxSessionBytes !== undefined) {
          const limit = s.maxSessionBytes;
          const over = new Set<string>();
          for (const session of new Set(left.map((e) => e.session))) {
            const mine = left.filter((e) => e.session === session);
            if (mine.reduce((sum, e) => sum + e.bytes, 0) > limit) {
              over.add(session);
              expect(mine.every(isProtected)).toBe(true);
            }
          }
          expect(new Set(report.limits.session?.over.map((o) => o.session))).toEqual(over);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never deletes a kept artifact nor one younger than the grace period', async () => {
    await fc.assert(
      fc.asyncProperty(arbScenario, async (s) => {
        const { items, keep, catalog } = build(s);
        await runScenario(s, catalog, keep);
        for (const e of items) {
          if (keep.has(e.locator) || e.createdAt.getTime() >= NOW - s.graceMs) {
            expect(catalog.entries.has(e.locator)).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('plans in a dry run exactly what a real sweep then deletes', async () => {
    await fc.assert(
      fc.asyncProperty(arbScenario, async (s) => {
        const { keep, catalog } = build(s);
        const dry = await runScenario(s, catalog, keep, true);
        expect(catalog.deleteCalls).toBe(0);
        const real = await runScenario(s, catalog, keep);
        expect(dry.deleted).toEqual(real.deleted);
        expect(dry.remaining).toEqual(real.remaining);
      }),
      { numRuns: 150 },
    );
  });

  it('loses no artifact saved while the sweep runs, even with no grace period', async () => {
    await fc.assert(
      fc.asyncProperty(
        arbScenario,
        fc.array(fc.record({ after: fc.nat({ max: 60 }), bytes: fc.nat({ max: 80 }), session: fc.constantFrom('a', 'b', 'c') }), {
          maxLength: 15,
        }),
        async (s, saves) => {
          const { keep, catalog } = build(s);
          let now = NOW;
          let step = 0;
          const saved: string[] = [];
          // Saves land between listed entries of any pass, stamped by the same clock the
          // sweep read when it began (the clock only moves forward).
          catalog.between = () => {
            step += 1;
            for (const [i, save] of saves.entries()) {
              if (save.after === step) {
                now += 7;
                const loc = `saved-during-${i}`;
                catalog.add(entry(loc, save.bytes, now, save.session));
                saved.push(loc);
              }
            }
          };
          const cfg = resolveConfig({
            catalog,
            now: () => now,
            maxAgeMs: s.maxAgeMs,
            maxTotalBytes: s.maxTotalBytes ?? 0,
            maxSessionBytes: s.maxSessionBytes,
            graceMs: 0,
            keep: (e) => keep.has(e.locator),
          });
          await runSweep(cfg, {}, s.tiny ? TINY : DEFAULT_TUNING);
          for (const loc of saved) expect(catalog.entries.has(spillLocator(loc))).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
