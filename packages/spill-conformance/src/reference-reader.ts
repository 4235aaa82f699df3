import { RE2JS } from 're2js';
import {
  DEFAULT_GREP_MAX_LINE_BYTES,
  DEFAULT_GREP_MAX_MATCHES,
  DEFAULT_READ_LIMIT,
  DEFAULT_READ_MAX_BYTES,
  MAX_GREP_PATTERN_LENGTH,
  SpillError,
  type GrepMatch,
  type GrepOptions,
  type GrepResult,
  type ReadOptions,
  type ReadResult,
  utf8ByteLength,
  wholeNumberProblem,
} from '@spillway/core';
import {
  cutToBytes,
  isCodePointBoundary,
  isWellFormed,
  prefixEndForBytes,
  suffixStartForBytes,
  toStoredText,
} from './text.js';

/**
 * Splits text into lines as `ReadOptions` defines them: each line keeps its `\n`
 * terminator (and any `\r` before it); a final line without a terminator is still a
 * line; a trailing `\n` does not start a new one. `""` has no lines.
 */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) break;
    lines.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** Escapes every regular-expression syntax character, so the result matches `text` literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/**
 * How the reference reader produced a {@link ReadResult}, which decides how strictly a
 * backend's answer is compared with it (see {@link checkReadResult}).
 *
 * - `lines`: whole lines (possibly none); every field is fully determined by the contract.
 * - `partial`: the first line alone exceeds `maxBytes` and was cut inside; the contract
 *   fixes the flags but lets the backend pick any non-empty, code-point-safe prefix.
 * - `nothing-fits`: `maxBytes` is smaller than the first code point; every field is fixed
 *   (`text: ''`, `endLine: startLine - 1`, `truncated: true`, `hasMore: true`, no
 *   `nextOffset`, so a client paging by `nextOffset` cannot loop on this line).
 */
export type ReferenceReadKind = 'lines' | 'partial' | 'nothing-fits';

/** One matching line as the reference grep sees it, before any cut. */
export interface ReferenceGrepHit {
  /** 1-based line number. */
  readonly line: number;
  /** The line without its `\n` terminator (a `\r` stays). */
  readonly body: string;
  /** UTF-16 index of the first match in `body`, widened to a code-point boundary. */
  readonly start: number;
  /** UTF-16 index just after the first match, widened to a code-point boundary. */
  readonly end: number;
}

function invalidInput(message: string): SpillError {
  return new SpillError('SPILL_INVALID_INPUT', message);
}

type Bag = Readonly<Record<string, unknown>>;

function optionsBag(options: unknown): Bag {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw invalidInput('options must be an object when given.');
  }
  return options as Bag;
}

function integerOption(bag: Bag, name: string, fallback: number, min: number): number {
  const value = bag[name];
  if (value === undefined) return fallback;
  const problem = wholeNumberProblem(value, { min });
  if (problem !== undefined) throw invalidInput(`${name} ${problem}.`);
  return value as number;
}

function booleanOption(bag: Bag, name: string): boolean {
  const value = bag[name];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw invalidInput(`${name} must be a boolean.`);
  return value;
}

function checkSignal(bag: Bag): void {
  const signal = bag.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw invalidInput('signal must be an AbortSignal.');
}

/** `read` arguments after the contract's checks, with defaults applied. */
export interface ReferenceReadArguments {
  readonly offset: number;
  readonly limit: number;
  readonly maxBytes: number;
  readonly offsetByte?: number;
}

/** `grep` arguments after the contract's checks, with defaults applied. */
export interface ReferenceGrepArguments {
  readonly pattern: string;
  readonly maxMatches: number;
  readonly maxLineBytes: number;
  readonly ignoreCase: boolean;
  readonly literal: boolean;
}

/**
 * The contract's checks of `read` options, straight from core's `ReadOptions` TSDoc.
 *
 * @throws SpillError `SPILL_INVALID_INPUT` for options that are not an object, `offset`
 * not an integer >= 1, `limit`, `maxBytes` or `offsetByte` not an integer >= 0, or a
 * `signal` that is not an `AbortSignal`.
 */
export function checkReadArguments(options: unknown): ReferenceReadArguments {
  const bag = optionsBag(options);
  const offset = integerOption(bag, 'offset', 1, 1);
  const limit = integerOption(bag, 'limit', DEFAULT_READ_LIMIT, 0);
  const maxBytes = integerOption(bag, 'maxBytes', DEFAULT_READ_MAX_BYTES, 0);
  const offsetByte = bag.offsetByte === undefined ? undefined : integerOption(bag, 'offsetByte', 0, 0);
  checkSignal(bag);
  return { offset, limit, maxBytes, ...(offsetByte === undefined ? {} : { offsetByte }) };
}

/**
 * The contract's checks of `grep` arguments, in the contract's order: options first
 * (`SPILL_INVALID_INPUT`), then the pattern (`SPILL_INVALID_PATTERN`: not a string, longer
 * than `MAX_GREP_PATTERN_LENGTH`, a lone surrogate, or, unless `literal`, not RE2 syntax).
 */
export function checkGrepArguments(pattern: unknown, options: unknown): ReferenceGrepArguments {
  const bag = optionsBag(options);
  const maxMatches = integerOption(bag, 'maxMatches', DEFAULT_GREP_MAX_MATCHES, 0);
  const maxLineBytes = integerOption(bag, 'maxLineBytes', DEFAULT_GREP_MAX_LINE_BYTES, 0);
  const ignoreCase = booleanOption(bag, 'ignoreCase');
  const literal = booleanOption(bag, 'literal');
  const timeoutMs = bag.timeoutMs;
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || timeoutMs === Infinity)) {
    throw invalidInput('timeoutMs must be a finite number > 0.');
  }
  checkSignal(bag);
  compilePattern(pattern, { ignoreCase, literal });
  return { pattern: pattern as string, maxMatches, maxLineBytes, ignoreCase, literal };
}

/**
 * The reference implementation (the oracle) of `SpillReader.read` and `SpillReader.grep`
 * over one artifact's text, written straight from the TSDoc of `ReadOptions`,
 * `ReadResult`, `GrepOptions` and `GrepMatch` in `@spillway/core`.
 *
 * It holds the text as stored (lone surrogates already U+FFFD) and its lines, so many
 * queries against one artifact split it once. It is meant for tests: it keeps the
 * whole text in memory and runs regular expressions without a time limit.
 *
 * @example
 * const ref = new ReferenceArtifact('a\nb\n');
 * ref.read({ offset: 2 }); // { text: 'b\n', startLine: 2, endLine: 2, hasMore: false, … }
 */
export class ReferenceArtifact {
  /** The text as a backend stores it (see {@link toStoredText}). */
  readonly text: string;
  /** The lines, each with its terminator (see {@link splitLines}). */
  readonly lines: readonly string[];
  /** The stored size in UTF-8 bytes. */
  readonly totalBytes: number;
  private readonly lineBytes: readonly number[];

  /** @param content - the content as it was saved; lone surrogates are replaced here */
  constructor(content: string) {
    this.text = toStoredText(content);
    this.lines = splitLines(this.text);
    this.lineBytes = this.lines.map((line) => utf8ByteLength(line));
    this.totalBytes = this.lineBytes.reduce((sum, b) => sum + b, 0);
  }

  /**
   * The line that starts at byte `position`, when one other than the first does (the byte
   * before it is a `\n` and it is before the end): the only positions `offsetByte` moves
   * a read to. 0, the end, past it and the middle of a line name none.
   */
  private lineStartingAt(position: number | undefined): number | undefined {
    if (position === undefined || position <= 0 || position >= this.totalBytes) return undefined;
    let start = 0;
    for (let line = 1; line < this.lines.length; line++) {
      start += this.lineBytes[line - 1] ?? 0;
      if (start === position) return line + 1;
      if (start > position) return undefined;
    }
    return undefined;
  }

  /** The number of lines. */
  get lineCount(): number {
    return this.lines.length;
  }

  /**
   * The canonical answer to `read(locator, options)`.
   *
   * @throws SpillError `SPILL_INVALID_INPUT` as {@link checkReadArguments} says.
   */
  read(options?: ReadOptions): ReadResult {
    return this.readDetailed(options).result;
  }

  /** {@link ReferenceArtifact.read} plus which case of the contract produced the answer, and for a cut line which line it is. */
  readDetailed(options?: ReadOptions): { result: ReadResult; kind: ReferenceReadKind; line?: number } {
    const { offset, limit, maxBytes, offsetByte } = checkReadArguments(options);
    const n = this.lines.length;
    const base = { startLine: offset, totalBytes: this.totalBytes };
    // The line reading starts at: `offset`'s, unless `offsetByte` names a line start; the
    // answer is numbered from `offset` either way (the caller vouches for the position).
    const first = offset === 1 ? 1 : (this.lineStartingAt(offsetByte) ?? offset);
    const shift = offset - first;

    if (first > n || limit === 0) {
      const hasMore = first <= n;
      const result: ReadResult = {
        ...base,
        text: '',
        endLine: offset - 1,
        truncated: false,
        hasMore,
        ...(hasMore ? { nextOffset: offset } : {}),
      };
      return { result, kind: 'lines' };
    }

    const lastWanted = Math.min(n, first + limit - 1);
    let used = 0;
    let last = first - 1;
    const parts: string[] = [];
    for (let line = first; line <= lastWanted; line++) {
      const bytes = this.lineBytes[line - 1] ?? 0;
      if (used + bytes > maxBytes) break;
      used += bytes;
      parts.push(this.lines[line - 1] ?? '');
      last = line;
    }

    if (last >= first) {
      const hasMore = last < n;
      const result: ReadResult = {
        ...base,
        text: parts.join(''),
        endLine: last + shift,
        truncated: false,
        hasMore,
        ...(hasMore ? { nextOffset: last + shift + 1 } : {}),
      };
      return { result, kind: 'lines' };
    }

    // Not even the first line fits: cut it at the last code point that does.
    const cut = cutToBytes(this.lines[first - 1] ?? '', maxBytes);
    if (cut === '') {
      // Core: nothing fits, so no nextOffset (paging on with this maxBytes never progresses).
      const result: ReadResult = { ...base, text: '', endLine: offset - 1, truncated: true, hasMore: true };
      return { result, kind: 'nothing-fits' };
    }
    const result: ReadResult = { ...base, text: cut, endLine: offset, truncated: true, hasMore: true };
    return { result, kind: 'partial', line: first };
  }

  /**
   * Every matching line with the span of its first match, ignoring `maxMatches` and
   * `maxLineBytes`.
   *
   * @throws SpillError `SPILL_INVALID_PATTERN` when the pattern is not acceptable.
   */
  hits(pattern: string, options: Pick<GrepOptions, 'ignoreCase' | 'literal'> = {}): ReferenceGrepHit[] {
    const first = compilePattern(pattern, options);
    const hits: ReferenceGrepHit[] = [];
    this.lines.forEach((line, i) => {
      const body = line.endsWith('\n') ? line.slice(0, -1) : line;
      const match = first(body);
      if (match === undefined) return;
      let [start, end] = match;
      if (!isCodePointBoundary(body, start)) start--;
      if (!isCodePointBoundary(body, end)) end++;
      hits.push({ line: i + 1, body, start, end });
    });
    return hits;
  }

  /**
   * The canonical answer to `grep(locator, pattern, options)`. `limitReached` is true
   * exactly when a further matching line exists; a long line is cut to a window around
   * its first match, with up to half the spare room before the match.
   *
   * @throws SpillError as {@link checkGrepArguments} says.
   */
  grep(pattern: string, options?: GrepOptions): GrepResult {
    const { maxMatches, maxLineBytes, ignoreCase, literal } = checkGrepArguments(pattern, options);
    const hits = this.hits(pattern, { ignoreCase, literal });
    const matches: GrepMatch[] = hits.slice(0, maxMatches).map((hit) => ({
      line: hit.line,
      ...grepWindow(hit, maxLineBytes),
    }));
    return { matches, limitReached: hits.length > maxMatches, totalBytes: this.totalBytes };
  }
}

function invalidPattern(message: string, cause?: unknown): SpillError {
  return new SpillError('SPILL_INVALID_PATTERN', message, cause === undefined ? {} : { cause });
}

/**
 * The first match on a line, by the contract's dialect: RE2 syntax and semantics (run by
 * re2js alone, the linear-time engine, whatever a backend runs), or plain text.
 */
function compilePattern(pattern: unknown, options: Pick<GrepOptions, 'ignoreCase' | 'literal'>): (body: string) => [number, number] | undefined {
  if (typeof pattern !== 'string') throw invalidPattern('A pattern must be a string.');
  if (pattern.length > MAX_GREP_PATTERN_LENGTH) throw invalidPattern(`A pattern is at most ${MAX_GREP_PATTERN_LENGTH} code units.`);
  if (!isWellFormed(pattern)) throw invalidPattern('A pattern must not hold a lone surrogate.');
  const ignoreCase = options.ignoreCase === true;
  if (options.literal === true && !ignoreCase) {
    return (body) => {
      const at = body.indexOf(pattern);
      return at === -1 ? undefined : [at, at + pattern.length];
    };
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(options.literal === true ? RE2JS.quote(pattern) : pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (cause) {
    throw invalidPattern(`Not valid RE2 syntax: ${JSON.stringify(pattern)}.`, cause);
  }
  return (body) => {
    const m = re.matcher(body);
    return m.find() ? [m.start(), m.end()] : undefined;
  };
}

/** The reference cut of one matching line to `maxLineBytes`. */
function grepWindow(hit: ReferenceGrepHit, maxLineBytes: number): { text: string; truncated: boolean } {
  const { body, start, end } = hit;
  if (utf8ByteLength(body) <= maxLineBytes) return { text: body, truncated: false };
  const matchBytes = utf8ByteLength(body.slice(start, end));
  if (matchBytes >= maxLineBytes) {
    return { text: body.slice(start, prefixEndForBytes(body, start, maxLineBytes)), truncated: true };
  }
  let spare = maxLineBytes - matchBytes;
  let from = suffixStartForBytes(body, start, Math.floor(spare / 2));
  spare -= utf8ByteLength(body.slice(from, start));
  const to = prefixEndForBytes(body, end, spare);
  spare -= utf8ByteLength(body.slice(end, to));
  from = suffixStartForBytes(body, from, spare);
  return { text: body.slice(from, to), truncated: true };
}

/** The reference answer to `read` for `content` (see {@link ReferenceArtifact.read}). */
export function referenceRead(content: string, options: ReadOptions = {}): ReadResult {
  return new ReferenceArtifact(content).read(options);
}

/** The reference answer to `grep` for `content` (see {@link ReferenceArtifact.grep}). */
export function referenceGrep(content: string, pattern: string, options: GrepOptions = {}): GrepResult {
  return new ReferenceArtifact(content).grep(pattern, options);
}

function toArtifact(content: string | ReferenceArtifact): ReferenceArtifact {
  return typeof content === 'string' ? new ReferenceArtifact(content) : content;
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
  return String(value);
}

/**
 * Compares a backend's `read` answer with the contract and lists every difference (an
 * empty list means it conforms). It is exact wherever the contract fixes the answer
 * (whole lines, and the case where nothing fits in `maxBytes`); where the contract leaves a
 * choice (how much of an over-long line to show), it checks the rules instead: a
 * non-empty, code-point-safe prefix of the line within `maxBytes`.
 *
 * @param content - the saved content, or a {@link ReferenceArtifact} built from it
 * @param options - the options the backend was called with (valid ones)
 * @param actual - what the backend answered
 */
export function checkReadResult(
  content: string | ReferenceArtifact,
  options: ReadOptions,
  actual: ReadResult,
): string[] {
  const artifact = toArtifact(content);
  const { result: expected, kind, line: cutLine } = artifact.readDetailed(options);
  const problems: string[] = [];
  const field = (key: keyof ReadResult): void => {
    if (actual[key] !== expected[key]) {
      problems.push(`${key} is ${show(actual[key])}, expected ${show(expected[key])}`);
    }
  };
  if (typeof actual.text !== 'string') return [`text is ${typeof actual.text}, expected a string`];
  field('startLine');
  field('totalBytes');
  const maxBytes = options.maxBytes ?? DEFAULT_READ_MAX_BYTES;
  const bytes = utf8ByteLength(actual.text);
  if (bytes > maxBytes) problems.push(`text holds ${bytes} bytes, more than maxBytes ${maxBytes}`);

  if (kind === 'lines') {
    field('text');
    field('endLine');
    field('truncated');
    field('hasMore');
    field('nextOffset');
  } else if (kind === 'partial') {
    // The line read: `offset`'s, or the one an offsetByte moved the read to.
    const lineNumber = cutLine ?? expected.startLine;
    const line = artifact.lines[lineNumber - 1] ?? '';
    if (actual.text === '') problems.push('text is empty although part of the over-long line fits in maxBytes');
    else if (!line.startsWith(actual.text)) problems.push(`text ${show(actual.text)} is not a prefix of line ${lineNumber}`);
    else if (!isCodePointBoundary(line, actual.text.length)) problems.push('text ends inside a surrogate pair');
    field('endLine');
    field('truncated');
    field('hasMore');
    field('nextOffset');
  } else {
    if (actual.text !== '') problems.push(`text is ${show(actual.text)}, but nothing fits in maxBytes ${maxBytes}`);
    field('endLine');
    field('truncated');
    field('hasMore');
    if (actual.nextOffset !== undefined) {
      problems.push(`nextOffset is ${actual.nextOffset}, but nothing fits in maxBytes ${maxBytes}: it must be absent, or a client paging by nextOffset loops forever`);
    }
  }
  return problems;
}

/**
 * Compares a backend's `grep` answer with the contract and lists every difference (an
 * empty list means it conforms). Line numbers, order, count and whole-line texts are
 * exact. Where the contract leaves a choice it checks the rules instead: a cut line is a
 * code-point-safe window of the line within `maxLineBytes` that contains the first match
 * (or lies on it, when the match alone is longer); and when exactly `maxMatches` lines
 * match, `limitReached` may be either value.
 *
 * @param content - the saved content, or a {@link ReferenceArtifact} built from it
 * @param pattern - the pattern the backend was called with
 * @param options - the options the backend was called with (valid ones)
 * @param actual - what the backend answered
 */
export function checkGrepResult(
  content: string | ReferenceArtifact,
  pattern: string,
  options: GrepOptions,
  actual: GrepResult,
): string[] {
  const artifact = toArtifact(content);
  const hits = artifact.hits(pattern, options);
  const maxMatches = options.maxMatches ?? DEFAULT_GREP_MAX_MATCHES;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_GREP_MAX_LINE_BYTES;
  const problems: string[] = [];
  if (actual.totalBytes !== artifact.totalBytes) {
    problems.push(`totalBytes is ${actual.totalBytes}, expected ${artifact.totalBytes}`);
  }
  const expectedLines = hits.slice(0, maxMatches).map((h) => h.line);
  const actualLines = actual.matches.map((m) => m.line);
  if (JSON.stringify(actualLines) !== JSON.stringify(expectedLines)) {
    problems.push(`matching lines are [${actualLines.join(', ')}], expected [${expectedLines.join(', ')}]`);
    return problems;
  }
  if (hits.length > maxMatches && !actual.limitReached) {
    problems.push(`limitReached is false, but ${hits.length} lines match and maxMatches is ${maxMatches}`);
  }
  if (hits.length < maxMatches && actual.limitReached) {
    problems.push(`limitReached is true, but only ${hits.length} lines match and maxMatches is ${maxMatches}`);
  }
  actual.matches.forEach((match, i) => {
    const hit = hits[i];
    if (hit === undefined) return;
    const problem = checkGrepMatchText(hit, match, maxLineBytes);
    if (problem !== undefined) problems.push(`line ${hit.line}: ${problem}`);
  });
  return problems;
}

function checkGrepMatchText(hit: ReferenceGrepHit, match: GrepMatch, maxLineBytes: number): string | undefined {
  const { body, start, end } = hit;
  if (typeof match.text !== 'string') return `text is ${typeof match.text}, expected a string`;
  if (utf8ByteLength(body) <= maxLineBytes) {
    if (match.text !== body) return `text is ${show(match.text)}, expected the whole line ${show(body)}`;
    if (match.truncated) return 'truncated is true for a line that fits in maxLineBytes';
    return undefined;
  }
  if (!match.truncated) return 'truncated is false for a line longer than maxLineBytes';
  const bytes = utf8ByteLength(match.text);
  if (bytes > maxLineBytes) return `text holds ${bytes} bytes, more than maxLineBytes ${maxLineBytes}`;
  const matchFits = utf8ByteLength(body.slice(start, end)) <= maxLineBytes;
  // Every place the window could have come from; one of them must hold the match.
  let at = body.indexOf(match.text);
  while (at !== -1) {
    const to = at + match.text.length;
    const safe = isCodePointBoundary(body, at) && isCodePointBoundary(body, to);
    // A match longer than the budget is shown from its start: empty when not even its first
    // character fits.
    const placed = matchFits ? at <= start && to >= end : (at < end && to > start) || at === start;
    if (safe && placed) return undefined;
    // indexOf clamps its start to the length, so stop by hand after the last position.
    at = at >= body.length ? -1 : body.indexOf(match.text, at + 1);
  }
  return matchFits
    ? `text ${show(match.text)} is not a code-point-safe window of the line that contains the first match`
    : `text ${show(match.text)} is not a code-point-safe window of the line on the first match`;
}
