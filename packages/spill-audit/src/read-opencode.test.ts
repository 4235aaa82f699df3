import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { runAudit } from './audit.js';
import { isAuditError } from './errors.js';
import { columnNames } from './sqlite-file.js';
import { readTranscript, type ReadStats, type TranscriptEvent } from './transcript.js';
import { openCodeToolSplitter } from './read-opencode.js';

// Trimmed from a session of OpenCode 1.18.33 recorded offline: a 3,001-line bash log whose
// middle names lib/QX_77/key_9d8e.bin, a 540 KB MCP result (both stored by OpenCode in
// tool-output/, of which only the log's file is kept here), and a call that uses that name.
const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const data = join(fixtures, 'opencode');
const tmp = mkdtempSync(join(tmpdir(), 'audit-opencode-'));
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

async function events(file: string): Promise<{ events: TranscriptEvent[]; stats: ReadStats }> {
  const stats: ReadStats = { lines: 0, skipped: 0, skippedLines: [] };
  const out: TranscriptEvent[] = [];
  for await (const e of readTranscript(file, 'opencode', stats)) out.push(e);
  return { events: out, stats };
}

describe('OpenCode sessions', () => {
  it('are read part by part, in order: texts, calls with their JSON input, outputs', async () => {
    const { events: all, stats } = await events(join(data, 'opencode.db'));
    expect(stats).toEqual({ lines: 13, skipped: 0, skippedLines: [] });
    expect(new Set(all.map((e) => e.session)).size).toBe(1);
    expect(all[0]?.session).toMatch(/^ses_/);
    expect(all.map((e) => (e.kind === 'call' ? `call ${e.tool}` : e.kind))).toEqual(['text', 'call bash', 'result', 'call big_get_big', 'result', 'call bash', 'result', 'text']);
    const [, firstCall, log, , mcp, lastCall, last] = all;
    expect(firstCall?.kind === 'call' && JSON.parse(firstCall.input)).toMatchObject({ description: 'print a long log' });
    // The log was stored by OpenCode: read whole from the tool-output directory beside the database.
    expect(log?.kind === 'result' && log.stored?.read).toBe(true);
    expect(log?.kind === 'result' && log.output).toContain('stored at lib/QX_77/key_9d8e.bin');
    expect(log?.kind === 'result' && log.output.split('\n')).toHaveLength(3002);
    // The MCP result's file is not there: the part OpenCode kept, with its note, is the output.
    expect(mcp?.kind === 'result' && mcp.stored?.read).toBe(false);
    expect(mcp?.kind === 'result' && mcp.output).toContain('Full output saved to: ');
    expect(lastCall?.kind === 'call' && lastCall.input).toContain('lib/QX_77/key_9d8e.bin');
    expect(last).toMatchObject({ kind: 'result', output: expect.stringContaining('No such file or directory') as string });
  });

  it('runAudit --host opencode finds the database under XDG_DATA_HOME and judges the stored log like any output', async () => {
    const report = await runAudit({ format: 'opencode', env: { XDG_DATA_HOME: fixtures }, home: '/nowhere' });
    expect(report).toMatchObject({ format: 'opencode', cap: 16384, files: 1, lines: 13, skippedLines: 0, callsWithoutOutput: 0, storedOutputs: { read: 1, missing: 1 } });
    expect(report.calls.map((c) => [c.tool, c.bytes, c.overHostLimit])).toEqual([
      ['bash', statSync(join(data, 'tool-output', readdirSync(join(data, 'tool-output'))[0] ?? '')).size, true],
      ['big_get_big', expect.any(Number), false],
      ['bash', 78, false],
    ]);
    expect(report.total).toMatchObject({ calls: 3, spilled: 1, neededLater: 1, neededLaterHeadTail: 1 });
    expect(report.examples).toEqual([expect.objectContaining({ tool: 'bash', string: 'key_9d8e.bin' })]);
    // The log's part OpenCode kept is what the model saw, and its 2,000 lines of 3,002 hold the key's line: needed with
    // spillway's preview at 16 KiB, not with the host's. The MCP result's file is gone, so its view is not known.
    expect(report.calls.map((c) => [c.hostView, c.neededHost])).toEqual([
      ['cut', false],
      ['unknown', false],
      ['whole', false],
    ]);
    expect(report.total).toMatchObject({ hostCut: 1, neededLaterHost: 0 });
  });

  it("groups an MCP tool under its server when the host's server names are given (OpenCode's names do not set them apart)", async () => {
    const report = await runAudit({ format: 'opencode', env: { XDG_DATA_HOME: fixtures }, home: '/nowhere', mcpServers: ['big', 'other'] });
    expect(report.calls.map((c) => [c.server, c.tool])).toEqual([
      [undefined, 'bash'],
      ['big', 'get_big'],
      [undefined, 'bash'],
    ]);
    expect(report.servers.map((s) => s.name)).toEqual(['big']);
    expect(report.tools.map((t) => t.name).sort()).toEqual(['bash', 'big/get_big']);
  });

  it('reads the writes still in the write-ahead log, and writes nothing beside the database', async () => {
    const wal = join(fixtures, 'opencode-wal');
    const before = readdirSync(wal).map((f) => [f, statSync(join(wal, f)).mtimeMs]);
    const withLog = await runAudit({ format: 'opencode', paths: [wal], env: {}, home: '/nowhere' });
    expect(withLog.total.calls).toBe(4);
    expect(withLog.calls[3]?.tool).toBe('bash');
    expect(readdirSync(wal).map((f) => [f, statSync(join(wal, f)).mtimeMs])).toEqual(before);
    copyFileSync(join(wal, 'opencode.db'), join(tmp, 'opencode.db'));
    const withoutLog = await runAudit({ format: 'opencode', paths: [join(tmp, 'opencode.db')], env: {}, home: '/nowhere' });
    expect(withoutLog.total.calls).toBe(3);
  });

  it('skips a part nested too deeply, named by its rowid, and reads the parts after it', async () => {
    const file = join(tmp, 'deep.db');
    copyFileSync(join(data, 'opencode.db'), file);
    const db = new Database(file);
    const last = db.prepare('SELECT session_id, message_id, max(time_created) AS t FROM part').get() as { session_id: string; message_id: string; t: number };
    const insert = db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)');
    const add = (id: string, at: number, part: string): number => Number(insert.run(id, last.message_id, last.session_id, at, at, part).lastInsertRowid);
    // Nested far past what the audit turns into text, and just within it.
    const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
    const deep = add('prt_deep', last.t + 1, `{"type":"tool","tool":"bash","callID":"call_deep","state":{"status":"completed","input":${nested(6000)},"output":"ok"}}`);
    add('prt_shallow', last.t + 2, `{"type":"tool","tool":"bash","callID":"call_shallow","state":{"status":"completed","input":${nested(500)},"output":"fine"}}`);
    add('prt_after', last.t + 3, '{"type":"text","text":"after the deep one"}');
    db.close();
    const { events: read, stats } = await events(file);
    expect(stats.skippedLines).toEqual([{ file, line: deep, reason: 'nested too deeply' }]);
    expect(read.some((e) => e.kind === 'call' && e.id === 'call_deep')).toBe(false);
    expect(read.filter((e) => e.kind === 'result' && e.id === 'call_shallow').map((e) => e.kind === 'result' && e.output)).toEqual(['fine']);
    expect(read.at(-1)).toMatchObject({ kind: 'text', text: 'after the deep one' });
    // The audit goes on past it, and counts it.
    const one = await runAudit({ format: 'opencode', paths: [file], env: {}, home: '/nowhere', threads: 1 });
    expect(one.skippedLines).toBe(1);
  });

  it('a file that is not a SQLite database is unreadable, named', async () => {
    const bad = join(tmp, 'not-a-db');
    writeFileSync(bad, 'just text, not SQLite at all; long enough to have a header of a hundred bytes or more, surely. '.repeat(2));
    const error: unknown = await runAudit({ format: 'opencode', paths: [bad], env: {}, home: '/nowhere' }).catch((e: unknown) => e);
    expect(isAuditError(error, 'AUDIT_UNREADABLE')).toBe(true);
    expect((error as Error).message).toMatch(/not a SQLite database/);
  });
});

describe('openCodeToolSplitter', () => {
  it('splits by the longest server whose OpenCode name starts the tool name, and leaves other names whole', () => {
    const split = openCodeToolSplitter(['git', 'git_hub', 'my.server']);
    expect(split('git_hub_create_issue')).toEqual({ server: 'git_hub', tool: 'create_issue' });
    expect(split('git_log')).toEqual({ server: 'git', tool: 'log' });
    expect(split('my_server_fetch')).toEqual({ server: 'my.server', tool: 'fetch' });
    expect(split('bash')).toEqual({ tool: 'bash' });
    expect(split('git_')).toEqual({ tool: 'git_' });
    expect(openCodeToolSplitter([])('big_get_big')).toEqual({ tool: 'big_get_big' });
  });
});

describe('columnNames', () => {
  it('names the columns of a CREATE TABLE in order, quoted or not, without constraints', () => {
    expect(columnNames('CREATE TABLE `part` (`id` text PRIMARY KEY, "message_id" text NOT NULL, [t] integer DEFAULT (1 + 2), data text, CONSTRAINT `fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`))')).toEqual(['id', 'message_id', 't', 'data']);
  });
});
