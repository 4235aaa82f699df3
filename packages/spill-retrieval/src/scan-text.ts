/**
 * Grep over a block of whole lines held as a string, shared by the in-process engines
 * and the regex worker (so it imports nothing that needs Node).
 */

/** One matching line, numbered within the whole artifact. */
export interface FoundLine {
  readonly line: number;
  readonly text: string;
  readonly truncated: boolean;
}

/** The first match on one line: `[start, end)` in UTF-16 code units, or undefined. */
export type FirstMatch = (line: string) => readonly [number, number] | undefined;

/**
 * Finds, from `from`, the index of a position in the block that may belong to a
 * matching line (`-1`: no line from `from` on matches). It may nominate lines that do
 * not match, never skip one that does.
 */
export type Nominate = (block: string, from: number) => number;

/** What {@link scanBlock} needs besides the block. */
export interface BlockScan {
  /** The number of the block's first line. */
  readonly firstLine: number;
  /** How many more matching lines to collect (0: stop at the first one). */
  readonly remaining: number;
  readonly maxLineBytes: number;
  /** A line already reported (a long line searched in pieces): not reported again. */
  readonly skipLine: number;
}

/** The outcome of {@link scanBlock}. */
export interface BlockResult {
  readonly matches: FoundLine[];
  /** True when `remaining` was reached. */
  readonly stopped: boolean;
  /** When stopped: whether the block holds anything after the last matching line. */
  readonly after: boolean;
}

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** UTF-8 size and UTF-16 width of the code point starting at `i`. */
function forward(s: string, i: number): [bytes: number, units: number] {
  const c = s.charCodeAt(i);
  if (c < 0x80) return [1, 1];
  if (c < 0x800) return [2, 1];
  if (isHigh(c) && isLow(s.charCodeAt(i + 1))) return [4, 2];
  return [3, 1];
}

/** UTF-8 size and UTF-16 width of the code point ending just before `i`. */
function backward(s: string, i: number): [bytes: number, units: number] {
  const c = s.charCodeAt(i - 1);
  if (c < 0x80) return [1, 1];
  if (c < 0x800) return [2, 1];
  if (isLow(c) && i >= 2 && isHigh(s.charCodeAt(i - 2))) return [4, 2];
  return [3, 1];
}

function utf8Length(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; ) {
    const [b, u] = forward(s, i);
    n += b;
    i += u;
  }
  return n;
}

/**
 * The text of a matching line: the whole line when it fits in `max` UTF-8 bytes, else a
 * window of whole code points that holds the first match `[ms, me)` (with up to half the
 * spare room before it), or that starts on it when the match alone is longer than `max`.
 */
export function matchWindow(line: string, ms0: number, me0: number, max: number): { text: string; truncated: boolean } {
  if (line.length <= max / 3 || utf8Length(line, 0, line.length) <= max) return { text: line, truncated: false };
  const splits = (i: number): boolean => i > 0 && i < line.length && isHigh(line.charCodeAt(i - 1)) && isLow(line.charCodeAt(i));
  const ms = splits(ms0) ? ms0 - 1 : ms0;
  const me = splits(me0) ? me0 + 1 : me0;
  let budget = max;
  const grow = (at: number, limit: number): number => {
    let to = at;
    let left = Math.min(limit, budget);
    while (to < line.length) {
      const [b, u] = forward(line, to);
      if (b > left) break;
      left -= b;
      budget -= b;
      to += u;
    }
    return to;
  };
  const shrinkBack = (at: number, limit: number): number => {
    let from = at;
    let left = Math.min(limit, budget);
    while (from > 0) {
      const [b, u] = backward(line, from);
      if (b > left) break;
      left -= b;
      budget -= b;
      from -= u;
    }
    return from;
  };
  const matchBytes = utf8Length(line, ms, me);
  if (matchBytes >= max) return { text: line.slice(ms, grow(ms, max)), truncated: true };
  budget -= matchBytes;
  let from = shrinkBack(ms, Math.floor(budget / 2));
  const to = grow(me, budget);
  from = shrinkBack(from, budget);
  return { text: line.slice(from, to), truncated: true };
}

function countNewlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = s.indexOf('\n', from); i !== -1 && i < to; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** Characters of lines searched between two ticks of {@link scanBlock}, at most (plus one line). */
const TICK_CHARS = 16 * 1024;

/**
 * Collects matching lines of `block` (whole lines, the last one possibly without `\n`).
 * `tick` is called every few hundred lines or 16 K characters; it throws to stop the scan (deadline, abort).
 */
export function scanBlock(block: string, scan: BlockScan, first: FirstMatch, nominate: Nominate | undefined, tick?: () => void): BlockResult {
  const matches: FoundLine[] = [];
  let counted = 0;
  let line = scan.firstLine;
  let i = 0;
  let steps = 0;
  let sinceTick = 0;
  while (i < block.length) {
    let ls = i;
    if (nominate !== undefined) {
      const q = nominate(block, i);
      // The very end of the block belongs to a line only when no `\n` ends the block.
      if (q === -1 || q > block.length || (q === block.length && block.endsWith('\n'))) break;
      ls = q === 0 ? 0 : block.lastIndexOf('\n', q - 1) + 1;
      if (ls < i) ls = i;
    }
    let le = block.indexOf('\n', ls);
    if (le === -1) le = block.length;
    // Every few hundred lines, or sooner over long lines: a line's search costs with its length.
    sinceTick += le - ls + 1;
    if (tick !== undefined && (++steps % 256 === 0 || sinceTick >= TICK_CHARS)) {
      tick();
      sinceTick = 0;
    }
    const text = block.slice(ls, le);
    const hit = first(text);
    if (hit !== undefined) {
      line += countNewlines(block, counted, ls);
      counted = ls;
      if (line !== scan.skipLine) {
        if (matches.length >= scan.remaining) return { matches, stopped: true, after: true };
        matches.push({ line, ...matchWindow(text, hit[0], hit[1], scan.maxLineBytes) });
        if (matches.length >= scan.remaining) return { matches, stopped: true, after: le + 1 < block.length };
      }
    }
    i = le + 1;
  }
  return { matches, stopped: false, after: false };
}

/** Nominates the lines that contain `literal` (a line without it cannot match). */
export function literalNominate(literal: string): Nominate {
  return (text, from) => text.indexOf(literal, from);
}

/** A {@link FirstMatch} and {@link Nominate} pair over native `RegExp` sources. */
export function nativeMatchers(line: string, block: string, flags: string, literal?: string): { first: FirstMatch; nominate: Nominate } {
  const lineRe = new RegExp(line, flags);
  const blockRe = new RegExp(block, `${flags}gm`);
  if (literal !== undefined) {
    return {
      first: (text) => {
        const m = lineRe.exec(text);
        return m === null ? undefined : [m.index, m.index + m[0].length];
      },
      nominate: literalNominate(literal),
    };
  }
  return {
    first: (text) => {
      const m = lineRe.exec(text);
      return m === null ? undefined : [m.index, m.index + m[0].length];
    },
    nominate: (text, from) => {
      blockRe.lastIndex = from;
      const m = blockRe.exec(text);
      return m === null ? -1 : m.index;
    },
  };
}
