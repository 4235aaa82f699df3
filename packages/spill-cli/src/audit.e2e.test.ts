import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, spillway } from './test-bin.js';

const SESSION = 'bbbbbbbb-0000-4000-8000-000000000002';
const SECRET = 'only_in_the_middle_4711';
let dir: string;
let config: string;
let transcript: string;

const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: dir, CLAUDE_CONFIG_DIR: config, NO_COLOR: '1' });
const rows = (n: number): string[] => Array.from({ length: n }, (_, i) => `line-${String(i).padStart(6, '0')} nothing here`);

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'audit-cli-'));
  config = join(dir, 'claude');
  const project = join(config, 'projects', '-home-me-app');
  mkdirSync(project, { recursive: true });
  transcript = join(project, `${SESSION}.jsonl`);
  const line = (type: 'assistant' | 'user', content: unknown): string => JSON.stringify({ type, sessionId: SESSION, message: { content: [content] } });
  writeFileSync(
    transcript,
    [
      line('assistant', { type: 'tool_use', id: 'u1', name: 'Bash', input: { command: 'npm test' } }),
      line('user', { type: 'tool_result', tool_use_id: 'u1', content: [...rows(2000), `cache at ${SECRET}`, ...rows(2000)].join('\n') }),
      line('assistant', { type: 'tool_use', id: 'u2', name: 'mcp__files__read', input: { path: `/tmp/${SECRET}` } }),
      line('assistant', { type: 'tool_use', id: 'u3', name: 'evil\u001b]0;owned\u0007', input: {} }),
      line('user', { type: 'tool_result', tool_use_id: 'u3', content: 'x' }),
      line('user', { type: 'tool_result', tool_use_id: 'u2', content: [{ type: 'text', text: 'short' }] }),
      '{"type":"assistant", cut off',
    ].join('\n'),
  );
}, 60_000);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('spillway audit', () => {
  it('summarises without printing transcript content, recommends a cap, and writes nothing', async () => {
    const before = { bytes: readFileSync(transcript), mtime: statSync(transcript).mtimeMs, entries: readdirSync(config, { recursive: true }) };
    const r = await spillway(['audit', '--cap', '16384'], { env: env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('1 transcript file, 1 session, 3 tool outputs');
    expect(r.out).toContain('evil\\u001b]0;owned\\u0007');
    expect(r.out).not.toContain('\u001b');
    expect(r.out).toContain('at the cap of 16384 bytes: 1 spilled');
    expect(r.out).toContain("needed later: 1 of 1 with spillway's preview, 1 with a plain head+tail");
    expect(r.out).toContain('(1 of 7 lines could not be read and were skipped');
    // The log (about 130 KB) is over every candidate cap and needed later: no cap meets 10 %.
    expect(r.out).toContain('no cap keeps the needed-later rate under 10 %');
    expect(r.out).not.toContain(SECRET);
    expect(r.out).not.toContain('line-000');
    expect({ bytes: readFileSync(transcript), mtime: statSync(transcript).mtimeMs, entries: readdirSync(config, { recursive: true }) }).toEqual(before);
  });

  it('--host opencode reads the database under XDG_DATA_HOME and writes nothing beside it', async () => {
    // Trimmed from a recorded OpenCode 1.18.33 session (see @spillway/audit's fixtures).
    const data = join(dir, 'share');
    cpSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'spill-audit', 'src', 'fixtures', 'opencode'), join(data, 'opencode'), { recursive: true });
    const before = readdirSync(join(data, 'opencode'), { recursive: true }).sort();
    const r = await spillway(['audit', '--host', 'opencode'], { env: { ...env(), XDG_DATA_HOME: data } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('opencode: 1 transcript file, 1 session, 3 tool outputs');
    expect(r.out).toContain('at the cap of 16384 bytes: 1 spilled');
    expect(r.out).toContain("needed later: 1 of 1 with spillway's preview, 1 with a plain head+tail");
    expect(r.out).toContain('(2 outputs the host stored in files itself: 1 read from their files, 1 judged by the note');
    expect(r.out).not.toContain('key_9d8e');
    expect(readdirSync(join(data, 'opencode'), { recursive: true }).sort()).toEqual(before);
  });

  it('a few large outputs never needed later are too few to recommend a small cap: it says so, and keeps the setup cap', async () => {
    const file = join(dir, 'few.jsonl');
    const big = (i: number): string => JSON.stringify({ session: 'few', tool: 'Bash', input: { command: `build ${String(i)}` }, output: rows(3000).join('\n') });
    writeFileSync(file, `${[big(1), big(2), big(3)].join('\n')}\n`);
    const r = await spillway(['audit', '--host', 'generic', file], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    // No spillway setup configures a harness: the advice names the cap and where it goes, not setup.
    expect(r.out).toContain('too few outputs spilled to recommend a cap with confidence; keep a cap of 24576 bytes, the default for generic transcripts (no spillway setup configures a harness: it passes the cap as maxInlineBytes; --cap audits another), and audit more sessions');
    expect(r.out).not.toContain('cap spillway setup writes');
    expect(r.out).toMatch(/\(2048 bytes would keep about \S+ tokens out, needed later 0 of 3: too few outputs spilled there/);
    const json = JSON.parse((await spillway(['audit', '--host', 'generic', '--json', file], { env: env() })).out) as { recommendations: { cap: number | null; unproven: { cap: number; neededRateUpper: number } | null }[] };
    expect(json.recommendations[0]?.cap).toBeNull();
    expect(json.recommendations[0]?.unproven?.cap).toBe(2048);
    expect(json.recommendations[0]?.unproven?.neededRateUpper).toBeGreaterThan(0.1);
    // A recommended cap for a harness goes in its maxInlineBytes, not in a setup command.
    const any = await spillway(['audit', '--host', 'generic', '--max-needed', '100%', file], { env: env() });
    expect(any.out).toContain('recommended cap: 2048 bytes');
    expect(any.out).toContain('  (pass it to spillway as maxInlineBytes in your harness)');
    expect(any.out).not.toContain('spillway setup');
  });

  it('outputs all under the smallest cap: nothing would spill, so no cap is recommended and the setup cap is kept', async () => {
    const file = join(dir, 'small.jsonl');
    const small = (i: number): string => JSON.stringify({ session: 'small', tool: 'Bash', input: { command: `ls ${String(i)}` }, output: rows(20).join('\n') });
    writeFileSync(file, `${[small(1), small(2)].join('\n')}\n`);
    const r = await spillway(['audit', '--host', 'generic', file], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toContain('no output is over 2048 bytes, so nothing would spill; keep a cap of 24576 bytes, the default for generic transcripts (no spillway setup configures a harness: it passes the cap as maxInlineBytes; --cap audits another)');
    expect(r.out).not.toContain('cap spillway setup writes');
    expect(r.out).not.toContain('spillway setup generic');
    const json = JSON.parse((await spillway(['audit', '--host', 'generic', '--json', file], { env: env() })).out) as { recommendations: { cap: number | null; unproven: unknown }[] };
    expect(json.recommendations[0]).toMatchObject({ cap: null, unproven: null });
  });

  it('--max-needed 100% gives the setup command; --examples shows the string', async () => {
    const r = await spillway(['audit', '--max-needed', '100%', '--examples'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.out).toContain('spillway setup claude-code --max-inline-bytes 2048');
    expect(r.out).toContain(`Bash (`);
    expect(r.out).toContain("needed later with spillway's preview (the string a later call used");
    expect(r.out).toContain(`: ${SECRET}`);
  });

  it('--examples lists, in the text as in --json, only outputs whose needed string spillway\'s preview omitted', async () => {
    const file = join(dir, 'kept-by-preview.jsonl');
    // An error line in the middle: spillway's preview shows it, a plain head+tail does not.
    const log = [...rows(1500), 'ERROR: TypeError at srv/app/src/payment_v2.ts:42', ...rows(1500)].join('\n');
    writeFileSync(file, `${[JSON.stringify({ session: 's1', server: 'ops', tool: 'fetch_logs', input: { q: 'logs' }, output: log }), JSON.stringify({ session: 's1', tool: 'Read', input: { path: 'srv/app/src/payment_v2.ts' }, output: 'ok' })].join('\n')}\n`);
    const r = await spillway(['audit', '--host', 'generic', '--examples', file], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toContain("needed later: 0 of 1 with spillway's preview, 1 with a plain head+tail");
    expect(r.out).not.toContain('payment_v2');
    expect(r.out).not.toContain('needed later with spillway');
    const json = JSON.parse((await spillway(['audit', '--host', 'generic', '--examples', '--json', file], { env: env() })).out) as { examples: unknown[]; calls: { caps: { cap: number; neededSpillway: boolean; neededHeadTail: boolean; example?: string }[] }[] };
    expect(json.examples).toEqual([]);
    expect(json.calls[0]?.caps.find((c) => c.cap === 24576)).toMatchObject({ neededSpillway: false, neededHeadTail: true, example: 'srv/app/src/payment_v2.ts' });
  });

  it('--json has every figure and no content unless --examples', async () => {
    const r = await spillway(['audit', config, '--json'], { env: { PATH: process.env.PATH, HOME: dir } });
    expect(r.code).toBe(0);
    expect(r.out).not.toContain(SECRET);
    const report = JSON.parse(r.out) as { cap: number; total: { calls: number; spilled: number; neededLater: number }; tools: { name: string }[]; skipped: { line: number; reason: string }[]; examples: object[]; recommendations: { scope: string }[]; calls: { tool: string; caps: unknown[] }[] };
    expect(report.cap).toBe(24576);
    expect(report.total).toMatchObject({ calls: 3, spilled: 1, neededLater: 1 });
    expect(report.tools.map((t) => t.name)).toEqual(['Bash', 'evil\u001b]0;owned\u0007', 'files/read']);
    expect(report.skipped).toEqual([{ file: transcript, line: 7, reason: 'not JSON' }]);
    expect(report.examples).toEqual([{ session: SESSION, tool: 'Bash', bytes: expect.any(Number) as number }]);
    expect(report.recommendations.map((x) => x.scope)).toEqual(['host', 'Bash']);
    expect(report.calls.map((c) => [c.tool, c.caps.length > 0])).toEqual([['Bash', true], ['evil\u001b]0;owned\u0007', false], ['read', false]]);
    const withExamples = JSON.parse((await spillway(['audit', config, '--json', '--examples'], { env: env() })).out) as { calls: { caps: { example?: string }[] }[] };
    expect(withExamples.calls[0]?.caps.some((c) => c.example === SECRET)).toBe(true);
  });

  it('errors: stable codes and exit codes', async () => {
    const missing = await spillway(['audit', join(dir, 'nope'), '--json'], { env: env() });
    expect(missing.code).toBe(3);
    expect(JSON.parse(missing.stderr)).toMatchObject({ error: { code: 'AUDIT_NOT_FOUND', exitCode: 3 } });
    const codex = await spillway(['audit', '--host', 'codex'], { env: env() });
    expect(codex.code).toBe(3);
    expect(codex.stderr).toContain('[AUDIT_NOT_FOUND]');
    // An option runAudit refuses is refused with its code, also when the CLI sees it first.
    for (const [option, value] of [['--host', 'emacs'], ['--cap', '0'], ['--cap', 'abc'], ['--max-needed', '1.5'], ['--max-needed', '101%'], ['--threads', '0']] as const) {
      const r = await spillway(['audit', option, value, '--json'], { env: env() });
      expect(r.code, `${option} ${value}`).toBe(2);
      expect(JSON.parse(r.stderr), `${option} ${value}`).toMatchObject({ error: { code: 'AUDIT_INVALID_OPTION', exitCode: 2, message: expect.stringContaining(`${option} '${value}'`) as unknown } });
    }
    // A bare number is a share, a number with % a percentage: never one read as the other.
    for (const [value, share] of [['0.5', 0.5], ['50%', 0.5], ['1', 1], ['100%', 1], ['1%', 0.01], ['0', 0]] as const) {
      const r = await spillway(['audit', '--max-needed', value, '--json'], { env: env() });
      expect(r.code, value).toBe(0);
      expect((JSON.parse(r.out) as { maxNeeded: number }).maxNeeded, value).toBe(share);
    }
    for (const value of ['1.5', '2', '101', '101%']) {
      const r = await spillway(['audit', '--max-needed', value], { env: env() });
      expect(r.code, value).toBe(2);
      expect(r.stderr).toContain('a share between 0 and 1, or a percentage such as 10%');
      expect(r.stderr).toContain('[AUDIT_INVALID_OPTION]');
    }
    for (const threads of ['0', '1.5', 'two']) {
      const r = await spillway(['audit', '--threads', threads], { env: env() });
      expect(r.code, threads).toBe(2);
      expect(r.stderr).toContain('--threads');
    }
  });

  it('--threads sets how many threads read, never what the report says', async () => {
    const one = await spillway(['audit', config, '--json', '--threads', '1'], { env: env() });
    const two = await spillway(['audit', config, '--json', '--threads', '2'], { env: env() });
    expect(one.code).toBe(0);
    expect(two.out).toBe(one.out);
  });

  it('--html writes one self-contained page, never among the transcripts', async () => {
    const page = join(dir, 'audit.html');
    const r = await spillway(['audit', '--html', page], { env: env() });
    expect(r.code).toBe(0);
    expect(r.out).toContain(`(the page is in ${page})`);
    const html = readFileSync(page, 'utf8');
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script|src="|href="/i);
    expect(html).not.toContain(SECRET);
    const again = await spillway(['audit', '--html', page, '--json'], { env: env() });
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr)).toMatchObject({ error: { code: 'FILE_EXISTS', exitCode: 1 } });
    expect(readFileSync(page, 'utf8')).toBe(html);
    const inside = await spillway(['audit', '--html', join(config, 'projects', 'x.html')], { env: env() });
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain('[USAGE]');
    expect(readdirSync(join(config, 'projects'))).toEqual(['-home-me-app']);
  });

  it.skipIf(process.getuid?.() === 0)('an unreadable transcript is AUDIT_UNREADABLE', async () => {
    const locked = join(dir, 'locked.jsonl');
    writeFileSync(locked, '{}\n');
    chmodSync(locked, 0o000);
    const r = await spillway(['audit', '--host', 'generic', locked], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('[AUDIT_UNREADABLE]');
  });
});

describe('spillway audit: does spill_search find the needed part', () => {
  type SearchJson = { total: { neededLater: number; foundBySearch?: number }; search?: { checked: number; found: number; foundWithoutNeeded: number; unchecked: number } };
  /** A generic transcript: a large output with `middle` among plain rows, then a call with `command`. */
  const transcriptWith = (name: string, middle: string, command: string): string => {
    const file = join(dir, name);
    const lines = [
      JSON.stringify({ session: 'found', tool: 'Bash', input: { command: 'make all' }, output: [...rows(1500), middle, ...rows(1500)].join('\n') }),
      JSON.stringify({ session: 'found', tool: 'Bash', input: { command }, output: 'ok' }),
    ];
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };

  it('finds it by the call\'s other words, or only by the needed string, and says which', async () => {
    // The later call's other words ("region") are on the needed line: found either way.
    const both = transcriptWith('search-both.jsonl', 'deployed dep_9f8e7d6c to region eu-west', 'kubectl rollout status dep_9f8e7d6c --region');
    const a = JSON.parse((await spillway(['audit', '--host', 'generic', '--json', both], { env: env() })).out) as SearchJson;
    expect(a.total).toMatchObject({ neededLater: 1, foundBySearch: 1 });
    expect(a.search).toEqual({ checked: 1, found: 1, foundWithoutNeeded: 1, unchecked: 0 });
    // Its other word ("restore") is nowhere in the output: only the needed string finds it.
    const only = transcriptWith('search-only.jsonl', 'cache key ck_1a2b3c4d written', 'restore ck_1a2b3c4d');
    const b = JSON.parse((await spillway(['audit', '--host', 'generic', '--json', only], { env: env() })).out) as SearchJson;
    expect(b.total).toMatchObject({ neededLater: 1, foundBySearch: 1 });
    expect(b.search).toEqual({ checked: 1, found: 1, foundWithoutNeeded: 0, unchecked: 0 });
    const r = await spillway(['audit', '--host', 'generic', only], { env: env() });
    expect(r.stderr).toBe('');
    expect(r.out).toContain("spill_search, given the later call's words, finds 1 of 1; without the needed strings, 0");
    expect(r.out).not.toContain('ck_1a2b3c4d');
    const off = await spillway(['audit', '--host', 'generic', '--no-search', '--json', only], { env: env() });
    expect(JSON.parse(off.out)).not.toHaveProperty('search');
    expect(off.out).not.toContain('foundBySearch');
  });

  it('goes on without the check when libsql does not load, and says so', async () => {
    const only = transcriptWith('search-blocked.jsonl', 'cache key ck_5e6f7a8b written', 'restore ck_5e6f7a8b');
    // A resolve hook that refuses libsql, as on a platform without its binary.
    const hook = join(dir, 'no-libsql.mjs');
    writeFileSync(hook, `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent('export async function resolve(s, c, next) { if (s === "libsql") throw new Error("no libsql here"); return next(s, c); }'));\n`);
    const blocked = { ...env(), NODE_OPTIONS: `--import ${hook}` };
    const r = await spillway(['audit', '--host', 'generic', only], { env: blocked });
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toContain('needed later: 1 of 1');
    expect(r.out).toContain('(spill_search could not run here, its libsql binary did not load');
    expect(r.out).not.toContain('finds 1 of 1');
    const json = await spillway(['audit', '--host', 'generic', '--json', only], { env: blocked });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).not.toHaveProperty('search');
    expect(json.stderr).toContain('spill_search could not run here');
  });
});
