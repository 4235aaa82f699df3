import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { dropSpareStrings, SessionAnalyzer, type CallFigures } from './analyze.js';
import { recommendCap, runAudit, wilsonUpper } from './audit.js';
import { isAuditError } from './errors.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-run-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const SESSION = 'aaaaaaaa-0000-4000-8000-000000000001';
const use = (id: string, name: string, input: unknown): string => JSON.stringify({ type: 'assistant', sessionId: SESSION, message: { content: [{ type: 'tool_use', id, name, input }] } });
const result = (id: string, content: unknown): string => JSON.stringify({ type: 'user', sessionId: SESSION, message: { content: [{ type: 'tool_result', tool_use_id: id, content }] } });
const rows = (n: number, middle: string): string => [...Array.from({ length: n }, (_, i) => `row-${String(i).padStart(6, '0')} ok`), middle, ...Array.from({ length: n }, (_, i) => `tail-${String(i).padStart(6, '0')} ok`)].join('\n');

/** A Claude Code config dir with one project and one session: a big Bash log whose hidden id is used later, a big MCP result nobody needs, a small one. */
function claudeConfig(): string {
  const config = join(dir, 'claude');
  mkdirSync(join(config, 'projects', '-home-user-app'), { recursive: true });
  writeFileSync(
    join(config, 'projects', '-home-user-app', `${SESSION}.jsonl`),
    [
      JSON.stringify({ type: 'user', sessionId: SESSION, message: { role: 'user', content: 'Build it.' } }),
      use('t1', 'Bash', { command: 'make' }),
      result('t1', rows(1500, 'artifact stored as blob_5e6f7a8b')),
      use('t2', 'mcp__db__query', { sql: 'select *' }),
      result('t2', [{ type: 'text', text: rows(3000, 'nothing to see') }]),
      use('t3', 'Bash', { command: 'cat out/blob_5e6f7a8b' }),
      result('t3', 'done'),
      'not json',
    ].join('\n'),
  );
  return config;
}

describe('runAudit on a Claude Code config dir', () => {
  it('finds the transcripts by CLAUDE_CONFIG_DIR and adds up per session, tool and server', async () => {
    const config = claudeConfig();
    const report = await runAudit({ format: 'claude-code', env: { CLAUDE_CONFIG_DIR: config }, home: '/nowhere', cap: 8192 });
    expect(report).toMatchObject({ files: 1, lines: 8, skippedLines: 1, callsWithoutOutput: 0, cap: 8192 });
    expect(report.total).toMatchObject({ calls: 3, spilled: 2, neededLater: 1, neededLaterHeadTail: 1, overHostLimit: 1, hostCut: 0 });
    // The Bash log is over the host's 30,000 characters with no note of a stored file: what the host showed is not known.
    expect(report.calls.map((c) => c.hostView)).toEqual(['unknown', 'whole', 'whole']);
    expect(report.total.tokensKeptOut).toBeGreaterThan(0);
    expect(report.total.tokensKeptOut).toBeLessThan(report.total.tokens);
    expect(report.sessions.map((s) => s.name)).toEqual([SESSION]);
    expect(report.tools.map((t) => [t.name, t.spilled, t.neededLater])).toEqual([
      ['db/query', 1, 0],
      ['Bash', 1, 1],
    ]);
    expect(report.servers.map((s) => s.name)).toEqual(['db']);
    expect(report.examples).toEqual([{ session: SESSION, tool: 'Bash', bytes: expect.any(Number) as number, string: 'blob_5e6f7a8b' }]);
    // With one of two spilled outputs needed, 10 % is met only by caps the Bash log fits under;
    // at the largest, one output still spills, not needed later: too few to be sure of the rate.
    const host = report.recommendations[0];
    expect(host?.scope).toBe('host');
    expect(host?.cap).toBeNull();
    expect(host?.unproven?.cap).toBe(65536);
    expect(host?.unproven?.neededRate).toBe(0);
    // A server with one tool spilling gets no recommendation of its own: it would be the tool's.
    expect(report.recommendations.map((r) => r.scope)).toEqual(['host', 'Bash', 'db/query']);
    // The query's one output (over every cap), not needed later, would favour 2 KiB; one output
    // cannot show that its rate stays under 10 %, so no cap is recommended and 2 KiB is unproven.
    const query = report.recommendations[2];
    expect(query?.unproven?.cap).toBe(2048);
    expect(query?.cap).toBeNull();
  });

  it('keeps no session\'s string tables once it is done on the calling thread', async () => {
    // A released session leaves its tables for the next one on this thread.
    const analyzer = new SessionAnalyzer('claude-code', [8192]);
    analyzer.push({ kind: 'text', session: 's', text: 'some_words here_1' });
    analyzer.release();
    await runAudit({ format: 'claude-code', env: { CLAUDE_CONFIG_DIR: claudeConfig() }, home: '/nowhere', threads: 1 });
    expect(dropSpareStrings()).toBe(false);
  });

  it('recommends a cap per MCP server whose tools spill, after the tools', async () => {
    const file = join(dir, 'servers.jsonl');
    const big = (word: string): string => Array.from({ length: 3000 }, (_, i) => `${word} row ${String(i)}`).join('\n');
    const line = (server: string, tool: string, output: string): string => JSON.stringify({ session: 's', server, tool, output });
    writeFileSync(file, [line('db', 'query', big('q')), line('db', 'schema', big('s')), line('docs', 'fetch', big('d')), line('db', 'query', 'ok')].join('\n'));
    const report = await runAudit({ format: 'generic', paths: [file], env: {}, home: '/nowhere' });
    expect(report.recommendations.map((r) => r.scope)).toEqual(['host', 'db/query', 'db/schema', 'docs/fetch', 'db/*']);
    expect(report.recommendations[4]?.candidates[0]).toMatchObject({ cap: 2048, spilled: 2 });
  });

  it('gives as examples only outputs whose needed string spillway\'s preview omitted', async () => {
    const file = join(dir, 'kept-by-preview.jsonl');
    const log = (word: string, middle: string): string => [...Array.from({ length: 1500 }, (_, i) => `${word} line ${String(i)} ok`), middle, ...Array.from({ length: 1500 }, (_, i) => `${word} end ${String(i)} ok`)].join('\n');
    const line = (tool: string, input: unknown, output: string): string => JSON.stringify({ session: 's1', server: 'ops', tool, input, output });
    writeFileSync(
      file,
      [
        // An error line: spillway's preview shows it among its excerpts, a plain head+tail does not.
        line('fetch_logs', { q: 'logs' }, log('fetch', 'ERROR: TypeError at srv/app/src/payment_v2.ts:42')),
        line('read', { path: 'srv/app/src/payment_v2.ts' }, 'ok'),
        // A plain line in the middle: both previews leave it out.
        line('dump', { q: 'all' }, log('dump', 'stored as blob_5e6f7a8b')),
        line('read', { path: 'out/blob_5e6f7a8b' }, 'ok'),
      ].join('\n'),
    );
    const report = await runAudit({ format: 'generic', paths: [file], env: {}, home: '/nowhere' });
    const at = (tool: string) => report.calls.find((c) => c.tool === tool)?.caps.find((o) => o.cap === report.cap);
    expect(at('fetch_logs')).toMatchObject({ neededSpillway: false, neededHeadTail: true, example: 'srv/app/src/payment_v2.ts' });
    expect(at('dump')).toMatchObject({ neededSpillway: true, neededHeadTail: true, example: 'blob_5e6f7a8b' });
    expect(report.total).toMatchObject({ spilled: 2, neededLater: 1, neededLaterHeadTail: 2 });
    expect(report.examples).toEqual([{ session: 's1', tool: 'ops/dump', bytes: expect.any(Number) as number, string: 'blob_5e6f7a8b' }]);
  });

  it('a rate of 100 % takes the smallest cap', async () => {
    const report = await runAudit({ format: 'claude-code', paths: [join(dir, 'claude', 'projects')], env: {}, home: '/nowhere', maxNeeded: 1 });
    expect(report.recommendations[0]?.cap).toBe(2048);
  });

  it('errors have stable codes', async () => {
    const fail = (options: Parameters<typeof runAudit>[0]): Promise<unknown> => runAudit(options).then(() => undefined, (e: unknown) => e);
    expect(isAuditError(await fail({ format: 'codex', env: { CODEX_HOME: join(dir, 'none') }, home: dir }), 'AUDIT_NOT_FOUND')).toBe(true);
    expect(isAuditError(await fail({ format: 'generic', env: {}, home: dir }), 'AUDIT_NOT_FOUND')).toBe(true);
    mkdirSync(join(dir, 'empty'));
    expect(isAuditError(await fail({ format: 'generic', paths: [join(dir, 'empty')], env: {}, home: dir }), 'AUDIT_NOT_FOUND')).toBe(true);
    expect(isAuditError(await fail({ format: 'generic', paths: [dir], env: {}, home: dir, cap: 0 }), 'AUDIT_INVALID_OPTION')).toBe(true);
    expect(isAuditError(await fail({ format: 'generic', paths: [dir], env: {}, home: dir, maxNeeded: 2 }), 'AUDIT_INVALID_OPTION')).toBe(true);
  });
});

describe('wilsonUpper', () => {
  it('bounds the rate from above, tighter as more outputs are seen', () => {
    expect(wilsonUpper(0, 0)).toBe(0);
    expect(wilsonUpper(0, 3)).toBeCloseTo(0.474, 3);
    expect(wilsonUpper(0, 30)).toBeCloseTo(0.0827, 3);
    expect(wilsonUpper(5, 10)).toBeCloseTo(0.7307, 3);
    expect(wilsonUpper(10, 10)).toBe(1);
    // Rounding left these just under 1, below the rate they bound.
    for (const n of [6, 7, 11, 30, 37]) expect(wilsonUpper(n, n)).toBe(1);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 0, max: 500 }), (n, k0) => {
        const k = Math.min(k0, n);
        const upper = wilsonUpper(k, n);
        expect(upper).toBeGreaterThanOrEqual(k / n);
        expect(upper).toBeLessThanOrEqual(1);
        // The same rate seen over more outputs is bounded more tightly.
        if (k < n) expect(wilsonUpper(2 * k, 2 * n)).toBeLessThan(upper);
      }),
    );
  });
});

describe('recommendCap', () => {
  const CAPS = [1000, 2000, 4000, 8000];
  const call = fc.record({ bytes: fc.integer({ min: 0, max: 10_000 }), needBelow: fc.integer({ min: 0, max: 10_000 }) }).map(({ bytes, needBelow }): CallFigures => ({
    session: 's',
    tool: 't',
    bytes,
    tokens: Math.ceil(bytes / 4),
    overHostLimit: null,
    caps: CAPS.filter((c) => bytes > c).map((cap) => ({ cap, tokensKeptOut: Math.ceil((bytes - cap) / 4), neededHeadTail: cap < needBelow, neededSpillway: cap < needBelow })),
  }));

  it('the cap it picks meets the rate, and no cap that meets it keeps more out', () => {
    // Every output at the smallest cap needed, a limit just under 1: the rounding fault above picked it.
    const needed = (bytes: number, needBelow: number): CallFigures => ({ session: 's', tool: 't', bytes, tokens: Math.ceil(bytes / 4), overHostLimit: null, caps: CAPS.filter((c) => bytes > c).map((cap) => ({ cap, tokensKeptOut: Math.ceil((bytes - cap) / 4), neededHeadTail: cap < needBelow, neededSpillway: cap < needBelow })) });
    const r = recommendCap('host', [...Array.from({ length: 5 }, () => needed(1001, 1001)), needed(2001, 1001)], CAPS, 0.9999999999999999);
    expect(r.cap).toBe(2000);
    expect(r.unproven).toBeNull();
    fc.assert(
      fc.property(fc.array(call, { maxLength: 30 }), fc.double({ min: 0, max: 1, noNaN: true }), (calls, max) => {
        const r = recommendCap('host', calls, CAPS, max);
        const ok = r.candidates.filter((c) => c.spilled > 0 && c.neededRateUpper <= max);
        if (r.figures === null) {
          expect(ok).toEqual([]);
          return;
        }
        expect(r.figures.neededRateUpper).toBeLessThanOrEqual(max);
        expect(r.figures.spilled).toBeGreaterThan(0);
        for (const c of ok) expect(c.tokensKeptOut).toBeLessThanOrEqual(r.figures.tokensKeptOut);
        // What the measured rate alone would pick, when it differs, keeps more out but is not proven.
        if (r.unproven !== null) {
          expect(r.unproven.neededRate).toBeLessThanOrEqual(max);
          expect(r.unproven.neededRateUpper).toBeGreaterThan(max);
        }
        for (const c of r.candidates) expect(c.spilled).toBe(calls.filter((x) => x.bytes > c.cap).length);
      }),
    );
  });
});
