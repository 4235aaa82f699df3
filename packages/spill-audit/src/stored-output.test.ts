import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAudit } from './audit.js';
import { storedOutputFile } from './stored-output.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-stored-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

// The notes as Claude Code 2.1.328 writes them in place of an output it stored.
const persisted = (file: string): string => `<persisted-output>\nOutput too large (117.2KB). Full output saved to: ${file}\n\nPreview (first 2KB):\nrow-0 ok\n...\n</persisted-output>`;
const mcpSaved = (file: string): string => `Error: result (120,017 characters across 3,001 lines) exceeds maximum allowed tokens. Output has been saved to ${file}.\nFormat: Plain text\nUse grep to search.`;

describe('storedOutputFile', () => {
  it('names the file of either note', () => {
    expect(storedOutputFile(persisted('/home/u/.claude/projects/p/s/tool-results/b1.txt'))).toBe('/home/u/.claude/projects/p/s/tool-results/b1.txt');
    expect(storedOutputFile(mcpSaved('/home/u/.claude/projects/p/s/tool-results/mcp-db-query-1.txt'))).toBe('/home/u/.claude/projects/p/s/tool-results/mcp-db-query-1.txt');
    expect(storedOutputFile(`The output saved to the file named below may include Artifact content.\n${mcpSaved('/tmp/r.json')}`)).toBe('/tmp/r.json');
  });

  it('answers undefined for other outputs, a relative path, and a file that holds only the first part', () => {
    expect(storedOutputFile('total 12\ndrwxr-xr-x 2 u u 4096 .')).toBeUndefined();
    expect(storedOutputFile(`cat log\n${persisted('/tmp/x.txt')}`)).toBeUndefined();
    expect(storedOutputFile(persisted('tool-results/b1.txt'))).toBeUndefined();
    expect(storedOutputFile(`${mcpSaved('/tmp/r.txt')}\nNote: the output exceeded the persist byte limit; the saved file contains only the first 64MB of it`)).toBeUndefined();
  });
});

describe('runAudit on an output Claude Code stored in a file itself', () => {
  const needle = 'lib/QX_5150/stored.rs';
  const whole = [...Array.from({ length: 3000 }, (_, i) => `row-${String(i)} ok`), `wrote ${needle}`, ...Array.from({ length: 3000 }, (_, i) => `tail-${String(i)} ok`)].join('\n');
  const transcript = (name: string, note: string): string => {
    const file = join(dir, name);
    const line = (type: string, content: unknown): string => JSON.stringify({ type, sessionId: 'cc', message: { role: type, content } });
    writeFileSync(
      file,
      [
        line('assistant', [{ type: 'tool_use', id: 't1', name: 'mcp__big__get_big', input: {} }]),
        line('user', [{ type: 'tool_result', tool_use_id: 't1', content: note }]),
        line('assistant', [{ type: 'tool_use', id: 't2', name: 'Read', input: { file_path: needle } }]),
        line('user', [{ type: 'tool_result', tool_use_id: 't2', content: 'ok' }]),
      ].join('\n'),
    );
    return file;
  };

  it('is read from that file, never written, and judged like any other output', async () => {
    for (const [name, note] of [['persisted', persisted], ['mcp', mcpSaved]] as const) {
      const saved = join(dir, `${name}-tool-result.txt`);
      writeFileSync(saved, whole);
      const before = statSync(saved).mtimeMs;
      const report = await runAudit({ format: 'claude-code', paths: [transcript(`${name}.jsonl`, note(saved))], env: {}, home: dir, cap: 8192 });
      expect(report.storedOutputs).toEqual({ read: 1, missing: 0 });
      expect(report.calls[0]?.bytes).toBe(Buffer.byteLength(whole));
      expect(report.total).toMatchObject({ calls: 2, spilled: 1, neededLater: 1, neededLaterHeadTail: 1, hostCut: 1, neededLaterHost: 1 });
      expect(report.calls[0]).toMatchObject({ hostView: 'cut', neededHost: true });
      expect(readFileSync(saved, 'utf8')).toBe(whole);
      expect(statSync(saved).mtimeMs).toBe(before);
    }
  });

  it('is judged against what the host showed: its note\'s preview', async () => {
    const saved = join(dir, 'shown-tool-result.txt');
    writeFileSync(saved, whole);
    // The note's preview holds the needed path: the host showed it, spillway's previews did not.
    const shown = persisted(saved).replace('row-0 ok\n', `row-0 ok\nwrote ${needle}\n`);
    const report = await runAudit({ format: 'claude-code', paths: [transcript('shown.jsonl', shown)], env: {}, home: dir, cap: 8192 });
    expect(report.calls[0]).toMatchObject({ hostView: 'cut', neededHost: false });
    expect(report.total).toMatchObject({ spilled: 1, neededLater: 1, hostCut: 1, neededLaterHost: 0 });
    // What the host does with a Read past a size is not known: its view is not judged.
    expect(report.calls[1]).toMatchObject({ hostView: 'unknown', neededHost: false });
  });

  it('is judged by its note when the file is gone, or is a symbolic link', async () => {
    const gone = persisted(join(dir, 'gone.txt'));
    const report = await runAudit({ format: 'claude-code', paths: [transcript('gone.jsonl', gone)], env: {}, home: dir, cap: 8192 });
    expect(report.storedOutputs).toEqual({ read: 0, missing: 1 });
    expect(report.calls[0]?.bytes).toBe(Buffer.byteLength(gone));
    expect(report.calls[0]?.hostView).toBe('unknown');
    expect(report.total).toMatchObject({ spilled: 0, neededLater: 0, hostCut: 0 });
    const target = join(dir, 'target.txt');
    writeFileSync(target, whole);
    symlinkSync(target, join(dir, 'link.txt'));
    const linked = await runAudit({ format: 'claude-code', paths: [transcript('link.jsonl', persisted(join(dir, 'link.txt')))], env: {}, home: dir, cap: 8192 });
    expect(linked.storedOutputs).toEqual({ read: 0, missing: 1 });
  });

  it('is not looked for in other hosts\' transcripts', async () => {
    const saved = join(dir, 'generic-saved.txt');
    writeFileSync(saved, whole);
    const file = join(dir, 'generic.jsonl');
    writeFileSync(file, JSON.stringify({ session: 's', tool: 'get', output: persisted(saved) }));
    const report = await runAudit({ format: 'generic', paths: [file], env: {}, home: dir });
    expect(report.storedOutputs).toEqual({ read: 0, missing: 0 });
  });
});
