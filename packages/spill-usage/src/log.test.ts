import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync, chmodSync, symlinkSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createUsageLog, summarizeUsage, usageDigest, usageListener, USAGE_FILE, USAGE_OLD_FILE } from './index.js';

const dirs: string[] = [];
function tmp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'usage-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('usage log', () => {
  it('writes private files that hold digests and sizes, never ids, locators or text', () => {
    const dir = join(tmp(), 'usage');
    const log = createUsageLog({ dir, env: {} });
    const locator = '/home/u/.local/state/spillway/session-x/abc-secret-name.txt';
    log.record({ kind: 'spilled', surface: 'hook', host: 'claude-code', tool: 'Bash', session: 'my-secret-session', artifact: locator, bytes: 2_000_000, shownBytes: 24_000 });
    const text = readFileSync(join(dir, USAGE_FILE), 'utf8');
    expect(text).not.toContain('secret');
    expect(text).toContain(usageDigest(locator));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, USAGE_FILE)).mode & 0o777).toBe(0o600);
    expect(log.read()).toEqual([expect.objectContaining({ kind: 'spilled', host: 'claude-code', tool: 'Bash', bytes: 2_000_000, shownBytes: 24_000 })]);
  });

  it('is off with SPILLWAY_USAGE=off and creates nothing', () => {
    const dir = join(tmp(), 'usage');
    const log = createUsageLog({ dir, env: { SPILLWAY_USAGE: 'off' } });
    log.record({ kind: 'passed', surface: 'run', bytes: 3 });
    expect(log.enabled).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it('stays bounded: rotates into one older generation', () => {
    const dir = join(tmp(), 'usage');
    const log = createUsageLog({ dir, env: {}, maxFileBytes: 2000 });
    for (let i = 0; i < 500; i++) log.record({ kind: 'passed', surface: 'run', tool: 'npm', bytes: i });
    const size = statSync(join(dir, USAGE_FILE)).size + statSync(join(dir, USAGE_OLD_FILE)).size;
    expect(size).toBeLessThanOrEqual(4000);
    const events = log.read();
    expect(events.length).toBeGreaterThan(10);
    expect(events.at(-1)?.bytes).toBe(499);
  });

  it('refuses a shared directory, a symlinked file, and never throws', () => {
    const shared = join(tmp(), 'shared');
    mkdirSync(shared, { mode: 0o777 });
    chmodSync(shared, 0o777);
    const log = createUsageLog({ dir: shared, env: {} });
    log.record({ kind: 'passed', surface: 'run' });
    expect(log.enabled).toBe(false);
    expect(existsSync(join(shared, USAGE_FILE))).toBe(false);

    const dir = join(tmp(), 'usage');
    mkdirSync(dir, { mode: 0o700 });
    const target = join(tmp(), 'target');
    writeFileSync(target, '');
    symlinkSync(target, join(dir, USAGE_FILE));
    expect(() => {
      createUsageLog({ dir, env: {} }).record({ kind: 'passed', surface: 'run' });
    }).not.toThrow();
    expect(readFileSync(target, 'utf8')).toBe('');
  });

  it('creates nothing under a home that does not exist', () => {
    const home = join(tmp(), 'missing-home');
    const log = createUsageLog({ env: {}, home });
    log.record({ kind: 'passed', surface: 'run' });
    expect(log.enabled).toBe(false);
    expect(existsSync(home)).toBe(false);
  });

  it('skips malformed lines', () => {
    const dir = join(tmp(), 'usage');
    const log = createUsageLog({ dir, env: {} });
    log.record({ kind: 'passed', surface: 'run', bytes: 1 });
    writeFileSync(join(dir, USAGE_FILE), 'garbage\n{"v":2}\n', { flag: 'a' });
    log.record({ kind: 'passed', surface: 'run', bytes: 2 });
    expect(log.read().map((e) => e.bytes)).toEqual([1, 2]);
  });
});

describe('summarizeUsage', () => {
  it('counts per host and tool, joins reads to spills, and filters a session', () => {
    const dir = join(tmp(), 'usage');
    let t = 1_000_000;
    const log = createUsageLog({ dir, env: {}, now: () => t });
    const listen = usageListener(log, { surface: 'mcp', host: 'codex', session: 's1' });
    listen({ type: 'spilled', toolName: 'read_text_file', bytes: 500_000, shownBytes: 8000, locator: '/a' });
    log.record({ kind: 'passed', surface: 'hook', host: 'claude-code', tool: 'Bash', session: 's2', bytes: 10 });
    t += 4000;
    log.record({ kind: 'read', surface: 'mcp', session: 's1', artifact: '/a' });
    t += 1000;
    log.record({ kind: 'read', surface: 'mcp', session: 's1', artifact: '/a' });
    log.record({ kind: 'read', surface: 'read', session: 's1', artifact: '/elsewhere' });
    const stats = summarizeUsage(log.read());
    expect(stats.total).toMatchObject({ results: 2, spilled: 1, bytesSeen: 500_010, bytesKeptOut: 492_000, tokensKeptOut: 123_000 });
    expect(stats.total.readBack).toEqual({ artifacts: 1, reads: 2, medianSecondsToFirstRead: 4, maxSecondsToFirstRead: 4 });
    expect(stats.rows[0]).toMatchObject({ host: 'codex', tool: 'read_text_file', spilled: 1 });
    expect(stats.unmatchedReads).toBe(1);
    expect(summarizeUsage(log.read(), { session: 's2' }).total).toMatchObject({ results: 1, spilled: 0 });
  });

  it('totals equal the sum of the rows, for any events', () => {
    const event = fc.record({
      kind: fc.constantFrom('passed', 'spilled', 'kept', 'read'),
      host: fc.constantFrom('a', 'b', undefined),
      tool: fc.constantFrom('x', 'y', undefined),
      artifact: fc.constantFrom('p', 'q', 'r', undefined),
      bytes: fc.nat(1e6),
      shownBytes: fc.nat(1e6),
      t: fc.nat(1e9),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), (raw) => {
        const events = raw.map((e) => ({ v: 1 as const, surface: 's', ...e, artifact: e.artifact === undefined ? undefined : usageDigest(e.artifact) }));
        const stats = summarizeUsage(events as never);
        const sum = (key: 'results' | 'spilled' | 'kept' | 'bytesSeen' | 'bytesKeptOut'): number => stats.rows.reduce((n, r) => n + r[key], 0);
        for (const key of ['results', 'spilled', 'kept', 'bytesSeen', 'bytesKeptOut'] as const) expect(sum(key)).toBe(stats.total[key]);
        expect(stats.rows.reduce((n, r) => n + r.readBack.reads, 0)).toBe(stats.total.readBack.reads);
        expect(stats.total.readBack.artifacts).toBeLessThanOrEqual(stats.total.spilled);
      }),
    );
  });
});
