import { SpillError, abortedError, isSpillError, utf8ByteLength } from '@spillway/core';
import type { GrepMatch, GrepResult } from '@spillway/core';
import { escapeRegex, planRegex } from './pattern-guard.js';
import type { RegexPlan } from './pattern-guard.js';

const NEWLINE = 0x0a;
/** Bytes decoded at a time; a line longer than this is decoded whole. */
const DECODE_BLOCK = 1 << 20;
/** Hand the event loop back this often (ms) during a long grep. */
const YIELD_EVERY_MS = 10;

// ignoreBOM keeps a leading U+FEFF: it is content, and the default decoder would drop it.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Where the first match on a line starts, in code units, and how long it is. */
interface Hit {
  readonly index: number;
  readonly length: number;
}

/**
 * What a matcher says about a line: a hit, no match (`undefined`), or that it stopped
 * at a window boundary to let the event loop run (`resumeAt`, the next window's start).
 */
type MatchStep = Hit | { readonly resumeAt: number } | undefined;

/**
 * Searches `line` from window position `from`. `pause` is called between windows; it
 * throws when the time budget is spent and returns true when the event loop is due a turn.
 */
type LineMatcher = (line: string, from: number, pause: () => boolean) => MatchStep;

/** What `grepBytes` needs besides the bytes. */
export interface GrepParams {
  readonly pattern: string;
  readonly literal: boolean;
  readonly ignoreCase: boolean;
  readonly maxMatches: number;
  readonly maxLineBytes: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  /** A monotonic clock in milliseconds. */
  readonly clock: () => number;
}

function regexMatcher(plan: RegexPlan): LineMatcher {
  const { window, whole, first, middle, last } = plan;
  const stride = window / 2;
  return (line, from, pause) => {
    if (line.length <= window) {
      whole.lastIndex = 0;
      const m = whole.exec(line);
      return m === null ? undefined : { index: m.index, length: m[0].length };
    }
    // Overlapping windows: any match up to `stride` units long lies inside one of them.
    // Later windows carry one unit of context on each side, so `\b` and lookbehinds see
    // the real neighbour; the regex starts after the left one (lastIndex = 1).
    for (let p = from; ; p += stride) {
      const end = Math.min(line.length, p + window);
      const isFirst = p === 0;
      const isLast = end === line.length;
      const re = isFirst ? first : isLast ? last : middle;
      const sliceFrom = isFirst ? 0 : p - 1;
      const sliceTo = isLast ? end : end + 1;
      re.lastIndex = isFirst ? 0 : 1;
      const m = re.exec(line.slice(sliceFrom, sliceTo));
      if (m !== null) return { index: sliceFrom + m.index, length: m[0].length };
      if (isLast) return undefined;
      if (pause()) return { resumeAt: p + stride };
    }
  };
}

function literalMatcher(needle: string): LineMatcher {
  return (line) => {
    // indexOf is linear and cannot be interrupted, so it runs over the whole line at once.
    const index = line.indexOf(needle);
    return index === -1 ? undefined : { index, length: needle.length };
  };
}

/** A line matcher and how it wants to be driven. */
interface Matcher {
  readonly match: LineMatcher;
  /** Check the clock after about this many code units of lines (one regex window). */
  readonly checkEvery: number;
  /** A case-sensitive literal, searched over whole blocks rather than line by line. */
  readonly needle: string | undefined;
}

/** Builds the matcher, refusing unsafe or invalid patterns. */
export function makeMatcher(pattern: string, literal: boolean, ignoreCase: boolean): Matcher {
  if (literal && !ignoreCase) return { match: literalMatcher(pattern), checkEvery: 1 << 20, needle: pattern };
  const plan = literal ? planRegex(escapeRegex(pattern), true, pattern.length) : planRegex(pattern, ignoreCase);
  return { match: regexMatcher(plan), checkEvery: plan.window, needle: undefined };
}

function isHigh(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** True when index `i` of `s` does not fall between the halves of a surrogate pair. */
function isBoundary(s: string, i: number): boolean {
  return i <= 0 || i >= s.length || !(isHigh(s.charCodeAt(i - 1)) && isLow(s.charCodeAt(i)));
}

/** UTF-8 size of the code point that starts at `i` (a lone surrogate is U+FFFD, 3 bytes). */
function forwardStep(s: string, i: number): { units: number; bytes: number } {
  const c = s.charCodeAt(i);
  if (c < 0x80) return { units: 1, bytes: 1 };
  if (c < 0x800) return { units: 1, bytes: 2 };
  if (isHigh(c) && isLow(s.charCodeAt(i + 1))) return { units: 2, bytes: 4 };
  return { units: 1, bytes: 3 };
}

/** UTF-8 size of the code point that ends just before `i`. */
function backwardStep(s: string, i: number): { units: number; bytes: number } {
  if (i >= 2 && isLow(s.charCodeAt(i - 1)) && isHigh(s.charCodeAt(i - 2))) return { units: 2, bytes: 4 };
  return forwardStep(s, i - 1);
}

/** Moves forward from `from` over whole code points while they fit in `budget` bytes. */
function extendForward(s: string, from: number, budget: number): { to: number; used: number } {
  let to = from;
  let used = 0;
  while (to < s.length) {
    const step = forwardStep(s, to);
    if (used + step.bytes > budget) break;
    used += step.bytes;
    to += step.units;
  }
  return { to, used };
}

/** Moves back from `from` over whole code points while they fit in `budget` bytes. */
function extendBackward(s: string, from: number, budget: number): { at: number; used: number } {
  let at = from;
  let used = 0;
  while (at > 0) {
    const step = backwardStep(s, at);
    if (used + step.bytes > budget) break;
    used += step.bytes;
    at -= step.units;
  }
  return { at, used };
}

/**
 * The text to show for a matching line: the whole line when it fits in `maxBytes`. A
 * longer line is cut to a window of at most `maxBytes` bytes, never inside a code point,
 * that holds the whole first match with the spare room shared before and after it; when
 * the match alone is too long, the window starts at the match.
 */
export function matchWindow(line: string, hit: Hit, maxBytes: number): { text: string; truncated: boolean } {
  if (line.length * 3 <= maxBytes || utf8ByteLength(line) <= maxBytes) return { text: line, truncated: false };
  let start = hit.index;
  let end = hit.index + hit.length;
  if (!isBoundary(line, start)) start -= 1; // a regex without the u flag can match half a pair
  if (!isBoundary(line, end)) end += 1;
  const matchBytes = utf8ByteLength(line.slice(start, end));
  if (matchBytes >= maxBytes) {
    return { text: line.slice(start, extendForward(line, start, maxBytes).to), truncated: true };
  }
  let spare = maxBytes - matchBytes;
  const before = extendBackward(line, start, Math.floor(spare / 2));
  spare -= before.used;
  const after = extendForward(line, end, spare);
  spare -= after.used;
  const from = extendBackward(line, before.at, spare).at; // room left after the line end goes before
  return { text: line.slice(from, after.to), truncated: true };
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** How many `\n` there are in `text` from `from` up to (not including) `to`. */
function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) n += 1;
  return n;
}

/** Where the block of whole lines that starts at `start` ends (after a `\n`, or at the end). */
function blockEnd(bytes: Uint8Array, start: number): number {
  const total = bytes.length;
  const end = Math.min(total, start + DECODE_BLOCK);
  if (end === total) return total;
  const lastNewline = bytes.lastIndexOf(NEWLINE, end - 1);
  if (lastNewline >= start) return lastNewline + 1;
  const nl = bytes.indexOf(NEWLINE, end); // one line longer than a block: take it whole
  return nl === -1 ? total : nl + 1;
}

/**
 * Searches the stored bytes line by line, with the semantics of `SpillReader.grep`. The
 * bytes are decoded a block of whole lines at a time. After `maxMatches` matches it keeps
 * looking for one more, so `limitReached` is true exactly when another matching line
 * exists (or, if the time budget runs out during that look-ahead, when one may exist).
 *
 * The time budget and the abort signal are checked after every regex window's worth of
 * text (and between the windows of a long line), and the event loop gets a turn every
 * few milliseconds, so a long grep never freezes the process. A case-sensitive literal
 * is searched over a whole block at once, and only the lines it hits are cut out.
 */
export async function grepBytes(bytes: Uint8Array, params: GrepParams): Promise<GrepResult> {
  const matcher = makeMatcher(params.pattern, params.literal, params.ignoreCase);
  const { clock, signal, maxMatches, maxLineBytes, timeoutMs } = params;
  const totalBytes = bytes.length;
  const matches: GrepMatch[] = [];
  const started = clock();
  let lastYield = started;
  let linesDone = 0; // lines before the current one
  /** Throws when aborted or out of time; answers whether the event loop is due a turn. */
  const pause = (): boolean => {
    if (signal?.aborted === true) throw abortedError(signal, 'The grep');
    const now = clock();
    if (now - started > timeoutMs) {
      throw new SpillError(
        'SPILL_TIMEOUT',
        `The grep ran out of its ${timeoutMs} ms budget at line ${linesDone + 1}; use a simpler pattern, literal: true, or a larger timeoutMs.`,
      );
    }
    return now - lastYield >= YIELD_EVERY_MS;
  };
  const breathe = async (): Promise<void> => {
    if (pause()) {
      await yieldToEventLoop();
      lastYield = clock();
    }
  };
  /** Records a hit on line `linesDone + 1`; true when the answer is complete. */
  const record = (line: string, hit: Hit): boolean => {
    if (matches.length === maxMatches) return true; // the one more that proves limitReached
    matches.push({ line: linesDone + 1, ...matchWindow(line, hit, maxLineBytes) });
    return false;
  };
  const needle = matcher.needle !== undefined && matcher.needle !== '' ? matcher.needle : undefined;
  if (needle?.includes('\n') === true) return { matches, limitReached: false, totalBytes }; // no line holds a \n

  try {
    for (let start = 0; start < totalBytes; ) {
      const end = blockEnd(bytes, start);
      const text = decoder.decode(bytes.subarray(start, end));
      start = end;
      await breathe();
      let pos = 0;
      if (needle !== undefined) {
        for (let at = text.indexOf(needle); at !== -1; at = pos < text.length ? text.indexOf(needle, pos) : -1) {
          const lineStart = text.lastIndexOf('\n', at) + 1;
          linesDone += countNewlines(text, pos, lineStart);
          const nl = text.indexOf('\n', at);
          const lineEnd = nl === -1 ? text.length : nl;
          if (record(text.slice(lineStart, lineEnd), { index: at - lineStart, length: needle.length })) {
            return { matches, limitReached: true, totalBytes };
          }
          linesDone += 1;
          pos = lineEnd + 1;
          await breathe();
        }
        if (pos < text.length) linesDone += countNewlines(text, pos, text.length) + (text.endsWith('\n') ? 0 : 1);
        continue;
      }
      let sinceCheck = 0;
      while (pos < text.length) {
        const nl = text.indexOf('\n', pos);
        const lineEnd = nl === -1 ? text.length : nl;
        const line = text.slice(pos, lineEnd);
        pos = lineEnd + 1;
        sinceCheck += line.length + 1;
        if (sinceCheck >= matcher.checkEvery) {
          sinceCheck = 0;
          await breathe();
        }
        let step = matcher.match(line, 0, pause);
        while (step !== undefined && 'resumeAt' in step) {
          await breathe();
          step = matcher.match(line, step.resumeAt, pause);
        }
        if (step !== undefined && record(line, step)) return { matches, limitReached: true, totalBytes };
        linesDone += 1;
      }
    }
  } catch (error) {
    // Out of time while only looking for one more match: there may be more.
    if (matches.length === maxMatches && isSpillError(error, 'SPILL_TIMEOUT')) {
      return { matches, limitReached: true, totalBytes };
    }
    throw error;
  }
  return { matches, limitReached: false, totalBytes };
}
