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
import type { GrepResult, ReadResult, SpillErrorCode, SpillReader } from '@spillway/core';
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

/** Limits an adapter applies to every retrieval call. */
export interface SpillToolOptions {
  /** Byte cap on one `spill_read` answer's text. Default {@link DEFAULT_READ_MAX_BYTES}. */
  readonly maxReadBytes?: number;
  /** Default `maxMatches` when the model gives none. Default {@link DEFAULT_GREP_MAX_MATCHES}. */
  readonly defaultMaxMatches?: number;
  /** Cancels the call. */
  readonly signal?: AbortSignal;
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

function failure(error: unknown, tool: string): SpillToolAnswer {
  if (error instanceof ArgumentError) {
    return { text: error.message, isError: true, code: 'SPILL_INVALID_INPUT' };
  }
  if (isSpillError(error)) {
    return { text: `${tool} failed (${error.code}): ${error.message}`, isError: true, code: error.code };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { text: `${tool} failed: ${message}`, isError: true, code: undefined };
}

/**
 * Runs `spill_read` with untrusted arguments. Never throws: a bad argument or locator, a
 * missing or expired artifact, answers `isError: true` with text the model can act on.
 */
export async function runSpillRead(
  reader: SpillReader,
  args: unknown,
  options: SpillToolOptions = {},
): Promise<SpillToolAnswer> {
  try {
    const a = record(args, SPILL_READ_TOOL);
    const locator = spillLocator(locatorArg(a, SPILL_READ_TOOL));
    const result = await reader.read(locator, {
      ...(optional(a, 'offset') as { offset?: number }),
      ...(optional(a, 'limit') as { limit?: number }),
      maxBytes: options.maxReadBytes ?? DEFAULT_READ_MAX_BYTES,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { text: formatReadAnswer(result), isError: false, data: result };
  } catch (error) {
    return failure(error, SPILL_READ_TOOL);
  }
}

/**
 * Runs `spill_grep` with untrusted arguments. Never throws: a bad argument, locator or
 * pattern answers `isError: true` with text the model can act on.
 */
export async function runSpillGrep(
  reader: SpillReader,
  args: unknown,
  options: SpillToolOptions = {},
): Promise<SpillToolAnswer> {
  try {
    const a = record(args, SPILL_GREP_TOOL);
    const locator = spillLocator(locatorArg(a, SPILL_GREP_TOOL));
    const pattern = a.pattern;
    if (typeof pattern !== 'string') {
      throw new ArgumentError(`${SPILL_GREP_TOOL} needs \`pattern\`: a regular expression, or plain text with literal: true.`);
    }
    const result = await reader.grep(locator, pattern, {
      ...(optional(a, 'literal') as { literal?: boolean }),
      ...(optional(a, 'ignoreCase') as { ignoreCase?: boolean }),
      maxMatches: (a.maxMatches ?? options.defaultMaxMatches ?? DEFAULT_GREP_MAX_MATCHES) as number,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { text: formatGrepAnswer(result, pattern), isError: false, data: result };
  } catch (error) {
    return failure(error, SPILL_GREP_TOOL);
  }
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
 * parentheses that says which lines were shown and how to continue.
 */
export function formatReadAnswer(result: ReadResult): string {
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
    if (!hasMore) footer = `(${range}; end of the stored result, ${String(totalBytes)} bytes in all.)`;
    else if (nextOffset !== undefined) footer = `(${range} of a ${String(totalBytes)}-byte result. More follows: continue with ${SPILL_READ_TOOL} offset ${String(nextOffset)}.)`;
    else if (truncated) footer = `(${range}; line ${String(endLine)} was cut because it is too long to show whole. Search within it with ${SPILL_GREP_TOOL}, or continue with offset ${String(endLine + 1)}.)`;
    else footer = `(${range} of a ${String(totalBytes)}-byte result. More follows.)`;
  }
  const separator = text === '' || text.endsWith('\n') ? '' : '\n';
  return `${text}${separator}${footer}`;
}

/**
 * Words a {@link GrepResult} for the model: one `line: text` row a match, then one line in
 * parentheses with the count and whether more matches exist.
 */
export function formatGrepAnswer(result: GrepResult, pattern: string): string {
  const rows = result.matches.map((m) => `${String(m.line)}: ${m.text}${m.truncated ? ' [line cut]' : ''}`);
  const n = result.matches.length;
  const quoted = JSON.stringify(pattern);
  const summary =
    n === 0
      ? `(No line matches ${quoted}.)`
      : result.limitReached
        ? `(${String(n)} matching lines shown for ${quoted}; more exist. Narrow the pattern or raise maxMatches.)`
        : `(${String(n)} matching line${n === 1 ? '' : 's'} for ${quoted}.)`;
  return rows.length === 0 ? summary : `${rows.join('\n')}\n${summary}`;
}
export * from './search-tool.js';
