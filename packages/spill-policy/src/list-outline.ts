import { utf8ByteLength } from '@spillway/core';
import type { SampledLine } from './list-scan.js';
import { cutHead, cutTail, type PreviewSource } from './preview.js';

/** The most UTF-8 bytes of one item an outline line shows; a longer item is cut and ends with ` …`. */
export const OUTLINE_LINE_BYTES = 120;
/** The share of what cutting saved that the tail gets. */
const TAIL_SHARE = 0.1;

/** The marker between the head and the outline. */
export function outlineMarker(every: number): string {
  return every === 1
    ? '\n… [every line of the omitted middle, cut at 120 bytes, labelled [line]] …\n'
    : `\n… [one line in every ${String(every)} of the omitted middle, and lines that name an error, labelled [line]; read the stored result from a line for the lines after it] …\n`;
}
/** The marker between the outline and the tail. */
export const OUTLINE_END_MARKER = '… [the end] …\n';

/** A list's preview: what it shows and the bytes of the original shown whole (head and tail). */
export interface ListOutline {
  readonly text: string;
  readonly shown: number;
}

/** One outline line: `[N] ` and the item's first bytes, verbatim. */
export function outlineLine(item: SampledLine): string {
  return `[${String(item.line)}] ${cutItem(item.text, item.cut)}\n`;
}

/** An item cut to {@link OUTLINE_LINE_BYTES} at a code point boundary, ending with ` …` when cut. */
function cutItem(text: string, longer: boolean): string {
  const cut = cutHead(text, OUTLINE_LINE_BYTES);
  return longer || cut.index < text.length ? `${text.slice(0, cut.index)} …` : text;
}

/** The head's lines, each cut to {@link OUTLINE_LINE_BYTES}: what they cost, and how many there are. */
interface Lead {
  readonly text: string;
  readonly bytes: number;
  /** Whole lines of the original the head shows (each maybe cut): 1..lines. */
  readonly lines: number;
  /** Bytes of the original shown verbatim and whole. */
  readonly shown: number;
}

/**
 * The lines a plain head of `budget` bytes shows, each cut to {@link OUTLINE_LINE_BYTES}:
 * never fewer items than that head, in fewer bytes when lines are long.
 */
function lead(source: PreviewSource, budget: number): Lead {
  const plain = cutHead(source.head, budget);
  const head = source.head.slice(0, plain.index);
  // A line of no more code units than this is never cut (a unit is at most 3 UTF-8 bytes, 1
  // in ASCII): most lines are shown as they are, and only the others are looked at.
  const uncut = NON_ASCII.test(head) ? Math.floor(OUTLINE_LINE_BYTES / 3) : OUTLINE_LINE_BYTES;
  let text = '';
  /** `head[copied, from)` is shown as it is, and not yet in `text`. */
  let copied = 0;
  /** UTF-8 bytes of the lines cut, with their line breaks. */
  let cutBytes = 0;
  let lines = 0;
  let from = 0;
  for (let at = head.indexOf('\n'); at >= 0; at = head.indexOf('\n', from)) {
    if (at - from > uncut) {
      const line = head.slice(from, at);
      const item = cutItem(line, false);
      if (item !== line) {
        text += `${head.slice(copied, from)}${item}\n`;
        copied = at + 1;
        cutBytes += utf8ByteLength(line) + 1;
      }
    }
    lines++;
    from = at + 1;
  }
  text += head.slice(copied, from);
  return { text, bytes: utf8ByteLength(text), lines, shown: utf8ByteLength(head.slice(0, from)) - cutBytes };
}

/** A code unit outside ASCII. */
const NON_ASCII = /[\u0080-\uffff]/;

/** An outline of the middle needs room for at least this many lines to be worth its header. */
const MIN_OUTLINE_LINES = 4;
/** At most this share of what cutting saved goes to salient lines. */
const SALIENT_SHARE = 0.25;

/** What a list's preview shows besides its items. */
export interface ListExtras {
  /** Salient lines (errors, failures), best first: shown, labelled, before any sampled line. */
  readonly salient: readonly SampledLine[];
  /** Text shown after the header (a JSON shape), or `''`. */
  readonly shape: string;
}

/**
 * The preview of a list within `budget` bytes: a header, the lines a plain head of the same
 * budget would show (each cut to {@link OUTLINE_LINE_BYTES}), then, in what cutting saved:
 * the salient lines, the shape, an outline of the rest (sampled lines spread evenly over
 * it, each with its line number, as many as fit) and the tail. `undefined` when too little
 * is saved for an outline.
 */
export function listOutline(
  source: PreviewSource,
  lines: number,
  sample: readonly SampledLine[],
  stride: number,
  budget: number,
  header: (first: number) => string,
  extras: ListExtras,
): ListOutline | undefined {
  const first = lead(source, budget);
  const head = header(first.lines);
  const fixed = utf8ByteLength(head) + utf8ByteLength(OUTLINE_END_MARKER) + first.bytes;
  let room = budget - fixed;
  const rest = sample.filter((s) => s.line > first.lines);
  if (rest.length === 0) return undefined;
  const perLine = utf8ByteLength(outlineLine(rest[0] as SampledLine));
  if (room < MIN_OUTLINE_LINES * perLine + utf8ByteLength(outlineMarker(stride * 1000))) return undefined;
  // Salient lines first: an error among the items is what a reader looks for before an item.
  const salient = new Map<number, string>();
  let salientRoom = Math.floor(room * SALIENT_SHARE);
  for (const line of extras.salient) {
    if (line.line <= first.lines || salient.has(line.line)) continue;
    const text = outlineLine(line);
    const cost = utf8ByteLength(text);
    if (cost > salientRoom) continue;
    salient.set(line.line, text);
    salientRoom -= cost;
  }
  room -= Math.floor(room * SALIENT_SHARE) - salientRoom;
  const shape = utf8ByteLength(extras.shape) <= room / 2 ? extras.shape : '';
  room -= utf8ByteLength(shape);
  const tail = cutTail(source.tail, Math.floor(room * TAIL_SHARE));
  const tailText = source.tail.slice(tail.index);
  const firstTail = tailText === '' ? lines + 1 : lines - countNewlines(tailText) + (tailText.endsWith('\n') ? 1 : 0);
  const items = rest.filter((s) => s.line < firstTail && !salient.has(s.line));
  const chosen = pick(items.map(outlineLine), items.map((s) => s.line), stride, room - tail.bytes);
  if (chosen === undefined) return undefined;
  for (const [line, text] of salient) if (line < firstTail) chosen.lines.set(line, text);
  const outline = [...chosen.lines.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]).join('');
  return { text: head + shape + first.text + outlineMarker(chosen.every) + outline + OUTLINE_END_MARKER + tailText, shown: first.shown + tail.bytes };
}

/** Every `step`-th of `items`, the smallest step whose lines and marker fit in `space`. */
function pick(items: readonly string[], numbers: readonly number[], stride: number, space: number): { lines: Map<number, string>; every: number } | undefined {
  const costs = items.map(utf8ByteLength);
  for (let step = 1; step <= Math.max(1, costs.length); step++) {
    let bytes = utf8ByteLength(outlineMarker(stride * step));
    for (let i = 0; i < costs.length; i += step) bytes += costs[i] as number;
    if (bytes <= space) {
      const lines = new Map<number, string>();
      for (let i = 0; i < items.length; i += step) lines.set(numbers[i] as number, items[i] as string);
      return { lines, every: stride * step };
    }
  }
  return undefined;
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** The marker after the head of a list too short-lined for an outline: what is left out and how to get at it. */
export function listRestMarker(from: number, lines: number): string {
  return `\n… [lines ${String(from)}-${String(lines)} of the list left out: grep the stored result for an item, or read it from line ${String(from)} on] …\n`;
}

/**
 * A list shown as its plain head: the most items a head of `budget` bytes holds. The
 * marker's width is reserved for the widest line number first, so a shorter one only
 * leaves the head a few bytes short.
 */
export function listHead(source: PreviewSource, lines: number, budget: number): ListOutline | undefined {
  const head = cutHead(source.head, budget - utf8ByteLength(listRestMarker(lines, lines)));
  if (head.bytes === 0) return undefined;
  const text = source.head.slice(0, head.index);
  const from = countNewlines(text) + 1;
  return { text: text + listRestMarker(from, lines), shown: head.bytes };
}
