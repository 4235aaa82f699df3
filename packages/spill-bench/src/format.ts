import type { FigureOutcome, Target, Unit } from './figure.js';
import { formatBytes, trimNumber } from './sizes.js';

/** Formats a duration given in milliseconds with a readable unit (ns, µs, ms or s). */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 0.001) return `${trimNumber(ms * 1e6, 1)} ns`;
  if (abs < 1) return `${trimNumber(ms * 1e3, 2)} µs`;
  if (abs < 1000) return `${trimNumber(ms, 2)} ms`;
  return `${trimNumber(ms / 1000, 2)} s`;
}

/** Formats a measured value in its unit. */
export function formatValue(value: number, unit: Unit): string {
  switch (unit) {
    case 'ms':
      return formatDuration(value);
    case 'bytes':
      return formatBytes(value);
    case 'bytes/s':
      return `${formatBytes(value)}/s`;
    case 'count':
      return String(value);
  }
}

/** Formats a ratio as `1.23×` (three significant digits below 10). */
export function formatRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return String(ratio);
  return `${ratio >= 10 ? trimNumber(ratio, 1) : trimNumber(ratio, 2)}×`;
}

/** Describes a target, such as `≤ 3×`, `≥ 0.8×` or `≤ 64 MiB`. */
export function formatTarget(target: Target, unit: Unit): string {
  const op = target.op === '<=' ? '≤' : '≥';
  const limit = target.subject === 'ratio' ? formatRatio(target.limit) : formatValue(target.limit, unit);
  return `${op} ${limit}`;
}

/** The header of the results table. */
export const TABLE_HEADER = ['figure', 'spillway', 'baseline', 'ratio', 'target', 'holds'] as const;

/** One row of the results table, as text cells in {@link TABLE_HEADER} order. */
export function tableRow(figure: FigureOutcome): string[] {
  const target = formatTarget(figure.target, figure.unit);
  if (figure.status === 'skipped') {
    return [figure.title, '—', '—', '—', target, `skipped: ${figure.reason}`];
  }
  return [
    figure.title,
    formatValue(figure.spillwayValue, figure.unit),
    formatValue(figure.baselineValue, figure.unit),
    formatRatio(figure.ratio),
    target,
    figure.holds ? 'yes' : '**NO**',
  ];
}

/** The width of `text` in a monospace terminal, counting code points (the table is all narrow characters). */
function width(text: string): number {
  return Array.from(text).length;
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/**
 * Renders figures as a Markdown table with padded columns, readable in a terminal and
 * pasteable into `docs/benchmarks.md` as is.
 */
export function formatTable(figures: readonly FigureOutcome[]): string {
  const rows = [[...TABLE_HEADER], ...figures.map(tableRow)].map((row) => row.map(escapeCell));
  const widths = TABLE_HEADER.map((_, col) => Math.max(3, ...rows.map((row) => width(row[col] ?? ''))));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, col) => cell + ' '.repeat((widths[col] ?? 0) - width(cell))).join(' | ')} |`;
  const [header = [], ...body] = rows;
  const rule = `|${widths.map((w, col) => (col === 0 || col === widths.length - 1 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

/**
 * The notes of measured figures as a Markdown list (`- title: note`), for under the
 * table: outcome checks, and anything that qualifies a number.
 */
export function formatNotes(figures: readonly FigureOutcome[]): string {
  const lines: string[] = [];
  for (const figure of figures) {
    if (figure.status !== 'measured') continue;
    for (const note of figure.notes) lines.push(`- ${figure.title}: ${note}`);
  }
  return lines.join('\n');
}
