import type { GrepResult, ReadResult, SpillEntry } from '@spillway/core';
import { eastAsianWidth } from 'get-east-asian-width';
import type { Style } from './color.js';
import { shellWord } from './cli-error.js';

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
 * What to tell a person when a read answer stopped before the end of the artifact (the
 * line cap, the byte cap, or a line cut short), with how to go on; `undefined` when it
 * reached the end. It goes to stderr, so that a `--raw` copy that is short never passes
 * for a whole one.
 */
export function readStoppedNote(locator: string, result: ReadResult, maxBytes: number): string | undefined {
  if (!result.hasMore) return undefined;
  const loc = shellWord(locator);
  const shown = result.endLine >= result.startLine ? `lines ${result.startLine}-${result.endLine}` : 'no line';
  const next =
    result.nextOffset !== undefined
      ? `continue with --offset ${result.nextOffset}`
      : `line ${result.endLine} is longer than --max-bytes ${maxBytes}: raise --max-bytes`;
  return `spillway: read stopped before the end of the artifact (${shown} of ${result.totalBytes} bytes shown); ${next}, or copy it whole with: spillway cat ${loc} > FILE`;
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

/** The widest a default `ls` row gets, in columns: it fits a 100-column terminal. */
export const LS_WIDTH = 100;
/** How many characters of the session key the default `ls` row shows. */
const LS_SESSION_CHARS = 8;
const LS_FIXED = 20 + 2 + 10 + 2 + LS_SESSION_CHARS + 2;

/**
 * The heading line of `ls` output: the compact columns by default, the full ones (the
 * whole session key and locator) under `--long`.
 */
export function lsHeader(style: Style, long = false): string {
  const last = long ? `SESSION${' '.repeat(34)}  LOCATOR` : `${'SESSION'.padEnd(LS_SESSION_CHARS)}  ARTIFACT`;
  return style.bold(`${'CREATED'.padEnd(20)}  ${'SIZE'.padStart(10)}  ${last}`.trimEnd()) + '\n';
}

/**
 * One `ls` row. By default it fits {@link LS_WIDTH} columns: created, size, the first
 * characters of the session key (without its `session-` prefix) and the artifact's last
 * path segment, cut with `…` when too long. Under `long`: the whole session key and the
 * whole locator.
 */
export function lsRow(entry: SpillEntry, long = false): string {
  const head = `${formatTimestamp(entry.createdAt).padEnd(20)}  ${formatBytes(entry.bytes).padStart(10)}  `;
  if (long) return `${head}${entry.session}  ${entry.locator}\n`;
  const session = entry.session.replace(/^session-/, '').slice(0, LS_SESSION_CHARS).padEnd(LS_SESSION_CHARS);
  const leaf = entry.locator.slice(entry.locator.lastIndexOf('/') + 1);
  return `${head}${session}  ${fitColumns(leaf, LS_WIDTH - LS_FIXED)}\n`;
}

/**
 * Code points a terminal draws in no column of their own: combining and enclosing marks
 * (variation selectors among them), zero-width space, joiners and direction marks, the word
 * joiner and invisible operators, the byte order mark, and tag characters (as in flag emoji).
 */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\u{E0001}\u{E0020}-\u{E007F}]$/u;

let segmenter: Intl.Segmenter | undefined;

/** The grapheme clusters of `text`: what a reader sees as one character, a base with its marks. */
function graphemesOf(text: string): Iterable<Intl.SegmentData> {
  // Made on first use: most commands that load this file never measure a name.
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenter.segment(text);
}

/** The columns of one grapheme cluster. */
function graphemeColumns(grapheme: string): number {
  let columns = 0;
  for (const ch of grapheme) if (!ZERO_WIDTH.test(ch)) columns += eastAsianWidth(ch.codePointAt(0) ?? 0);
  // U+FE0F asks for the emoji presentation, which terminals draw two columns wide (❤️, 1️⃣).
  return grapheme.includes('\uFE0F') ? Math.max(columns, 2) : columns;
}

/**
 * The terminal columns `text` takes: two for each East Asian wide or fullwidth character
 * (CJK, most emoji), none for a combining mark or another zero-width character, one for any
 * other. The characters of an emoji sequence (joined with U+200D, or with a skin tone) are
 * counted each, so such a text is shown shorter than it could be, never wider.
 */
export function columnsOf(text: string): number {
  let columns = 0;
  for (const { segment } of graphemesOf(text)) columns += graphemeColumns(segment);
  return columns;
}

/** `text` when it fits in `room` columns; else its start, cut between grapheme clusters (never between a character and its marks), and `…`, in at most `room`. */
function fitColumns(text: string, room: number): string {
  if (columnsOf(text) <= room) return text;
  let shown = '';
  let columns = 0;
  for (const { segment } of graphemesOf(text)) {
    const width = graphemeColumns(segment);
    if (columns + width > room - 1) break;
    shown += segment;
    columns += width;
  }
  return `${shown}…`;
}

/** Oldest first, then by locator, so the order is stable whatever the backend yields. */
export function byCreation(a: SpillEntry, b: SpillEntry): number {
  const t = a.createdAt.getTime() - b.createdAt.getTime();
  if (t !== 0) return t;
  return a.locator < b.locator ? -1 : a.locator > b.locator ? 1 : 0;
}

/** The closing line of `ls` output. */
export function lsSummary(count: number, totalBytes: number, long = false): string {
  const more = count > 0 && !long ? ' (--long or --json prints whole locators)' : '';
  return `${count} ${count === 1 ? 'artifact' : 'artifacts'}, ${formatBytes(totalBytes)}${more}\n`;
}

/**
 * The line `spillway run` prints on a terminal's stderr after a spill: the exact commands
 * a person types to read or search the stored output (the model gets the notice instead).
 */
export function spillHintLine(locator: string): string {
  const loc = shellWord(locator);
  return `spillway: stored in full; see it with: spillway read ${loc} | search it with: spillway grep ${loc} PATTERN`;
}
