/**
 * Line ranges as later actions: a tool call that reads lines `a` to `b` of a file (Claude
 * Code's or OpenCode's Read with an offset, Gemini CLI's `read_file` with a start or end
 * line, `sed -n 'a,bp' file`, `nl -ba file | sed -n 'a,bp'`) needed those lines of an
 * earlier output that showed the same file with its line numbers (a Read, `nl -ba file`,
 * `cat -n file`), when a preview of that output left some of them out. The
 * numbers a preview shows are read from the preview itself, so no output text is kept: per
 * output, its path, the numbers it holds and, per preview, the numbers that preview shows,
 * each kept as runs of consecutive numbers (a view of lines 1 to 5,000 is one run).
 */

import { isNumberedView, isOpenCodeFileView, lineNumberOf } from '@spillway/policy';
import type { TranscriptFormat } from './transcript.js';

/** A later call's reading of lines `first` to `last` (1-based, inclusive) of the file at `path`. */
export interface LineRange {
  readonly path: string;
  readonly first: number;
  readonly last: number;
}

/**
 * Lines a Read shows from where it starts when not told where to stop: Claude Code's and
 * OpenCode's Read without a `limit`, Gemini CLI's `read_file` without an `end_line`.
 */
const READ_DEFAULT_LIMIT = 2000;
/** `sed -n 'a,bp' FILE`: the script, then the file. */
const SED_RANGE = /\bsed\s+-n\s+['"]?(\d+)\s*,\s*(\d+)\s*p['"]?\s+(['"]?)([^-\s'"|;&<>)][^\s'"|;&<>)]*)\3/g;
/** `nl -ba` (with any other options) or `cat -n`, then the file: a file shown numbered. */
const NUMBERED_FILE = String.raw`\b(?:nl\s+-ba(?:\s+-\S+)*|cat\s+-n)\s+(['"]?)([^-\s'"|;&<>)][^\s'"|;&<>)]*)\1`;
/** `nl -ba FILE | sed -n 'a,bp'` or `cat -n FILE | sed -n 'a,bp'`: numbered, then cut. */
const NUMBERED_SED_RANGE = new RegExp(String.raw`${NUMBERED_FILE}\s*\|\s*sed\s+-n\s+['"]?(\d+)\s*,\s*(\d+)\s*p`, 'g');
/** A command that shows a file with its line numbers. */
const NUMBERED_VIEW = new RegExp(NUMBERED_FILE);
/** An excerpt's `[N] ` label, which a preview may put before a numbered line. */
const EXCERPT_LABEL = /^\[\d+\] /;
/** Code units of a line's start read for its number. */
const NUMBER_UNITS = 32;
/** An absolute path: POSIX, a drive letter's, or a UNC one. */
const ABSOLUTE_PATH = /^(?:\/|[A-Za-z]:[\\/]|\\\\)/;
/** A leading `./`, which names the same file as the path without it. */
const DOT_SLASH = /^\.[\\/]/;
/** Most lines of one output whose numbers are read. */
const MAX_NUMBERS = 100_000;
/** Most numbered outputs followed per session (several may show one file); older ones are dropped first. */
const MAX_VIEWS = 64;

function objectOf(input: string): Record<string, unknown> | undefined {
  if (!input.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(input);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The shell command of a call: its `command` or `cmd` argument (an argument list joined), or
 * the input as it is when it is not a JSON object (a script). Other arguments, such as a
 * file's contents to write, are not commands.
 */
function commandOf(args: Record<string, unknown> | undefined, input: string): string {
  if (args === undefined) return input;
  const command = args.command ?? args.cmd;
  if (typeof command === 'string') return command;
  return Array.isArray(command) ? command.filter((x) => typeof x === 'string').join(' ') : '';
}

/** `path` made absolute against the call's `workdir` when it is relative and one is given. */
function resolved(path: string, args: Record<string, unknown> | undefined): string {
  const workdir = args?.workdir;
  if (typeof workdir !== 'string' || workdir === '' || ABSOLUTE_PATH.test(path)) return path;
  const sep = workdir.includes('\\') && !workdir.includes('/') ? '\\' : '/';
  return `${workdir.replace(/[\\/]+$/, '')}${sep}${path.replace(DOT_SLASH, '')}`;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** What a tool call reads of files by their lines. */
export interface CallReads {
  /**
   * The line ranges its arguments read: a Read's `offset` and `limit` (Claude Code's and
   * OpenCode's, both counting from line 1), `read_file`'s `start_line` and `end_line`
   * (Gemini CLI's), `sed -n 'a,bp'` of a file.
   */
  readonly ranges: LineRange[];
  /**
   * With `shownBy: 'output'`, the ranges are at most what the call's output shows: OpenCode's
   * Read stops at 50 KB, whatever its `limit`, so what it read is told by the numbers of the
   * lines its output shows (see {@link shownRange}), and known only once the output comes.
   */
  readonly shownBy?: 'output';
  /** The file it shows with its line numbers (a Read, `nl -ba file`, `cat -n file`), if it does. */
  readonly viewed?: string;
}

/**
 * What a tool call, given its arguments as text, reads of files by their lines; its JSON is
 * parsed once. `format` tells how the host counts a Read's `offset`: from line 1 (Claude
 * Code's, OpenCode's, where `0` is line 1 too), or from 0 (Gemini CLI's `read_file` before
 * it took `start_line`, whose path was `file_path` or `absolute_path`).
 */
export function callReads(input: string, format?: TranscriptFormat): CallReads {
  const ranges: LineRange[] = [];
  const args = objectOf(input);
  // A Read's offset is a line; a search tool's offset skips results, and names no file.
  const file = args?.file_path ?? args?.filePath ?? (format === 'gemini' ? args?.absolute_path : undefined);
  const path = typeof file === 'string' && file !== '' ? file : undefined;
  const raw = args?.offset;
  const fromZero = format === 'gemini' || (format === 'opencode' && typeof args?.filePath === 'string');
  const offset = fromZero && raw === 0 ? 0 : positive(raw);
  if (path !== undefined && offset !== undefined) {
    // Gemini CLI's offset 0 is line 1; OpenCode's (`offset || 1`) too, as is its 1.
    const first = format === 'gemini' ? offset + 1 : Math.max(1, offset);
    ranges.push({ path, first, last: first + (positive(args?.limit) ?? READ_DEFAULT_LIMIT) - 1 });
  }
  const start = positive(args?.start_line);
  const end = positive(args?.end_line);
  if (path !== undefined && offset === undefined && (start !== undefined || end !== undefined)) {
    const first = start ?? 1;
    ranges.push({ path, first, last: end ?? first + READ_DEFAULT_LIMIT - 1 });
  }
  const command = commandOf(args, input);
  if (command.includes('sed')) {
    for (const m of command.matchAll(SED_RANGE)) ranges.push({ path: resolved(m[4] ?? '', args), first: Number(m[1]), last: Number(m[2]) });
    for (const m of command.matchAll(NUMBERED_SED_RANGE)) ranges.push({ path: resolved(m[2] ?? '', args), first: Number(m[3]), last: Number(m[4]) });
  }
  const shown = path ?? NUMBERED_VIEW.exec(command)?.[2];
  const viewed = shown === undefined ? undefined : resolved(shown, args);
  const cut = format === 'opencode' && typeof args?.filePath === 'string' ? { shownBy: 'output' as const } : {};
  return { ranges: ranges.filter((r) => r.path !== '' && r.first <= r.last), ...cut, ...(viewed === undefined ? {} : { viewed }) };
}

/**
 * The part of `range` that `output` shows, by the numbers of its lines as OpenCode's Read
 * numbers them (`12: `): from the first to the last. `undefined` when it shows none (an
 * error, an empty file).
 */
export function shownRange(range: LineRange, output: string): LineRange | undefined {
  const numbers = numbersIn(output, Number.POSITIVE_INFINITY, true);
  const first = numbers[0];
  const last = numbers.at(-1);
  if (first === undefined || last === undefined) return undefined;
  const shown = { path: range.path, first: Math.max(range.first, first), last: Math.min(range.last, last) };
  return shown.first <= shown.last ? shown : undefined;
}

/**
 * The numbers of the numbered lines of `text`, in order (at most `max`); with `openCodeRead`,
 * also of lines numbered `12: ` as OpenCode's Read numbers them.
 */
function numbersIn(text: string, max: number, openCodeRead: boolean): number[] {
  const numbers: number[] = [];
  const options = { openCodeRead };
  for (let from = 0; from < text.length && numbers.length < max; ) {
    let at = text.indexOf('\n', from);
    if (at < 0) at = text.length;
    const n = lineNumberOf(text.slice(from, Math.min(at, from + NUMBER_UNITS)).replace(EXCERPT_LABEL, ''), options);
    if (n !== undefined) numbers.push(n);
    from = at + 1;
  }
  return numbers;
}

/** Lines a host may print before a command's output (Codex prints five) skipped to find the first numbered one. */
const HEADER_LINES = 8;

/**
 * Whether `output` is a numbered file view from its first numbered line on: the host's
 * header (at most {@link HEADER_LINES} lines before it) would count against a short view.
 */
function isNumbered(output: string): boolean {
  for (let from = 0, skipped = 0; from < output.length && skipped <= HEADER_LINES; skipped++) {
    let at = output.indexOf('\n', from);
    if (at < 0) at = output.length;
    if (lineNumberOf(output.slice(from, Math.min(at, from + NUMBER_UNITS))) !== undefined) return isNumberedView(from === 0 ? output : output.slice(from));
    from = at + 1;
  }
  return false;
}

/**
 * A set of line numbers as sorted runs of consecutive ones, none touching the next, so that
 * its memory goes with its runs rather than its numbers: run `i` holds `starts[i]` and the
 * numbers after it, `before[i + 1] - before[i]` in all.
 */
export interface LineRuns {
  /** Each run's first number, ascending. */
  readonly starts: Int32Array;
  /** `before[i]`: how many numbers the runs before run `i` hold; its last entry, all of them. */
  readonly before: Int32Array;
}

/** The runs of `numbers` (in any order, repeats allowed), each taken as a 32-bit integer as an `Int32Array` stores it. */
export function lineRuns(numbers: readonly number[]): LineRuns {
  // Runs as the numbers come: a view's come in turn, one run; sorted and merged only when they did not.
  let pairs: number[] = [];
  let inOrder = true;
  for (const x of numbers) {
    const n = x | 0;
    const k = pairs.length;
    if (k > 0) {
      const first = pairs[k - 2] ?? 0;
      const last = pairs[k - 1] ?? 0;
      if (n === last + 1) {
        pairs[k - 1] = n;
        continue;
      }
      if (n >= first && n <= last) continue;
      if (n < first) inOrder = false;
    }
    pairs.push(n, n);
  }
  if (!inOrder) {
    const order = Array.from({ length: pairs.length / 2 }, (_, i) => i).sort((a, b) => (pairs[2 * a] ?? 0) - (pairs[2 * b] ?? 0));
    const merged: number[] = [];
    for (const i of order) {
      const first = pairs[2 * i] ?? 0;
      const last = pairs[2 * i + 1] ?? 0;
      const end = merged.length - 1;
      if (end > 0 && first <= (merged[end] ?? 0) + 1) merged[end] = Math.max(merged[end] ?? 0, last);
      else merged.push(first, last);
    }
    pairs = merged;
  }
  const runs = pairs.length / 2;
  const starts = new Int32Array(runs);
  const before = new Int32Array(runs + 1);
  for (let i = 0; i < runs; i++) {
    starts[i] = pairs[2 * i] ?? 0;
    before[i + 1] = (before[i] ?? 0) + (pairs[2 * i + 1] ?? 0) - (starts[i] ?? 0) + 1;
  }
  return { starts, before };
}

/** How many numbers of `runs` are at most `x`. */
function countUpTo(runs: LineRuns, x: number): number {
  const { starts, before } = runs;
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((starts[mid] ?? 0) <= x) lo = mid + 1;
    else hi = mid;
  }
  if (lo === 0) return 0;
  const held = before[lo - 1] ?? 0;
  return held + Math.min(x - (starts[lo - 1] ?? 0) + 1, (before[lo] ?? 0) - held);
}

/** How many numbers of `runs` lie in `[first, last]` (whole numbers). */
export function countIn(runs: LineRuns, first: number, last: number): number {
  return countUpTo(runs, last) - countUpTo(runs, first - 1);
}

interface View {
  readonly path: string;
  readonly output: number;
  readonly lines: LineRuns;
  readonly shown: readonly { readonly bit: number; readonly lines: LineRuns }[];
}

/**
 * Whether two paths name the same file: equal without a leading `./`, or a relative one (no
 * working directory known) of at least two parts that an absolute one ends with after a
 * separator.
 */
function samePath(a: string, b: string): boolean {
  const x = a.replace(DOT_SLASH, '');
  const y = b.replace(DOT_SLASH, '');
  if (x === y) return true;
  const [long, short] = x.length > y.length ? [x, y] : [y, x];
  if (ABSOLUTE_PATH.test(short) || !/[^\\/][\\/]+[^\\/]/.test(short)) return false;
  const before = long[long.length - short.length - 1];
  return long.endsWith(short) && (before === '/' || before === '\\');
}

/**
 * The numbered outputs of one session, newest first: for a later call's line range, which
 * previews of the newest output of that file left out some of its lines.
 */
export class LineRangeTracker {
  private views: View[] = [];

  /**
   * Follows output `output` (its index among the session's results) when it is a numbered
   * view of `path`: `previews` gives, per omission bit, the text of a preview of it.
   */
  record(path: string | undefined, output: number, text: string, previews: readonly { readonly bit: number; readonly text: string }[]): void {
    if (path === undefined || previews.length === 0) return;
    // OpenCode's Read numbers its lines `12: `, which counts only in an output with its head.
    const openCodeRead = isOpenCodeFileView(text);
    if (!openCodeRead && !isNumbered(text)) return;
    const lines = lineRuns(numbersIn(text, MAX_NUMBERS, openCodeRead));
    const shown = previews.map(({ bit, text: p }) => ({ bit, lines: lineRuns(numbersIn(p, MAX_NUMBERS, openCodeRead)) }));
    this.views = [{ path, output, lines, shown }, ...this.views].slice(0, MAX_VIEWS);
  }

  /**
   * Calls `f` with the output and the omission bits of the previews that left out lines of
   * `range` that it held: the newest view of the file that holds any line of the range.
   */
  omissions(range: LineRange, f: (output: number, bits: number) => void): void {
    let view: View | undefined;
    let held = 0;
    for (const v of this.views) {
      if (!samePath(v.path, range.path)) continue;
      held = countIn(v.lines, range.first, range.last);
      if (held > 0) {
        view = v;
        break;
      }
    }
    if (view === undefined) return;
    let bits = 0;
    for (const { bit, lines } of view.shown) if (countIn(lines, range.first, range.last) < held) bits |= 1 << bit;
    if (bits !== 0) f(view.output, bits);
  }
}
