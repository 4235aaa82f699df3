import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readTranscript, splitMcpName, MAX_NAMED_SKIPS, type ReadStats, type TranscriptEvent, type TranscriptFormat } from './transcript.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const dir = mkdtempSync(join(tmpdir(), 'audit-read-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function read(file: string, format: TranscriptFormat): Promise<{ events: TranscriptEvent[]; stats: ReadStats }> {
  const stats: ReadStats = { lines: 0, skipped: 0, skippedLines: [] };
  const events: TranscriptEvent[] = [];
  for await (const e of readTranscript(file, format, stats)) events.push(e);
  return { events, stats };
}

function write(name: string, lines: readonly string[]): string {
  const file = join(dir, name);
  writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
  return file;
}

describe('Claude Code session JSONL (trimmed from a recorded session of 2.1.328)', () => {
  it('pairs tool_use with tool_result, splits MCP names, names the cut line', async () => {
    const { events, stats } = await read(join(FIXTURES, 'claude-code.jsonl'), 'claude-code');
    const calls = events.filter((e) => e.kind === 'call');
    const results = events.filter((e) => e.kind === 'result');
    expect(calls.map((c) => (c.server === undefined ? c.tool : `${c.server}/${c.tool}`))).toEqual(['Bash', 'Bash', 'big/get_big', 'big/spill_grep', 'Bash', 'Bash', 'Bash', 'Bash']);
    expect(results.map((r) => r.id)).toEqual(calls.map((c) => c.id));
    expect(new Set(events.map((e) => e.session))).toEqual(new Set(['11111111-2222-4333-8444-555555555555']));
    // Block content ([{type:"text", text}]) and string content both come out as text.
    expect(results[2]?.output).toMatch(/^record 00000/);
    expect(results[3]?.output).toContain('MCP-NEEDLE-31337');
    expect(stats.skipped).toBe(1);
    expect(stats.skippedLines).toEqual([{ file: join(FIXTURES, 'claude-code.jsonl'), line: 4, reason: 'not JSON' }]);
  });
});

describe('Codex rollout JSONL (trimmed from a recorded session of 0.169.0)', () => {
  it('takes the session from session_meta and the server from the namespace', async () => {
    const { events, stats } = await read(join(FIXTURES, 'codex-rollout.jsonl'), 'codex');
    const calls = events.filter((e) => e.kind === 'call');
    expect(calls.map((c) => [c.server, c.tool, c.id])).toEqual([
      ['big', 'get_big', 'call_1'],
      ['big', 'spill_grep', 'call_2'],
      [undefined, 'exec_command', 'call_3'],
    ]);
    expect(calls[2]?.input).toContain('small-output-ok');
    expect(events.every((e) => e.session === '0000aaaa-1111-7222-8333-444455556666')).toBe(true);
    expect(events.filter((e) => e.kind === 'result')).toHaveLength(3);
    expect(stats.skipped).toBe(0);
  });

  it('reads custom tool calls and object outputs', async () => {
    const file = write('rollout-custom.jsonl', [
      JSON.stringify({ type: 'response_item', payload: { type: 'custom_tool_call', call_id: 'c1', name: 'apply_patch', input: '*** Begin Patch' } }),
      JSON.stringify({ type: 'response_item', payload: { type: 'custom_tool_call_output', call_id: 'c1', output: { content: 'Done!', success: true } } }),
      JSON.stringify({ type: 'response_item', payload: { type: 'function_call', name: 'shell' } }),
    ]);
    const { events, stats } = await read(file, 'codex');
    expect(events).toEqual([
      { kind: 'call', session: 'rollout-custom', id: 'c1', tool: 'apply_patch', input: '*** Begin Patch' },
      { kind: 'result', session: 'rollout-custom', id: 'c1', output: 'Done!' },
    ]);
    expect(stats.skippedLines).toEqual([{ file, line: 3, reason: 'no call_id or name' }]);
  });
});

describe('Gemini CLI chat JSONL (trimmed from a recorded session of 0.61.0)', () => {
  it('takes each call once from the rewritten messages, the server from displayName, errors as output', async () => {
    const { events, stats } = await read(join(FIXTURES, 'gemini-session.jsonl'), 'gemini');
    const calls = events.filter((e) => e.kind === 'call');
    expect(calls.map((c) => (c.server === undefined ? c.tool : `${c.server}/${c.tool}`))).toEqual(['run_shell_command', 'big/get_big', 'big/spill_grep', 'run_shell_command', 'run_shell_command']);
    expect(new Set(calls.map((c) => c.id)).size).toBe(5);
    expect(events.filter((e) => e.kind === 'result').map((r) => r.id)).toEqual(calls.map((c) => c.id));
    expect(events.every((e) => e.session === '22222222-3333-4444-8555-666666666666')).toBe(true);
    expect(calls[2]?.input).toContain('MCP-NEEDLE-31337');
    expect(events.some((e) => e.kind === 'text' && e.text === 'Run the scripted tools.')).toBe(true);
    expect(stats.skipped).toBe(0);
  });
});

describe('generic JSONL', () => {
  it('one object per line gives a call and its result', async () => {
    const file = write('generic.jsonl', [
      JSON.stringify({ session: 's1', tool: 'query', server: 'db', input: { sql: 'select 1' }, output: 'one row', t: 1 }),
      '[1,2]',
      JSON.stringify({ session: 's2', tool: 'fetch', input: 'https://example.com', output: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }),
      JSON.stringify({ session: 's2', tool: 'fetch' }),
    ]);
    const { events, stats } = await read(file, 'generic');
    expect(events).toEqual([
      { kind: 'call', session: 's1', id: 'generic-1', tool: 'query', server: 'db', input: '{"sql":"select 1"}' },
      { kind: 'result', session: 's1', id: 'generic-1', output: 'one row' },
      { kind: 'call', session: 's2', id: 'generic-2', tool: 'fetch', input: 'https://example.com' },
      { kind: 'result', session: 's2', id: 'generic-2', output: 'a\nb' },
    ]);
    expect(stats).toEqual({ lines: 4, skipped: 2, skippedLines: [{ file, line: 2, reason: 'not an object' }, { file, line: 4, reason: 'no output' }] });
  });

  it('any bytes at all never stop a read: every line is read, skips are counted, at most MAX_NAMED_SKIPS named', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary' }).map((s) => s.replace(/[\r\n]/g, '')), { maxLength: 40 }), async (lines) => {
        const file = write('noise.jsonl', lines);
        const { stats } = await read(file, 'generic');
        expect(stats.lines).toBe(lines.length);
        expect(stats.skippedLines.length).toBe(Math.min(stats.skipped, MAX_NAMED_SKIPS));
      }),
      { numRuns: 50 },
    );
  });
});

describe('splitMcpName', () => {
  it('splits at the first __ after mcp__', () => {
    expect(splitMcpName('mcp__github__create_issue')).toEqual({ server: 'github', tool: 'create_issue' });
    expect(splitMcpName('mcp__a__b__c')).toEqual({ server: 'a', tool: 'b__c' });
    expect(splitMcpName('Bash')).toEqual({ tool: 'Bash' });
    expect(splitMcpName('mcp____x')).toEqual({ tool: 'mcp____x' });
  });
});
