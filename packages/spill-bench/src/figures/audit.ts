import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ratioAtMost, valueAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { runInterleaved } from '../interleave.js';
import { parseEveryLine } from '../parse-lines.js';
import { assertSucceeded, childScript, runNodeWithMaxRss } from '../process.js';
import type { Profile } from '../profile.js';
import { formatBytes } from '../sizes.js';
import { privateDir } from './common.js';

const MiB = 1024 * 1024;

function specs(profile: Profile): FigureSpec[] {
  return [
    {
      id: 'audit.transcripts',
      title: 'runAudit over generated Claude Code transcripts (every cap, needed-later): wall time',
      baseline: 'node:readline over the same files, JSON.parse of every line',
      unit: 'ms',
      target: ratioAtMost(3),
    },
    {
      id: 'audit.rss',
      title: `peak RSS of a process that audits ${formatBytes(profile.audit.bytes)} of those transcripts`,
      baseline: 'a process that parses every line of them',
      unit: 'bytes',
      target: valueAtMost(256 * MiB),
    },
  ];
}

/**
 * One session of tool calls with outputs from 200 B to 200 KB: build-log lines full of
 * paths and numbers (distinctive strings), and a later call that names a line of the
 * previous output, so the needed-later bookkeeping does real work. Exported for profiling
 * scripts, so they read the transcripts this figure measures.
 */
export function session(index: number, targetBytes: number): string {
  const lines: string[] = [];
  let bytes = 0;
  const id = `bench-${String(index)}`;
  for (let c = 0; bytes < targetBytes; c++) {
    const size = [200, 2_000, 20_000, 200_000][c % 4] ?? 200;
    const out = Array.from({ length: Math.ceil(size / 40) }, (_, i) => `src/mod_${String(c)}/file_${String(i)}.ts:${String(i)}: value ${String(i * 7)}`).join('\n');
    lines.push(JSON.stringify({ type: 'assistant', sessionId: id, message: { content: [{ type: 'tool_use', id: `t${String(c)}`, name: c % 3 === 0 ? 'mcp__db__query' : 'Bash', input: { command: `cat src/mod_${String(c - 1)}/file_${String(c * 3)}.ts` } }] } }));
    lines.push(JSON.stringify({ type: 'user', sessionId: id, message: { content: [{ type: 'tool_result', tool_use_id: `t${String(c)}`, content: out }] } }));
    bytes += out.length;
  }
  return `${lines.join('\n')}\n`;
}

/**
 * `spillway audit` reads transcripts a person already has, often hundreds of megabytes:
 * its cost is set against the least any reader of them does, parsing each line.
 */
export const auditGroup: FigureGroup = {
  name: 'audit',
  specs,
  async run(ctx) {
    const { runAudit } = await import('@spillway/audit');
    const dir = await privateDir(ctx.scratch, 'audit');
    const perFile = 4 * 1024 * 1024;
    const files: string[] = [];
    for (let i = 0; i * perFile < ctx.profile.audit.bytes; i++) {
      const file = path.join(dir, `bench-${String(i)}.jsonl`);
      await writeFile(file, session(i, perFile));
      files.push(file);
    }
    let calls = 0;
    let objects = 0;
    const samples = await runInterleaved(ctx.profile.audit.rounds, {
      spillway: async () => {
        const start = performance.now();
        const report = await runAudit({ format: 'claude-code', paths: [dir], env: {}, home: dir });
        calls = report.total.calls;
        return performance.now() - start;
      },
      baseline: async () => {
        const start = performance.now();
        objects = await parseEveryLine(files);
        return performance.now() - start;
      },
    });
    ctx.record('audit.transcripts', {
      spillway: samples.spillway,
      baseline: samples.baseline,
      notes: [`${String(files.length)} files, ${String(Math.round(ctx.profile.audit.bytes / 1024 / 1024))} MiB of output, ${String(calls)} tool calls (${String(objects)} lines parsed by the baseline)`],
    });
    // Memory, once a side: each in a process of its own, so the peak is the audit's alone.
    const audited = await runNodeWithMaxRss(childScript('audit-child.js'), ['audit', dir], ctx.scratch, { captureStdout: true });
    assertSucceeded(audited, 'audit child');
    const parsed = await runNodeWithMaxRss(childScript('audit-child.js'), ['parse', dir], ctx.scratch, { captureStdout: true });
    assertSucceeded(parsed, 'audit parse child');
    ctx.record('audit.rss', {
      spillway: [audited.maxRssBytes],
      baseline: [parsed.maxRssBytes],
      notes: [`lifetime peaks, Node's own memory included; the audit counted ${audited.stdout.trim()}, the parse ${parsed.stdout.trim()}`],
    });
  },
};
