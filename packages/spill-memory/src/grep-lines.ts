import { SpillError, abortedError, utf8ByteLength } from '@spillway/core';
import type { GrepMatch, GrepResult } from '@spillway/core';
import { escapeRegex, planRegex } from './pattern-guard.js';
import type { RegexPlan } from './pattern-guard.js';

const NEWLINE = 0x0a;
/** Bytes decoded at a time; a line longer than this is decoded whole. */
const DECODE_BLOCK = 1 << 20;
/** Hand the event loop back this often (ms) during a long grep. */
const YIELD_EVERY_MS = 10;

const decoder = new TextDecoder();

/** Where the first match on a line starts, in code units, and how long it is. */
interface Hit {
  readonly index: number;
  readonly length: number;
}

type LineMatcher = (line: string, checkBudget: () => void) => Hit | undefined;

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
  return (line, checkBudget) => {
    if (line.length <= window) {
      whole.lastIndex = 0;
      const m = whole.exec(line);
      return m === null ? undefined : { index: m.index, length: m[0].length };
    }
    // Overlapping windows: any match up to `stride` units long lies inside one of them.
    // Later windows carry one unit of context on each side, so `\b` and lookbehinds see
    // the real neighbour; the regex starts after the left one (lastIndex = 1).
    for (let p = 0; ; p += stride) {
      const end = Math.min(line.length, p + window);
      const isFirst = p === 0;
      const isLast = end === line.length;
      const re = isFirst ? first : isLast ? last : middle;
      const from = isFirst ? 0 : p - 1;
      const to = isLast ? end : end + 1;
      re.lastIndex = isFirst ? 0 : 1;
      const m = re.exec(line.slice(from, to));
      if (m !== null) return { index: from + m.index, length: m[0].length };
      if (isLast) return undefined;
      checkBudget();
    }
  };
}

function literalMatcher(needle: string): LineMatcher {
  return (line) => {
    const index = line.indexOf(needle);
    return index === -1 ? undefined : { index, length: needle.length };
  };
}

/** Builds the line matcher, refusing unsafe or invalid patterns. */
export function makeMatcher(pattern: string, literal: boolean, ignoreCase: boolean): LineMatcher {
  if (literal && !ignoreCase) return literalMatcher(pattern);
  if (literal) return regexMatcher(planRegex(escapeRegex(pattern), true, pattern.length));
  return regexMatcher(planRegex(pattern, ignoreCase));
}

function unitBytes(line: string, i: number): { units: number; bytes: number } {
  const c = line.charCodeAt(i);
  if (c < 0x80) return { units: 1, bytes: 1 };
  if (c < 0x800) return { units: 1, bytes: 2 };
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = line.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return { units: 2, bytes: 4 };
  }
  return { units: 1, bytes: 3 };
}

/**
 * The text to show for a matching line: the whole line when it fits in `maxBytes`, or
 * else a window of at most `maxBytes` bytes that starts a little before the match (a
 * quarter of the budget of context) and never splits a code point.
 */
export function matchWindow(line: string, hit: Hit, maxBytes: number): { text: string; truncated: boolean } {
  if (line.length * 3 <= maxBytes || utf8ByteLength(line) <= maxBytes) return { text: line, truncated: false };
  let at = hit.index;
  const before = line.charCodeAt(at - 1);
  const here = line.charCodeAt(at);
  if (at > 0 && before >= 0xd800 && before <= 0xdbff && here >= 0xdc00 && here <= 0xdfff) at -= 1; // inside a pair
  let start = at;
  let context = 0;
  const contextBudget = Math.floor(maxBytes / 4);
  while (start > 0) {
    const prevIsPair = start >= 2 && unitBytes(line, start - 2).units === 2;
    const step = prevIsPair ? unitBytes(line, start - 2) : unitBytes(line, start - 1);
    if (context + step.bytes > contextBudget) break;
    context += step.bytes;
    start -= step.units;
  }
  let end = start;
  let used = 0;
  while (end < line.length) {
    const step = unitBytes(line, end);
    if (used + step.bytes > maxBytes) break;
    used += step.bytes;
    end += step.units;
  }
  return { text: line.slice(start, end), truncated: true };
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Searches the stored bytes line by line, with the semantics of `SpillReader.grep`. The
 * bytes are decoded a block at a time (whole lines only). The time budget and the abort
 * signal are checked between lines (and between windows of a long line), and the event
 * loop gets a turn every few milliseconds, so a long grep never freezes the process.
 */
export async function grepBytes(bytes: Uint8Array, params: GrepParams): Promise<GrepResult> {
  const matcher = makeMatcher(params.pattern, params.literal, params.ignoreCase);
  const { clock, signal, maxMatches, maxLineBytes, timeoutMs } = params;
  const total = bytes.length;
  const matches: GrepMatch[] = [];
  if (maxMatches === 0) return { matches, limitReached: total > 0, totalBytes: total };
  const started = clock();
  let lastYield = started;
  let lineNumber = 0;
  const checkBudget = (): void => {
    if (signal?.aborted === true) throw abortedError(signal, 'The grep');
    if (clock() - started > timeoutMs) {
      throw new SpillError(
        'SPILL_TIMEOUT',
        `The grep ran out of its ${timeoutMs} ms budget at line ${lineNumber}; use a simpler pattern, literal: true, or a larger timeoutMs.`,
      );
    }
  };
  let blockStart = 0;
  while (blockStart < total) {
    let blockEnd = Math.min(total, blockStart + DECODE_BLOCK);
    if (blockEnd < total) {
      const lastNewline = bytes.lastIndexOf(NEWLINE, blockEnd - 1);
      if (lastNewline >= blockStart) blockEnd = lastNewline + 1;
      else {
        const nl = bytes.indexOf(NEWLINE, blockEnd);
        blockEnd = nl === -1 ? total : nl + 1;
      }
    }
    const text = decoder.decode(bytes.subarray(blockStart, blockEnd));
    let pos = 0;
    while (pos < text.length) {
      const nl = text.indexOf('\n', pos);
      const lineEnd = nl === -1 ? text.length : nl;
      const line = text.slice(pos, lineEnd);
      pos = nl === -1 ? text.length : nl + 1;
      lineNumber += 1;
      checkBudget();
      const hit = matcher(line, checkBudget);
      if (hit !== undefined) {
        const { text: shown, truncated } = matchWindow(line, hit, maxLineBytes);
        matches.push({ line: lineNumber, text: shown, truncated });
        if (matches.length >= maxMatches) {
          const moreAfter = pos < text.length || blockEnd < total;
          return { matches, limitReached: moreAfter, totalBytes: total };
        }
      }
      const now = clock();
      if (now - lastYield >= YIELD_EVERY_MS) {
        await yieldToEventLoop();
        lastYield = clock();
      }
    }
    blockStart = blockEnd;
  }
  return { matches, limitReached: false, totalBytes: total };
}
