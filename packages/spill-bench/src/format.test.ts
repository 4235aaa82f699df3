import { describe, expect, it } from 'vitest';
import { ratioAtLeast, ratioAtMost, skipFigure, summarizeFigure, valueAtMost } from './figure.js';
import { formatDuration, formatNotes, formatRatio, formatTable, formatTarget, formatValue } from './format.js';

describe('value formatting', () => {
  it('shows durations in the unit that reads best', () => {
    expect(formatDuration(0.00025)).toBe('250 ns');
    expect(formatDuration(0.0425)).toBe('42.5 µs');
    expect(formatDuration(12.345)).toBe('12.35 ms');
    expect(formatDuration(2500)).toBe('2.5 s');
  });

  it('shows sizes and throughputs in binary units', () => {
    expect(formatValue(64 * 1024 * 1024, 'bytes')).toBe('64 MiB');
    expect(formatValue(1.5 * 1024 ** 3, 'bytes/s')).toBe('1.5 GiB/s');
  });

  it('shows ratios with a multiplication sign', () => {
    expect(formatRatio(1.234)).toBe('1.23×');
    expect(formatRatio(12.34)).toBe('12.3×');
  });

  it('describes ratio targets and absolute targets', () => {
    expect(formatTarget(ratioAtMost(3), 'ms')).toBe('≤ 3×');
    expect(formatTarget(ratioAtLeast(0.8), 'bytes/s')).toBe('≥ 0.8×');
    expect(formatTarget(valueAtMost(128 * 1024 * 1024), 'bytes')).toBe('≤ 128 MiB');
  });
});

describe('formatTable', () => {
  const held = summarizeFigure(
    { id: 'a', title: 'policy apply 4 KiB', baseline: 'Promise.resolve', unit: 'ms', target: ratioAtMost(3) },
    { spillway: [0.0002], baseline: [0.0001] },
  );
  const missed = summarizeFigure(
    { id: 'b', title: 'stream RSS growth', baseline: 'createWriteStream', unit: 'bytes', target: valueAtMost(64 * 1024 * 1024) },
    { spillway: [100 * 1024 * 1024], baseline: [10 * 1024 * 1024] },
  );
  const skipped = skipFigure({ id: 'c', title: 'cli | wall', baseline: 'sh', unit: 'ms', target: ratioAtMost(1.3) }, 'not built');

  it('prints a header, a rule and one row per figure with every column', () => {
    const lines = formatTable([held, missed, skipped]).split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^\| figure +\| spillway +\| baseline +\| ratio +\| target +\| holds +\|$/);
    expect(lines[1]).toMatch(/^\|-+\|-+:\|-+:\|-+:\|-+:\|-+\|$/);
    expect(lines[2]).toMatch(/\| policy apply 4 KiB +\| 200 ns +\| 100 ns +\| 2× +\| ≤ 3× +\| yes +\|/);
    expect(lines[3]).toMatch(/\| 100 MiB +\| 10 MiB +\| 10× +\| ≤ 64 MiB +\| \*\*NO\*\* +\|/);
    expect(lines[4]).toContain('skipped: not built');
  });

  it('pads every line to the same width and escapes pipes inside cells', () => {
    const lines = formatTable([held, missed, skipped]).split('\n');
    const widths = new Set(lines.map((l) => Array.from(l).length));
    expect(widths.size).toBe(1);
    expect(lines[4]).toContain('cli \\| wall');
  });
});

describe('formatNotes', () => {
  it('lists the notes of measured figures under their titles and skips the rest', () => {
    const noted = summarizeFigure(
      { id: 'n', title: 'read', baseline: 'sed', unit: 'ms', target: ratioAtMost(1.5) },
      { spillway: [1], baseline: [1], notes: ['read returned exactly what sed printed', 'second'] },
    );
    const skipped = skipFigure({ id: 's', title: 'gone', baseline: 'x', unit: 'ms', target: ratioAtMost(1) }, 'why');
    expect(formatNotes([noted, skipped])).toBe('- read: read returned exactly what sed printed\n- read: second');
  });
});
