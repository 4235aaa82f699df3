import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { usageDir } from '@spillway/usage';
import { describe, expect, it } from 'vitest';
import { DEMO_CAP, runDemo, type DemoSummary } from './demo.js';
import { NEEDLE_LINE } from './data.js';

// Runs the whole walk-through in-process (the shell part runs the built CLI, which CI
// builds before testing) and checks that every step did what its label says.

describe('pnpm demo', () => {
  let output = '';
  let summary: DemoSummary;

  // How fast it runs is not asserted here (speed belongs in benchmarks); the test
  // timeout only stops a hang, so it is one a loaded machine never needs.
  // The person's own usage log, as `spillway stats` reads it: the demo must not write to it.
  const personal = join(usageDir(process.env, homedir()), 'events.jsonl');
  const sizeOf = (file: string): number => (existsSync(file) ? statSync(file).size : -1);
  const before = sizeOf(personal);

  it('runs to the end', { timeout: 300_000 }, async () => {
    summary = await runDemo({
      write: (text) => {
        output += text;
      },
      color: false,
    });
    expect(summary).toBeDefined();
  });

  it('keeps its own state: the person’s usage log is untouched', () => {
    expect(sizeOf(personal)).toBe(before);
  });

  it('walks the same loop over the local and the memory backend', () => {
    expect(summary.passes.map((p) => p.backend)).toEqual(['local', 'memory']);
    expect(output).toContain('const backend = createLocalBackend(');
    expect(output).toContain('const backend = createMemoryBackend(');
  });

  it.each(['local', 'memory'])('with the %s backend: passes small results, spills the large one, leaves read alone, survives a failure, reads back', (name) => {
    const pass = summary.passes.find((p) => p.backend === name);
    expect(pass).toBeDefined();
    expect(pass?.smallPassedThrough).toBe(true);
    expect(pass?.bigSpilled).toBe(true);
    expect(pass?.bigOriginalBytes).toBeGreaterThan(3_000_000);
    expect(pass?.bigReplacementBytes).toBeLessThanOrEqual(DEMO_CAP);
    expect(pass?.readLeftAlone).toBe(true);
    expect(pass?.failureKeptInline).toBe(true);
    expect(pass?.failureCode).toMatch(/^SPILL_/);
    expect(pass?.needleFoundAtLine).toBe(NEEDLE_LINE);
  });

  it('shows the model exactly the notice, and labels every step', () => {
    expect(output).toMatch(/\(Omitted \d+ bytes\. Full formatted result stored at: .*web_fetch\.txt\. Use read with offset\/limit, or grep this path to search within it\.\)/);
    expect(output).toMatch(/\(Omitted \d+ bytes\. Full formatted result stored at: spill\+memory:/);
    for (const label of ['[1]', '[2]', '[3]', '[4]', '[5]', '[6]']) expect(output).toContain(label);
  });

  it('ends with spillway run from a shell, exiting 0', () => {
    expect(summary.shellExitCode).toBe(0);
    expect(output).toContain('$ spillway run --max-inline-bytes 600');
    expect(output).toContain('77777:line 77777');
  });

  it('ends with one MCP round trip through spillway mcp', () => {
    expect(summary.mcp?.tools.slice(0, 2)).toEqual(['spill_read', 'spill_grep']);
    expect(summary.mcp?.spilled).toBe(true);
    expect(summary.mcp?.replacementBytes).toBeLessThanOrEqual(DEMO_CAP);
    expect(summary.mcp?.needleFound).toBe(true);
  });

  it('removes its temporary directory', () => {
    expect(existsSync(summary.tempDir)).toBe(false);
  });
});
