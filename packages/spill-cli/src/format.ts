import type { GrepResult, ReadResult, SpillEntry } from '@spillway/core';
import type { Style } from './color.js';

/** Width of the line-number column in `read` output, as `cat -n` uses. */
const LINE_NUMBER_WIDTH = 6;

/** The lines of `text`: split at `\n`, a trailing `\n` not starting another line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

/**
 * Formats a read answer like `cat -n`: each line prefixed by its number, right-aligned,
 * and a tab. Every line, including a cut-short last one, ends with `\n`.
 */
export function formatReadLines(result: ReadResult, style: Style): string {
  const lines = splitLines(result.text);
  const width = Math.max(LINE_NUMBER_WIDTH, String(result.startLine + lines.length - 1).length);
  let out = '';
  lines.forEach((line, i) => {
    out += `${style.dim(String(result.startLine + i).padStart(width))}\t${line}\n`;
  });
  return out;
}

/**
 * The line that follows a read answer to tell the reader what is left, or `undefined`
 * when the answer reached the end of the artifact.
 */
export function readTrailer(result: ReadResult, maxBytes: number): string | undefined {
  const size = `${result.totalBytes} bytes in all`;
  if (result.hasMore) {
    if (result.nextOffset !== undefined) {
      return `… more lines follow: use --offset ${result.nextOffset} to continue (${size}).`;
    }
    return (
      `… line ${result.endLine} is longer than --max-bytes ${maxBytes} allows and was cut short: ` +
      `use a larger --max-bytes to see it whole, or grep for what you need (${size}).`
    );
  }
  if (result.text === '') {
    if (result.totalBytes === 0) return '… the artifact is empty.';
    return `… no lines at --offset ${result.startLine}: the artifact ends before it (${size}).`;
  }
  return undefined;
}

/**
 * Formats grep matches like `grep -n`: `LINE:TEXT`. A match whose text is only a window
 * of a long line ends with ` […]`.
 */
export function formatGrepMatches(result: GrepResult, style: Style): string {
  let out = '';
  for (const match of result.matches) {
    out += `${style.green(String(match.line))}:${match.text}${match.truncated ? style.dim(' […]') : ''}\n`;
  }
  return out;
}

/** The line that follows grep matches when the answer is empty or incomplete. */
export function grepTrailer(result: GrepResult, maxMatches: number): string | undefined {
  if (result.matches.length === 0) return '… no lines match.';
  if (result.limitReached) {
    return `… stopped after ${maxMatches} matches: use --max with a larger number, or a narrower pattern.`;
  }
  return undefined;
}

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'] as const;

/** A size for people: `512 B`, `4.6 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes;
  let unit: string = 'B';
  for (const next of UNITS) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  return `${value.toFixed(1)} ${unit}`;
}

/** A timestamp to the second, in UTC: `2025-01-31T09:30:00Z`. */
export function formatTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** The heading line of `ls` output. */
export function lsHeader(style: Style): string {
  return style.bold(`${'CREATED'.padEnd(20)}  ${'SIZE'.padStart(10)}  SESSION  LOCATOR`) + '\n';
}

/** One `ls` row: created, size, session key, locator. */
export function lsRow(entry: SpillEntry): string {
  return `${formatTimestamp(entry.createdAt).padEnd(20)}  ${formatBytes(entry.bytes).padStart(10)}  ${entry.session}  ${entry.locator}\n`;
}

/** The closing line of `ls` output. */
export function lsSummary(count: number, totalBytes: number): string {
  return `${count} ${count === 1 ? 'artifact' : 'artifacts'}, ${formatBytes(totalBytes)}\n`;
}
