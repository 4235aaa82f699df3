/**
 * One side of the audit's memory figure, in a process of its own so that its peak is its
 * own: `node audit-child.js <audit|parse> <dir>`. `audit` runs `runAudit` over the Claude
 * Code transcripts in `dir`; `parse` reads the same files line by line and parses each (the
 * least any reader of them holds). One JSON line: what it counted.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { runAudit } from '@spillway/audit';
import { parseEveryLine } from '../parse-lines.js';

const [mode, dir] = process.argv.slice(2);
if ((mode !== 'audit' && mode !== 'parse') || dir === undefined) throw new TypeError('usage: audit-child.js <audit|parse> <dir>');

if (mode === 'audit') {
  const report = await runAudit({ format: 'claude-code', paths: [dir], env: {}, home: dir });
  console.log(JSON.stringify({ calls: report.total.calls }));
} else {
  const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort().map((f) => path.join(dir, f));
  console.log(JSON.stringify({ objects: await parseEveryLine(files) }));
}
