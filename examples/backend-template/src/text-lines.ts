import {
  DEFAULT_GREP_MAX_LINE_BYTES,
  DEFAULT_GREP_MAX_MATCHES,
  DEFAULT_READ_LIMIT,
  DEFAULT_READ_MAX_BYTES,
  SpillError,
  utf8ByteLength,
  type GrepMatch,
  type GrepResult,
  type ReadResult,
} from '@spillway/core';

// Line semantics shared by read and grep, as core's ReadOptions defines them: lines end
// at "\n" (a "\r" before it belongs to the line), a last line without "\n" still counts,
// and a trailing "\n" starts no new line.

/** Read options after validation, with defaults filled in. */
export interface ReadParams {
  readonly offset: number;
  readonly limit: number;
  readonly maxBytes: number;
}

/** Grep options after validation, with defaults filled in. */
export interface GrepParams {
  readonly maxMatches: number;
  readonly maxLineBytes: number;
  readonly ignoreCase: boolean;
  readonly literal: boolean;
}

function wholeNumber(name: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new SpillError('SPILL_INVALID_INPUT', `${name} must be a whole number >= ${min}.`);
  }
  return value;
}

/** Validates read options: `SPILL_INVALID_INPUT` names the bad one. */
export function readParams(options: { offset?: unknown; limit?: unknown; maxBytes?: unknown }): ReadParams {
  return {
    offset: wholeNumber('offset', options.offset, 1, 1),
    limit: wholeNumber('limit', options.limit, DEFAULT_READ_LIMIT, 0),
    maxBytes: wholeNumber('maxBytes', options.maxBytes, DEFAULT_READ_MAX_BYTES, 0),
  };
}

/** Validates grep options: `SPILL_INVALID_INPUT` names the bad one. */
export function grepParams(options: { maxMatches?: unknown; maxLineBytes?: unknown; ignoreCase?: unknown; literal?: unknown }): GrepParams {
  return {
    maxMatches: wholeNumber('maxMatches', options.maxMatches, DEFAULT_GREP_MAX_MATCHES, 0),
    maxLineBytes: wholeNumber('maxLineBytes', options.maxLineBytes, DEFAULT_GREP_MAX_LINE_BYTES, 1),
    ignoreCase: options.ignoreCase === true,
    literal: options.literal === true,
  };
}

/** UTF-16 index where each line starts; one past the last entry is the text's end. */
function lineStarts(text: string): number[] {
  const starts: number[] = [];
  for (let at = 0; at < text.length; ) {
    starts.push(at);
    const nl = text.indexOf('\n', at);
    at = nl === -1 ? text.length : nl + 1;
  }
  return starts;
}

/** Longest prefix of `text` within `maxBytes` UTF-8 bytes that does not split a surrogate pair. */
function prefixWithin(text: string, maxBytes: number): string {
  let bytes = 0;
  let i = 0;
  for (const ch of text) {
    const size = utf8ByteLength(ch);
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += ch.length;
  }
  return text.slice(0, i);
}

/** Answers `read` over a decoded artifact. */
export function readText(text: string, totalBytes: number, p: ReadParams): ReadResult {
  const starts = lineStarts(text);
  const lineCount = starts.length;
  const lineAt = (n: number): string => text.slice(starts[n - 1] ?? text.length, starts[n] ?? text.length);
  const empty = (hasMore: boolean): ReadResult => ({
    text: '',
    startLine: p.offset,
    endLine: p.offset - 1,
    truncated: false,
    hasMore,
    ...(hasMore ? { nextOffset: p.offset } : {}),
    totalBytes,
  });
  if (p.offset > lineCount || p.limit === 0) return empty(p.offset <= lineCount);

  const last = Math.min(lineCount, p.offset + p.limit - 1);
  let used = 0;
  let end = p.offset - 1;
  while (end < last) {
    const size = utf8ByteLength(lineAt(end + 1));
    if (used + size > p.maxBytes) break;
    used += size;
    end++;
  }
  if (end >= p.offset) {
    const hasMore = end < lineCount;
    const shown = text.slice(starts[p.offset - 1], starts[end] ?? text.length);
    return { text: shown, startLine: p.offset, endLine: end, truncated: false, hasMore, ...(hasMore ? { nextOffset: end + 1 } : {}), totalBytes };
  }
  // The first line alone is over the cap: show what fits of it, truncated. There is no
  // nextOffset, since the rest of this line cannot be addressed by a line number; when not
  // even one character fits, offering this offset again would make a pager loop forever.
  const cut = prefixWithin(lineAt(p.offset), p.maxBytes);
  return { text: cut, startLine: p.offset, endLine: cut === '' ? p.offset - 1 : p.offset, truncated: true, hasMore: true, totalBytes };
}

/** Compiles a grep pattern: `SPILL_INVALID_PATTERN` when it is not valid regex source. */
export function compilePattern(pattern: unknown, p: GrepParams): RegExp {
  if (typeof pattern !== 'string') throw new SpillError('SPILL_INVALID_PATTERN', 'A grep pattern must be a string.');
  const source = p.literal ? pattern.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&') : pattern;
  try {
    return new RegExp(source, p.ignoreCase ? 'i' : '');
  } catch (cause) {
    throw new SpillError('SPILL_INVALID_PATTERN', 'The grep pattern is not a valid regular expression; pass literal: true to search for the text itself.', { cause });
  }
}

/** A window of `line` within `maxBytes` around [start, end), never splitting a surrogate pair. */
function windowAround(line: string, start: number, end: number, maxBytes: number): string {
  const isLow = (i: number): boolean => {
    const c = line.charCodeAt(i);
    return c >= 0xdc00 && c <= 0xdfff;
  };
  // Widen a match that starts or ends inside a pair (possible without the u flag).
  let from = start > 0 && isLow(start) ? start - 1 : start;
  let to = end < line.length && isLow(end) ? end + 1 : end;
  if (utf8ByteLength(line.slice(from, to)) >= maxBytes) return prefixWithin(line.slice(from), maxBytes);
  // Grow one code point at a time, alternating right and left, while it fits.
  let bytes = utf8ByteLength(line.slice(from, to));
  for (let grew = true; grew; ) {
    grew = false;
    if (to < line.length) {
      const step = line.length > to + 1 && isLow(to + 1) ? 2 : 1;
      const size = utf8ByteLength(line.slice(to, to + step));
      if (bytes + size <= maxBytes) {
        to += step;
        bytes += size;
        grew = true;
      }
    }
    if (from > 0) {
      const step = from > 1 && isLow(from - 1) ? 2 : 1;
      const size = utf8ByteLength(line.slice(from - step, from));
      if (bytes + size <= maxBytes) {
        from -= step;
        bytes += size;
        grew = true;
      }
    }
  }
  return line.slice(from, to);
}

/** Answers `grep` over a decoded artifact. Runs the regex with no time limit: bound it outside. */
export function grepText(text: string, totalBytes: number, regex: RegExp, p: GrepParams): GrepResult {
  const matches: GrepMatch[] = [];
  const starts = lineStarts(text);
  for (let i = 0; i < starts.length; i++) {
    const raw = text.slice(starts[i], starts[i + 1] ?? text.length);
    const line = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
    const found = regex.exec(line);
    if (found === null) continue;
    if (matches.length === p.maxMatches) return { matches, limitReached: true, totalBytes };
    if (utf8ByteLength(line) <= p.maxLineBytes) {
      matches.push({ line: i + 1, text: line, truncated: false });
    } else {
      const window = windowAround(line, found.index, found.index + found[0].length, p.maxLineBytes);
      matches.push({ line: i + 1, text: window, truncated: true });
    }
  }
  return { matches, limitReached: false, totalBytes };
}
