// runAudit tells how far its reading is: every file's bytes, counted as read, in order.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { runAudit, type AuditProgress } from './audit.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-progress-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let runs = 0;

/** Generic transcripts: one file per entry, that many calls of outputs of `size` bytes each. */
function transcripts(files: readonly { calls: number; size: number }[]): string {
  const root = join(dir, `run-${String(++runs)}`);
  mkdirSync(root);
  files.forEach(({ calls, size }, f) => {
    const lines = Array.from({ length: calls }, (_, c) => JSON.stringify({ session: `s${String(f)}`, tool: 'Bash', input: `cat part_${String(c)}.log`, output: `line_${String(c)} `.repeat(Math.ceil(size / 8)).slice(0, size) }));
    writeFileSync(join(root, `t-${String(f).padStart(3, '0')}.jsonl`), lines.length === 0 ? '' : `${lines.join('\n')}\n`);
  });
  return root;
}

async function audit(root: string): Promise<AuditProgress[]> {
  const seen: AuditProgress[] = [];
  await runAudit({ format: 'generic', paths: [root], env: {}, home: dir, onProgress: (p) => seen.push(p) });
  return seen;
}

describe('runAudit progress', () => {
  it('starts at nothing read, ends at every byte and file, and never goes back', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ calls: fc.nat(6), size: fc.integer({ min: 1, max: 200_000 }) }), { minLength: 1, maxLength: 5 }), async (files) => {
        const root = transcripts(files);
        const total = files.reduce((sum, _f, i) => sum + statSync(join(root, `t-${String(i).padStart(3, '0')}.jsonl`)).size, 0);
        const seen = await audit(root);
        expect(seen[0]).toEqual({ files: files.length, filesDone: 0, bytes: total, bytesDone: 0 });
        expect(seen.at(-1)).toEqual({ files: files.length, filesDone: files.length, bytes: total, bytesDone: total });
        for (let i = 1; i < seen.length; i++) {
          const [a, b] = [seen[i - 1], seen[i]];
          expect(b?.bytesDone).toBeGreaterThanOrEqual(a?.bytesDone ?? 0);
          expect(b?.filesDone).toBeGreaterThanOrEqual(a?.filesDone ?? 0);
        }
      }),
      { numRuns: 15 },
    );
  });

  it('reports a large file in steps as it is read, not only at its end', async () => {
    // About 8 MB, read a MiB at a time.
    const seen = await audit(transcripts([{ calls: 80, size: 100_000 }]));
    const steps = seen.filter((p) => p.filesDone === 0 && p.bytesDone > 0);
    expect(steps.length).toBeGreaterThanOrEqual(7);
  });

  it('counts an OpenCode database whole once it is read', async () => {
    const db = join(import.meta.dirname, 'fixtures', 'opencode', 'opencode.db');
    const size = statSync(db).size;
    const seen: AuditProgress[] = [];
    await runAudit({ format: 'opencode', paths: [db], env: {}, home: dir, onProgress: (p) => seen.push(p) });
    expect(seen.map((p) => [p.filesDone, p.bytesDone])).toEqual([
      [0, 0],
      [0, size],
      [1, size],
    ]);
    expect(seen.every((p) => p.bytes === size && p.files === 1)).toBe(true);
  });

  it('gives the same report with and without it', async () => {
    const root = transcripts([
      { calls: 3, size: 50_000 },
      { calls: 2, size: 9_000 },
    ]);
    const plain = await runAudit({ format: 'generic', paths: [root], env: {}, home: dir });
    const told = await runAudit({ format: 'generic', paths: [root], env: {}, home: dir, onProgress: () => undefined });
    expect(told).toEqual(plain);
  });
});
