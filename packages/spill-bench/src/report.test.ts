import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRepoRoot, machineInfo, reportFileName, writeReport } from './report.js';

describe('report', () => {
  it('names the file after the start time and mode, without colons', () => {
    expect(reportFileName(new Date('2025-01-31T12:34:56.789Z'), 'full')).toBe('2025-01-31T12-34-56-789Z-full.json');
  });

  it('finds the monorepo root above this package', () => {
    const root = findRepoRoot();
    expect(root).toBeDefined();
    expect(path.relative(root ?? '', import.meta.dirname)).toBe(path.join('packages', 'spill-bench', 'src'));
  });

  it('writes the report as JSON into a directory it creates, and returns the path', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-report-test-'));
    try {
      const out = path.join(dir, 'nested');
      const file = await writeReport(
        { mode: 'quick', startedAt: '2025-01-31T12:00:00.000Z', durationMs: 1, machine: machineInfo(), loadAverageAtEnd: [0, 0, 0], figures: [], table: '' },
        out,
      );
      expect(path.dirname(file)).toBe(out);
      const parsed = JSON.parse(await readFile(file, 'utf8')) as { mode: string; machine: { cpus: number } };
      expect(parsed.mode).toBe('quick');
      expect(parsed.machine.cpus).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
