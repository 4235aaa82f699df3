/**
 * The model-facing retrieval tools, `spill_read` and `spill_grep`, defined once so that
 * every adapter (the MCP proxy, the AI SDK and LangChain adapters, a hand-written harness)
 * offers them with the same names, arguments, descriptions and answers. A prompt or a
 * model's habit then carries over from one harness to the next.
 *
 * This module has no Node imports and knows no backend: it runs the calls through any
 * {@link SpillReader}.
 *
 * @packageDocumentation
 */
import {
  DEFAULT_GREP_MAX_MATCHES,
  DEFAULT_READ_MAX_BYTES,
  isSpillError,
  spillLocator,
} from '@spillway/core';
import type { GrepResult, ReadResult, SpillErrorCode, SpillLocator, SpillReader } from '@spillway/core';
import {
  boundRows,
  DEFAULT_SPILL_ANSWER_BYTES,
  DEFAULT_SPILL_ANSWER_MATCHES,
  MIN_SPILL_ANSWER_BYTES,
  utf8Prefix,
} from './answer-bound.js';

export { DEFAULT_SPILL_ANSWER_BYTES, DEFAULT_SPILL_ANSWER_MATCHES, MIN_SPILL_ANSWER_BYTES } from './answer-bound.js';
import { SPILL_SEARCH_TOOL } from './search-tool.js';

/** The name of the tool that reads lines of a spilled result back. */
export const SPILL_READ_TOOL = 'spill_read';
/** The name of the tool that searches a spilled result. */
export const SPILL_GREP_TOOL = 'spill_grep';
/** Every retrieval tool's name (`spill_search` too): add them to the policy's `skipTools`. */
export const SPILL_TOOL_NAMES: readonly [typeof SPILL_READ_TOOL, typeof SPILL_GREP_TOOL, typeof SPILL_SEARCH_TOOL] = [
  SPILL_READ_TOOL,
  SPILL_GREP_TOOL,
  SPILL_SEARCH_TOOL,
];

/** Arguments of `spill_read`. */
export interface SpillReadArgs {
  /** The locator from a spill notice, verbatim. */
  readonly locator: string;
  /** 1-based number of the first line. Default 1. */
  readonly offset?: number;
  /** How many lines at most. Default: the reader's default. */
  readonly limit?: number;
}

/** Arguments of `spill_grep`. */
export interface SpillGrepArgs {
  /** The locator from a spill notice, verbatim. */
  readonly locator: string;
  /** The pattern: a regular expression unless `literal` is set. */
  readonly pattern: string;
  /** Match the pattern as plain text. */
  readonly literal?: boolean;
  /** Match without regard to case. */
  readonly ignoreCase?: boolean;
  /** Stop after this many matching lines. */
  readonly maxMatches?: number;
}

/** A JSON Schema object, as MCP `inputSchema` and the frameworks' `jsonSchema()` take it. */
export interface SpillToolJsonSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly required: readonly string[];
  readonly additionalProperties: false;
}

/** One retrieval tool's definition, ready to map onto a framework's tool type. */
export interface SpillToolDefinition {
  /** `spill_read` or `spill_grep`. */
  readonly name: typeof SPILL_READ_TOOL | typeof SPILL_GREP_TOOL;
  /** One-paragraph description for the model. */
  readonly description: string;
  /** The JSON Schema of the arguments. */
  readonly inputSchema: SpillToolJsonSchema;
}

const LOCATOR_PROPERTY = {
  type: 'string',
  description: 'The locator exactly as a spill notice printed it ("stored at: <locator>").',
} as const;

/** The definition of `spill_read`. */
export const spillReadTool: SpillToolDefinition = {
  name: SPILL_READ_TOOL,
  description:
    'Read lines of a tool result that was too large to show in full and was stored ' +
    '(a spill notice names its locator). Returns the lines from `offset` (1-based) on, ' +
    'at most `limit` of them and at most a bounded number of bytes, and says where to ' +
    'continue.',
  inputSchema: {
    type: 'object',
    properties: {
      locator: LOCATOR_PROPERTY,
      offset: { type: 'integer', minimum: 1, description: '1-based number of the first line to read. Default 1.' },
      limit: { type: 'integer', minimum: 0, description: 'How many lines to read at most.' },
    },
    required: ['locator'],
    additionalProperties: false,
  },
};

/** The definition of `spill_grep`. */
export const spillGrepTool: SpillToolDefinition = {
  name: SPILL_GREP_TOOL,
  description:
    'Search a tool result that was too large to show in full and was stored (a spill ' +
    'notice names its locator). Returns the matching lines with their line numbers; read ' +
    'around a match with spill_read.',
  inputSchema: {
    type: 'object',
    properties: {
      locator: LOCATOR_PROPERTY,
      pattern: { type: 'string', description: 'A regular expression, or plain text with `literal: true`.' },
      literal: { type: 'boolean', description: 'Match the pattern as plain text. Default false.' },
      ignoreCase: { type: 'boolean', description: 'Match without regard to case. Default false.' },
      maxMatches: { type: 'integer', minimum: 1, description: 'Stop after this many matching lines.' },
    },
    required: ['locator', 'pattern'],
    additionalProperties: false,
  },
};

/** Both retrieval tools' definitions, in a stable order. */
export const spillToolDefinitions: readonly SpillToolDefinition[] = [spillReadTool, spillGrepTool];

/**
 * Limits an adapter applies to every retrieval call. Whatever the model asks for, an
 * answer's text is at most `maxAnswerBytes` UTF-8 bytes and a `spill_grep` answer holds at
 * most `maxMatches` lines; an answer that was cut says so and how to continue.
 */
export interface SpillToolOptions {
  /**
   * Cap, in UTF-8 bytes, on the whole text of one answer (the footer included), at least
   * {@link MIN_SPILL_ANSWER_BYTES}. Default {@link DEFAULT_SPILL_ANSWER_BYTES}.
   */
  readonly maxAnswerBytes?: number;
  /** The most matching lines one `spill_grep` answer holds. Default {@link DEFAULT_SPILL_ANSWER_MATCHES}. */
  readonly maxMatches?: number;
  /**
   * Byte cap on one `spill_read` answer's lines. Default {@link DEFAULT_READ_MAX_BYTES};
   * never more than `maxAnswerBytes` leaves beside the footer.
   */
  readonly maxReadBytes?: number;
  /** Default `maxMatches` when the model gives none. Default {@link DEFAULT_GREP_MAX_MATCHES}. */
  readonly defaultMaxMatches?: number;
  /** Cancels the call. */
  readonly signal?: AbortSignal;
}

/** Room kept beside a `spill_read` answer's lines for its footer. */
const READ_FOOTER_BYTES = 256;
/** The most characters of a pattern quoted back in a footer. */
const QUOTED_PATTERN_CHARS = 120;

interface Limits {
  readonly maxAnswerBytes: number;
  readonly maxMatches: number;
}

function positiveInteger(value: unknown, name: string, min: number): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)) {
    throw new TypeError(`${name} must be a whole number of at least ${String(min)}; got ${typeof value === 'number' ? String(value) : typeof value}.`);
  }
}

/**
 * Checks an adapter's {@link SpillToolOptions} once, at construction, so that a bad
 * configuration fails the deployment rather than every call.
 *
 * @throws TypeError for a `maxAnswerBytes` under {@link MIN_SPILL_ANSWER_BYTES}, or a
 * `maxMatches`, `maxReadBytes` or `defaultMaxMatches` that is not a positive whole number.
 */
export function checkSpillToolOptions(options: SpillToolOptions): void {
  positiveInteger(options.maxAnswerBytes, 'maxAnswerBytes', MIN_SPILL_ANSWER_BYTES);
  positiveInteger(options.maxMatches, 'maxMatches', 1);
  positiveInteger(options.maxReadBytes, 'maxReadBytes', 1);
  positiveInteger(options.defaultMaxMatches, 'defaultMaxMatches', 1);
}

function limitsOf(options: SpillToolOptions): Limits {
  checkSpillToolOptions(options);
  return {
    maxAnswerBytes: options.maxAnswerBytes ?? DEFAULT_SPILL_ANSWER_BYTES,
    maxMatches: options.maxMatches ?? DEFAULT_SPILL_ANSWER_MATCHES,
  };
}

/** What a retrieval tool call answers: text for the model, plus the reader's data. */
export type SpillToolAnswer =
  | {
      /** The answer to show the model. */
      readonly text: string;
      /** The call worked. */
      readonly isError: false;
      /** The reader's own answer, for structured outputs. */
      readonly data: ReadResult | GrepResult;
    }
  | {
      /** The error, worded for the model. */
      readonly text: string;
      /** The call failed; map onto the framework's tool error (MCP: `isError: true`). */
      readonly isError: true;
      /** The `SpillError` code, or `undefined` for an unexpected failure. */
      readonly code: SpillErrorCode | undefined;
    };

/** Why the arguments were refused, before the reader was asked. */
class ArgumentError extends Error {}

function record(args: unknown, tool: string): Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new ArgumentError(`${tool} takes an object of arguments.`);
  }
  return args as Record<string, unknown>;
}

function locatorArg(args: Record<string, unknown>, tool: string): string {
  const value = args.locator;
  if (typeof value !== 'string' || value.length === 0) {
    throw new ArgumentError(`${tool} needs \`locator\`: the locator exactly as the spill notice printed it.`);
  }
  return value;
}

// Absent values stay absent, so the reader applies its defaults; present values go through
// unchanged, so that the reader's one validation answers every bad value the same way.
function optional(args: Record<string, unknown>, key: string): { readonly [k: string]: unknown } {
  return args[key] === undefined ? {} : { [key]: args[key] };
}

function failure(error: unknown, tool: string, maxBytes = DEFAULT_SPILL_ANSWER_BYTES): SpillToolAnswer {
  // An error's message may quote what the model sent (a huge locator or pattern): bound it too.
  const bounded = (text: string): string => utf8Prefix(text, maxBytes);
  if (error instanceof ArgumentError) {
    return { text: bounded(error.message), isError: true, code: 'SPILL_INVALID_INPUT' };
  }
  if (isSpillError(error)) {
    return { text: bounded(`${tool} failed (${error.code}): ${error.message}`), isError: true, code: error.code };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { text: bounded(`${tool} failed: ${message}`), isError: true, code: undefined };
}

/**
 * One call of `tool` on untrusted `args`: the limits, the arguments' object and its
 * locator are checked, then `answer` runs; whatever throws on the way becomes the tool's
 * error answer, bounded by the answer cap (the default one when the limits themselves are bad).
 */
async function guarded(
  tool: string,
  args: unknown,
  options: SpillToolOptions,
  answer: (a: Record<string, unknown>, locator: SpillLocator, limits: Limits) => Promise<SpillToolAnswer>,
): Promise<SpillToolAnswer> {
  let cap = DEFAULT_SPILL_ANSWER_BYTES;
  try {
    const limits = limitsOf(options);
    cap = limits.maxAnswerBytes;
    const a = record(args, tool);
    return await answer(a, spillLocator(locatorArg(a, tool)), limits);
  } catch (error) {
    return failure(error, tool, cap);
  }
}

/**
 * Runs `spill_read` with untrusted arguments. Never throws: a bad argument or locator, a
 * missing or expired artifact, answers `isError: true` with text the model can act on.
 */
export function runSpillRead(
  reader: SpillReader,
  args: unknown,
  options: SpillToolOptions = {},
): Promise<SpillToolAnswer> {
  return guarded(SPILL_READ_TOOL, args, options, async (a, locator, limits) => {
    const cap = limits.maxAnswerBytes;
    const result = await reader.read(locator, {
      ...(optional(a, 'offset') as { offset?: number }),
      ...(optional(a, 'limit') as { limit?: number }),
      maxBytes: Math.min(options.maxReadBytes ?? DEFAULT_READ_MAX_BYTES, cap - READ_FOOTER_BYTES),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const bounded = boundRead(result, cap - READ_FOOTER_BYTES);
    return { text: utf8Prefix(formatReadAnswer(bounded, cap), cap), isError: false, data: bounded };
  });
}

/**
 * The read answer cut to `maxBytes` of text, for a reader that returned more than it was
 * asked for: whole lines when at least one fits, else the first bytes of the line.
 */
function boundRead(result: ReadResult, maxBytes: number): ReadResult {
  const shown = utf8Prefix(result.text, maxBytes);
  if (shown === result.text) return result;
  const lastBreak = shown.lastIndexOf('\n');
  if (lastBreak === -1) {
    const { nextOffset: _next, ...rest } = result;
    return { ...rest, text: shown, endLine: result.startLine, truncated: true, hasMore: true };
  }
  const text = shown.slice(0, lastBreak + 1);
  let lines = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  const endLine = result.startLine + lines - 1;
  return { ...result, text, endLine, truncated: false, hasMore: true, nextOffset: endLine + 1 };
}

/**
 * Runs `spill_grep` with untrusted arguments. Never throws: a bad argument, locator or
 * pattern answers `isError: true` with text the model can act on. The answer holds at
 * most `maxMatches` lines and `maxAnswerBytes` bytes, whatever `maxMatches` the model
 * asked for; when it holds fewer than exist, it says after which line more follow.
 */
export function runSpillGrep(
  reader: SpillReader,
  args: unknown,
  options: SpillToolOptions = {},
): Promise<SpillToolAnswer> {
  return guarded(SPILL_GREP_TOOL, args, options, async (a, locator, limits) => {
    const cap = limits.maxAnswerBytes;
    const pattern = a.pattern;
    if (typeof pattern !== 'string') {
      throw new ArgumentError(`${SPILL_GREP_TOOL} needs \`pattern\`: a regular expression, or plain text with literal: true.`);
    }
    const asked = a.maxMatches ?? Math.min(options.defaultMaxMatches ?? DEFAULT_GREP_MAX_MATCHES, limits.maxMatches);
    // A bad value goes to the reader as it is, so that its one validation answers it.
    const clamped = typeof asked === 'number' && asked > limits.maxMatches;
    const result = await reader.grep(locator, pattern, {
      ...(optional(a, 'literal') as { literal?: boolean }),
      ...(optional(a, 'ignoreCase') as { ignoreCase?: boolean }),
      maxMatches: (clamped ? limits.maxMatches : asked) as number,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const answer = grepAnswer(result, pattern, { cap, ceiling: limits.maxMatches, clamped });
    return { text: answer.text, isError: false, data: answer.data };
  });
}

/**
 * Runs a retrieval tool by name: the one entry point an adapter's dispatcher needs.
 * An unknown name answers `isError: true`.
 */
export function runSpillTool(
  reader: SpillReader,
  name: string,
  args: unknown,
  options: SpillToolOptions = {},
): Promise<SpillToolAnswer> {
  if (name === SPILL_READ_TOOL) return runSpillRead(reader, args, options);
  if (name === SPILL_GREP_TOOL) return runSpillGrep(reader, args, options);
  return Promise.resolve({
    text: `Unknown retrieval tool "${name}": use ${SPILL_READ_TOOL} or ${SPILL_GREP_TOOL}.`,
    isError: true,
    code: 'SPILL_INVALID_INPUT',
  });
}

/**
 * Words a {@link ReadResult} for the model: the text verbatim, then one line in
 * parentheses that says which lines were shown and how to continue. With `maxAnswerBytes`,
 * the footer of a line cut to fit says that the answer's cap cut it.
 */
export function formatReadAnswer(result: ReadResult, maxAnswerBytes?: number): string {
  const { text, startLine, endLine, hasMore, nextOffset, truncated, totalBytes } = result;
  let footer: string;
  if (endLine < startLine) {
    footer = hasMore
      ? nextOffset === undefined
        ? `(Line ${String(startLine)} does not fit in one answer. Search within it with ${SPILL_GREP_TOOL}.)`
        : `(No lines read. Continue with ${SPILL_READ_TOOL} offset ${String(nextOffset)}.)`
      : `(No line ${String(startLine)}: the stored result ends before it. It holds ${String(totalBytes)} bytes.)`;
  } else {
    const range = endLine === startLine ? `Line ${String(startLine)}` : `Lines ${String(startLine)}-${String(endLine)}`;
    const cap = maxAnswerBytes === undefined ? '' : `, the most one answer holds (${String(maxAnswerBytes)} bytes)`;
    if (!hasMore) footer = `(${range}; end of the stored result, ${String(totalBytes)} bytes in all.)`;
    else if (nextOffset !== undefined) footer = `(${range} of a ${String(totalBytes)}-byte result. More follows: continue with ${SPILL_READ_TOOL} offset ${String(nextOffset)}.)`;
    else if (truncated) footer = `(${range}; line ${String(endLine)} was cut because it is too long to show whole${cap}. Search within it with ${SPILL_GREP_TOOL}, or continue with ${SPILL_READ_TOOL} offset ${String(endLine + 1)}.)`;
    else footer = `(${range} of a ${String(totalBytes)}-byte result. More follows.)`;
  }
  const separator = text === '' || text.endsWith('\n') ? '' : '\n';
  return `${text}${separator}${footer}`;
}

/** How {@link grepAnswer} bounds an answer. */
interface GrepBound {
  /** Byte cap on the whole text. */
  readonly cap: number;
  /** The most matches one answer holds. */
  readonly ceiling: number;
  /** True when the model asked for more than `ceiling`. */
  readonly clamped: boolean;
}

function quote(pattern: string): string {
  return JSON.stringify(pattern.length > QUOTED_PATTERN_CHARS ? `${pattern.slice(0, QUOTED_PATTERN_CHARS)}…` : pattern);
}

/** The grep answer's text within the bound, and the reader's answer trimmed to what it shows. */
function grepAnswer(result: GrepResult, pattern: string, bound: GrepBound): { text: string; data: GrepResult } {
  const rows = result.matches.map((m) => `${String(m.line)}: ${m.text}${m.truncated ? ' [line cut]' : ''}`);
  const quoted = quote(pattern);
  const footer = (shown: number): string => {
    const n = rows.length;
    if (n === 0) return `(No line matches ${quoted}.)`;
    const last = result.matches[Math.max(0, shown - 1)]?.line ?? 0;
    const onward = `Narrow the pattern, or read on from line ${String(last + 1)} with ${SPILL_READ_TOOL}.`;
    if (shown < n) {
      return `(${String(shown)} matching line${shown === 1 ? '' : 's'} shown for ${quoted}, the most one answer holds (${String(bound.cap)} bytes); more exist after line ${String(last)}. ${onward})`;
    }
    if (!result.limitReached) return `(${String(n)} matching line${n === 1 ? '' : 's'} for ${quoted}.)`;
    if (bound.clamped || n >= bound.ceiling) {
      return `(${String(n)} matching lines shown for ${quoted}, the most one answer holds (${String(bound.ceiling)} lines); more exist after line ${String(last)}. ${onward})`;
    }
    return `(${String(n)} matching lines shown for ${quoted}; more exist after line ${String(last)}. Raise maxMatches (up to ${String(bound.ceiling)}), or ${onward.charAt(0).toLowerCase()}${onward.slice(1)})`;
  };
  const { text, shown } = boundRows(rows, bound.cap, footer);
  const data = shown === result.matches.length ? result : { ...result, matches: result.matches.slice(0, shown), limitReached: true };
  return { text, data };
}

/**
 * Words a {@link GrepResult} for the model: one `line: text` row a match, then one line in
 * parentheses with the count and whether more matches exist, within
 * {@link DEFAULT_SPILL_ANSWER_BYTES} (fewer rows, and a footer that says so, when they do
 * not all fit).
 */
export function formatGrepAnswer(result: GrepResult, pattern: string): string {
  return grepAnswer(result, pattern, { cap: DEFAULT_SPILL_ANSWER_BYTES, ceiling: DEFAULT_SPILL_ANSWER_MATCHES, clamped: false }).text;
}
export * from './search-tool.js';
