import { utf8ByteLength } from '@spillway/core';
import type { JsonEntry, JsonShape } from './json-shape.js';
import { composeReplacement, cutHead, cutTail, PREVIEW_SEPARATOR, type PreviewSource, type Replacement } from './preview.js';
import { listHead, listOutline, OUTLINE_LINE_BYTES } from './list-outline.js';
import { itemKind } from './list-scan.js';
import { isNumberedView, isOpenCodeFileView } from './numbered-view.js';
import { ASSERTION, ERROR, FATAL } from './salient.js';
import type { Candidate, ExcerptLine, PreviewScan } from './scan.js';

/** The marker after the head when excerpts follow. */
export const EXCERPTS_MARKER = '\n… [excerpts from the omitted middle] …\n';
/** The marker between the excerpts and the tail. */
export const TAIL_MARKER = '… [the end] …\n';
/** The marker between head and tail when no excerpt is shown. */
export const GAP_MARKER = '\n… […] …\n';
/** At most this share of the budget goes to excerpts; head and tail keep the rest. */
const EXCERPT_SHARE = 0.5;
/** At most this share goes to a JSON shape. */
const SHAPE_SHARE = 0.4;
/** At most this share goes to the shape of a JSON test report with failing entries. */
const REPORT_SHAPE_SHARE = 0.15;

/** The label in front of an excerpt line: `[1204] `. */
export function excerptLabel(line: number): string {
  return `[${String(line)}] `;
}

/** What a cut excerpt line ends with. */
export const CUT_MARK = ' …';

/** A source with what one pass over it found. */
export interface OutlineSource extends PreviewSource {
  /** The scan; `undefined` asks for the plain head and tail. */
  readonly scan: PreviewScan | undefined;
}

/**
 * The preview made of parts: a one-line header, the JSON shape (for JSON), the head,
 * salient excerpts from the middle (each line labelled with its number), and the tail,
 * plus the notice, within `cap`. With nothing salient outside what head and tail show, and
 * no JSON, it is exactly {@link composeReplacement}'s head and tail. The notice's N counts
 * the bytes outside head and tail (excerpts are copies from that middle).
 */
export function composeOutline(
  source: OutlineSource,
  cap: number,
  previewLimit: number,
  notice: (omittedBytes: number) => string,
): Replacement | undefined {
  const scan = source.scan === undefined ? undefined : withFailures(source.scan);
  if (scan === undefined) return composeReplacement(source, cap, previewLimit, notice);
  const total = source.totalBytes;
  let digits = String(total).length;
  let best: Replacement | undefined;
  for (;;) {
    const noticeBytes = utf8ByteLength(notice(10 ** digits - 1));
    if (noticeBytes > cap) return best ?? composeReplacement(source, cap, previewLimit, notice);
    const budget = Math.min(cap - noticeBytes - PREVIEW_SEPARATOR.length, previewLimit);
    const built = budget > 0 ? layout(source, scan, budget, cap) : undefined;
    if (built === undefined) return composeReplacement(source, cap, previewLimit, notice);
    const omitted = total - built.shown;
    const candidate: Replacement = { text: built.text + PREVIEW_SEPARATOR + notice(omitted), shownBytes: built.shown, omittedBytes: omitted };
    const used = String(omitted).length;
    if (used > digits) return best ?? composeReplacement(source, cap, previewLimit, notice);
    best = candidate;
    if (used === digits) return best;
    digits = used;
  }
}

interface Built {
  readonly text: string;
  readonly shown: number;
}

interface Window {
  readonly head: string;
  readonly tail: string;
  readonly bytes: number;
  /** Lines shown whole by the head: 1..lastHead. */
  readonly lastHead: number;
  /** Lines shown whole by the tail: firstTail..lines. */
  readonly firstTail: number;
}

function window(source: PreviewSource, lines: number, budget: number): Window {
  const h = cutHead(source.head, Math.ceil(budget / 2));
  const t = cutTail(source.tail, budget - h.bytes);
  const head = source.head.slice(0, h.index);
  const tail = source.tail.slice(t.index);
  const newlines = countNewlines(tail);
  const endsWithBreak = tail.endsWith('\n');
  const atLineStart = t.index > 0 && source.tail.charCodeAt(t.index - 1) === 0x0a;
  const firstTail = tail === '' ? lines + 1 : endsWithBreak || !atLineStart ? lines - newlines + 1 : lines - newlines;
  return { head, tail, bytes: h.bytes + t.bytes, lastHead: countNewlines(head), firstTail };
}

/** The preview for `budget` bytes, or `undefined` when the plain head and tail serve as well. */
function layout(source: PreviewSource, scan: PreviewScan, budget: number, cap: number): Built | undefined {
  const { totalBytes } = source;
  // OpenCode's Read numbers lines `1: `, as many a list numbers its items: its head tells.
  if (scan.json === undefined && isOpenCodeFileView(source.head, cap + 2)) return undefined;
  if (scan.list !== undefined && !failing(scan, scan.list.kinds)) {
    const header = (first: number): string => `${listHeaderLine(scan, totalBytes, first)}\n`;
    const shape = scan.json === undefined ? '' : shapeText(scan.json, Math.floor(budget * SHAPE_SHARE));
    const list =
      listOutline(source, scan.lines, scan.list.sample, scan.list.stride, budget, header, { salient: scan.candidates, shape }) ??
      // Too little saved for an outline (short lines): the plain head, which holds the most
      // items. JSON keeps the salient preview, whose shape names its keys and whose tail
      // closes it; an array of records whose lines are long enough gets its outline above.
      (scan.json === undefined ? listHead(source, scan.lines, budget) : undefined);
    if (list !== undefined) return list;
  }
  // A file shown with its line numbers is read in place and edited: its lines that name an
  // error are code or prose about errors, and a contiguous head and tail serve it better.
  // A stream holds the first `cap + 2` code units: look no further, so both agree.
  if (scan.json === undefined && isNumberedView(source.head, cap + 2)) return undefined;
  const header = `${headerLine(scan, totalBytes)}\n`;
  // A test report's failing entries matter more than its summary counts.
  const shapeShare = scan.failures.length > 0 ? REPORT_SHAPE_SHARE : SHAPE_SHARE;
  const shape = scan.json === undefined ? '' : shapeText(scan.json, Math.floor(budget * shapeShare));
  const fixed = utf8ByteLength(header) + utf8ByteLength(shape);
  const markers = utf8ByteLength(EXCERPTS_MARKER) + utf8ByteLength(TAIL_MARKER);
  const room = budget - fixed - markers;
  if (room <= 0) return undefined;
  const first = window(source, scan.lines, room);
  const outside = (w: Window) => scan.candidates.filter((c) => isOutside(c, w));
  const wanted = outside(first);
  if (wanted.length === 0) {
    if (scan.json === undefined && (scan.candidates.length > 0 || !looksLikeListing(source.head, cap))) return undefined;
    const w = window(source, scan.lines, budget - fixed - utf8ByteLength(GAP_MARKER));
    return { text: header + shape + w.head + GAP_MARKER + w.tail, shown: w.bytes };
  }
  let need = 0;
  for (const c of wanted) need += primaryCost(c) + contextCost(c);
  const reserve = Math.min(need, Math.floor(room * EXCERPT_SHARE));
  const w = window(source, scan.lines, room - reserve);
  const lines = pickLines(outside(w), room - w.bytes, w);
  if (lines.length === 0) {
    const plain = window(source, scan.lines, budget - fixed - utf8ByteLength(GAP_MARKER));
    return { text: header + shape + plain.head + GAP_MARKER + plain.tail, shown: plain.bytes };
  }
  return { text: header + shape + w.head + EXCERPTS_MARKER + lines.join('') + TAIL_MARKER + w.tail, shown: w.bytes };
}

/** Whether a line is not shown whole by head or tail; a fragment may be on a line they show in part. */
function isOutside(line: ExcerptLine & { readonly fragment?: boolean }, w: Window): boolean {
  return line.line > w.lastHead && (line.line < w.firstTail || (line.fragment === true && line.line === w.firstTail));
}

function primaryCost(c: Candidate): number {
  return utf8ByteLength(renderLine(c)) + (c.count > 2 ? utf8ByteLength(floodLine(c)) : 0) + (c.last === undefined ? 0 : utf8ByteLength(renderLine(c.last)));
}

function contextCost(c: Candidate): number {
  return (c.before === undefined ? 0 : utf8ByteLength(renderLine(c.before))) + (c.after === undefined ? 0 : utf8ByteLength(renderLine(c.after)));
}

function renderLine(line: ExcerptLine): string {
  return `${excerptLabel(line.line)}${line.text}${line.cut ? CUT_MARK : ''}\n`;
}

/** Between the first and the last line of a flood: how many more lines of that shape lie between. */
function floodLine(c: Candidate): string {
  const n = c.count - 2;
  return `    (${String(n)} more ${n === 1 ? 'line' : 'lines'} like it between lines ${String(c.line)} and ${String(c.lastLine)})\n`;
}

/**
 * Chooses what fits in `room` bytes: the candidates in rank order, then a line of context
 * for each (the one after, then the one before) in the same order; answers the rendered
 * lines in line order.
 */
function pickLines(candidates: readonly Candidate[], room: number, w: Window): string[] {
  const chosen = new Map<number, string>();
  let left = room;
  // Fragments of one long line are told apart by where they start in it.
  const key = (line: ExcerptLine & { readonly column?: number }): number => line.line + (line.column ?? 0) / 2 ** 32;
  const take = (line: ExcerptLine, extra = ''): void => {
    if (chosen.has(key(line)) || !isOutside(line, w)) return;
    const text = renderLine(line) + extra;
    const cost = utf8ByteLength(text);
    if (cost > left) return;
    chosen.set(key(line), text);
    left -= cost;
  };
  for (const c of candidates) take(c, c.count > 2 ? floodLine(c) : '');
  const primaries = candidates.filter((c) => chosen.has(key(c)));
  for (const c of primaries) if (c.last !== undefined) take(c.last);
  for (const c of primaries) {
    if (c.after !== undefined) take(c.after);
    if (c.before !== undefined) take(c.before);
  }
  return [...chosen.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
}

const SEVERITY_WORDS: readonly (readonly [number, string, string])[] = [
  [FATAL, 'fatal line', 'fatal lines'],
  [ERROR, 'error line', 'error lines'],
  [ASSERTION, 'assertion line', 'assertion lines'],
];

/**
 * Whether the failures in a list matter more than its items: some error or fatal line is
 * not shaped like any item the list starts with (a compiler's diagnostic among emitted
 * files, a message printed into a stream of values), or one is among
 * the last lines (a command that failed after listing what it did). Items that merely
 * mention errors (`git log`, `git ls-files`, `grep -n error`) leave it a list; its outline
 * shows them first anyway.
 */
function failing(scan: PreviewScan, kinds: readonly number[]): boolean {
  const end = scan.lines - ENDING_LINES;
  return scan.candidates.some((c) => c.severity >= ERROR && (!kinds.includes(itemKind(c.text)) || c.lastLine > end));
}

/** An error among the last this many lines is how a run that failed ends, not an item. */
const ENDING_LINES = 10;

/** The failing entries of a JSON test report as excerpts, ranked with the salient lines. */
function withFailures(scan: PreviewScan): PreviewScan {
  if (scan.failures.length === 0) return scan;
  const fragments: Candidate[] = scan.failures.map((f) => ({
    line: f.line,
    text: f.column > 0 ? `…${f.text}` : f.text,
    cut: true,
    severity: ERROR,
    before: undefined,
    after: undefined,
    count: 1,
    lastLine: f.line,
    last: undefined,
    shape: '',
    fragment: true,
    column: f.column,
  }));
  const bySeverity = [...scan.salientBySeverity];
  bySeverity[ERROR] = (bySeverity[ERROR] ?? 0) + fragments.length;
  const candidates = [...scan.candidates.filter((c) => c.severity > ERROR), ...fragments, ...scan.candidates.filter((c) => c.severity <= ERROR)];
  return { ...scan, candidates, salientBySeverity: bySeverity };
}

/** The header of a list's outline: size, and how to read it. */
function listHeaderLine(scan: PreviewScan, totalBytes: number, first: number): string {
  const json = scan.json === undefined ? '' : `; JSON: ${describeRoot(scan.json)}`;
  const lead = first > 0 ? `lines 1-${String(first)} in order (cut at ${String(OUTLINE_LINE_BYTES)} bytes), then ` : '';
  return `[Preview of a list of ${String(scan.lines)} lines, ${String(totalBytes)} bytes${json}; ${lead}lines from all through the rest, labelled [line]: read the stored result from that line to see one in place.]`;
}

/** The one-line header: size, and what the content looks like. */
export function headerLine(scan: PreviewScan, totalBytes: number): string {
  const size = `${String(scan.lines)} lines, ${String(totalBytes)} bytes`;
  const parts: string[] = [];
  if (scan.json !== undefined) parts.push(`JSON: ${describeRoot(scan.json)}`);
  const counts: string[] = [];
  for (const [severity, one, many] of SEVERITY_WORDS) {
    const n = scan.salientBySeverity[severity] ?? 0;
    if (n > 0) counts.push(`${String(n)} ${n === 1 ? one : many}`);
  }
  const first = firstSalient(scan.candidates);
  if (counts.length > 0) parts.push(`${counts.join(', ')}${first === undefined ? '' : `, the first at line ${String(first)}`}`);
  const guide =
    scan.candidates.length > 0
      ? 'excerpts are labelled [line]; read from that line to see one in place'
      : scan.json === undefined
        ? 'a listing: grep the stored result for what you need rather than reading it through'
        : 'grep the stored result for a key or value';
  return `[Preview of ${size}${parts.length > 0 ? `; ${parts.join('; ')}` : ''}; ${guide}.]`;
}

function firstSalient(candidates: readonly Candidate[]): number | undefined {
  let first: number | undefined;
  for (const c of candidates) if (c.severity >= ERROR && (first === undefined || c.line < first)) first = c.line;
  return first;
}

function describeRoot(json: JsonShape): string {
  if (json.kind === 'array') {
    const kind = json.entries[0]?.kind;
    return `an array of ${String(json.count)} ${kind === undefined ? 'items' : plural(kind)}`;
  }
  let biggest: JsonEntry | undefined;
  for (const e of json.entries) if ((e.kind === 'array' || e.kind === 'object') && (biggest === undefined || e.count > biggest.count)) biggest = e;
  const more = biggest === undefined || biggest.key === undefined ? '' : `; "${biggest.key}" is ${describeEntry(biggest)}`;
  return `an object with ${String(json.count)} ${json.count === 1 ? 'key' : 'keys'}${more}`;
}

function plural(kind: string): string {
  return kind === 'boolean' ? 'booleans' : kind === 'null' ? 'nulls' : `${kind}s`;
}

function describeEntry(e: JsonEntry): string {
  if ((e.kind === 'array' || e.kind === 'object') && !e.rawCut && e.raw !== '') return e.raw;
  if (e.kind === 'array') return e.count === 0 ? 'an empty array' : `an array of ${String(e.count)} ${plural(e.firstKind ?? 'item')}`;
  if (e.kind === 'object') return `an object with ${String(e.count)} ${e.count === 1 ? 'key' : 'keys'}`;
  if (e.kind === 'string') return `"${e.scalar}"${e.count > e.scalar.length ? ` (${String(e.count)} characters)` : ''}`;
  return e.scalar;
}

/** The shape: one line per member described, whole lines only, within `budget` bytes. */
function shapeText(json: JsonShape, budget: number): string {
  const lines: string[] = [];
  if (json.kind === 'object') {
    for (const e of json.entries) lines.push(`  "${e.key ?? ''}": ${describeEntry(e)}\n`);
    if (json.count > json.entries.length) lines.push(`  (and ${String(json.count - json.entries.length)} more keys)\n`);
  } else {
    const e = json.entries[0];
    if (e !== undefined) lines.push(`  [0]: ${describeEntry(e)}\n`);
    if (json.firstItemKeys.length > 0) lines.push(`  keys of [0]: ${json.firstItemKeys.map((k) => `"${k}"`).join(', ')}\n`);
  }
  let text = '';
  let bytes = 0;
  for (const line of lines) {
    const cost = utf8ByteLength(line);
    if (bytes + cost > budget) break;
    text += line;
    bytes += cost;
  }
  return text === '' ? '' : `Shape:\n${text}`;
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** Lines of the head that decide whether the text is a listing. */
const LISTING_SAMPLE = 64;
/** Fewer whole lines than this in the sample: too little to tell. */
const LISTING_MIN_LINES = 16;
/**
 * A record of a listing: a path, an `ls -l` or `dpkg -l` row, a `key: value` or `name@version`
 * line of a lockfile or manifest, a row of columns.
 */
const RECORD_RE =
  /^(?:\.{0,2}\/?[\w.@+~-]+(?:\/[\w.@+~ -]*)+|[-dlcbps][-rwxsStT]{9}[.+@]? .*|[a-z][a-zA-Z][a-zA-Z ]? +\S+ +\S+ +.*|\s*['"]?[@\w/.~^-]+['"]?:(?: .*)?|\s*\S+(?: {2,}\S+){2,}\s*)$/;

/**
 * Whether the text looks like the answer to a lookup (a `find`, a lockfile, `dpkg -l`), where
 * what matters depends on the question: decided on the first whole lines only.
 */
function looksLikeListing(head: string, cap: number): boolean {
  // A stream holds the first `cap + 2` code units: look no further, so both agree.
  const end = Math.min(head.length, cap + 2);
  let records = 0;
  let lines = 0;
  for (let from = 0; lines < LISTING_SAMPLE; lines++) {
    const at = head.indexOf('\n', from);
    if (at < 0 || at >= end) break;
    if (RECORD_RE.test(head.slice(from, at))) records++;
    from = at + 1;
  }
  return lines >= LISTING_MIN_LINES && records >= lines * 0.75;
}
