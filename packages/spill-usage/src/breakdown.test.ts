import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { summarizeUsage, toStored, usageBreakdown, usageDigest, USAGE_SIZE_BOUNDS, type StoredUsageEvent, type UsageEvent } from './index.js';

const serverOf = (tool: string): string | undefined => /^mcp__([^_]+)__/.exec(tool)?.[1];

const eventArb = fc.record({
  kind: fc.constantFrom<UsageEvent['kind'][]>('passed', 'spilled', 'kept', 'read'),
  tool: fc.constantFrom('Bash', 'mcp__gh__issues', 'mcp__fs__read', undefined),
  session: fc.constantFrom('s1', 's2', 's3', undefined),
  artifact: fc.constantFrom('a1', 'a2', 'a3', 'a4', undefined),
  bytes: fc.option(fc.nat({ max: 3_000_000 }), { nil: undefined }),
  shownBytes: fc.option(fc.nat({ max: 30_000 }), { nil: undefined }),
  t: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_900_000 }),
});

const stored = (events: readonly (Omit<UsageEvent, 'surface'> & { t: number })[]): StoredUsageEvent[] => events.map((e) => toStored({ ...e, surface: 'hook' }, e.t));

describe('usageBreakdown', () => {
  it('counts every result once in the sizes and the tools, and keeps out what summarizeUsage does', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 60 }), fc.constantFrom('s1', undefined), (raw, session) => {
        const events = stored(raw);
        const b = usageBreakdown(events, { session, serverOf });
        const results = events.filter((e) => e.kind !== 'read' && (session === undefined || e.session === usageDigest(session)));
        expect(b.sizes).toHaveLength(USAGE_SIZE_BOUNDS.length + 1);
        expect(b.sizes.reduce((n, s) => n + s.results, 0)).toBe(results.length);
        expect(b.tools.reduce((n, s) => n + s.results, 0)).toBe(results.length);
        expect(b.sizes.reduce((n, s) => n + s.spilled, 0)).toBe(results.filter((e) => e.kind === 'spilled').length);
        const total = summarizeUsage(events, { session }).total;
        expect(b.tools.reduce((n, g) => n + g.bytesKeptOut, 0)).toBe(total.bytesKeptOut);
        expect(b.servers.reduce((n, g) => n + g.results, 0)).toBe(results.filter((e) => e.tool?.startsWith('mcp__') === true).length);
        for (const s of b.sessions) {
          expect(s.points.filter((p) => p.kind !== 'read')).toHaveLength(s.results);
          expect(s.points.map((p) => p.t)).toEqual([...s.points.map((p) => p.t)].sort((x, y) => x - y));
          expect(s.from).toBeLessThanOrEqual(s.to);
        }
      }),
    );
  });

  it('puts sizes at the bucket bounds in the upper bucket, joins reads to the spill\'s session, and bounds the timelines', () => {
    const events = stored([
      { kind: 'passed', tool: 'Bash', session: 'a', bytes: 1023, t: 1000 },
      { kind: 'spilled', tool: 'mcp__gh__issues', session: 'a', artifact: 'x', bytes: 1024, shownBytes: 24, t: 2000 },
      { kind: 'read', artifact: 'x', t: 3000 },
      { kind: 'read', artifact: 'unknown', t: 3500 },
      { kind: 'spilled', tool: 'Bash', session: 'b', artifact: 'y', bytes: 5_000_000, shownBytes: 0, t: 4000 },
      { kind: 'passed', tool: 'Bash', bytes: 10, t: 5000 },
    ]);
    const b = usageBreakdown(events, { serverOf, maxSessions: 1 });
    expect(b.sizes.map((s) => s.results)).toEqual([2, 1, 0, 0, 0, 0, 1]);
    expect(b.servers).toEqual([{ name: 'gh', results: 1, spilled: 1, bytesKeptOut: 1000, tokensKeptOut: 250 }]);
    expect(b.tools.map((t) => t.name)).toEqual(['Bash', 'mcp__gh__issues']);
    expect(b.sessions.map((s) => s.session)).toEqual([usageDigest('b')]);
    expect(b.sessionsLeftOut).toBe(1);
    const a = usageBreakdown(events, { session: 'a' }).sessions[0];
    expect(a?.points.map((p) => p.kind)).toEqual(['passed', 'spilled', 'read']);
    expect(a?.reads).toBe(1);
    const few = usageBreakdown(events, { session: 'a', maxPoints: 2 }).sessions[0];
    expect(few?.points.map((p) => p.t)).toEqual([2000, 3000]);
  });
});
