/**
 * `spill_read`: lines of a spilled result, from a 1-based line on, within the answer's
 * bound, with where to continue. No Node imports; it runs through any reader.
 */
import { DEFAULT_READ_MAX_BYTES } from '@spillway/core';
import type { ReadResult, SpillReader } from '@spillway/core';
import { utf8Prefix } from './answer-bound.js';
import { SPILL_GREP_TOOL, SPILL_READ_TOOL } from './names.js';
import { guarded, LOCATOR_PROPERTY, optional, type SpillToolAnswer, type SpillToolDefinition, type SpillToolOptions } from './tool-call.js';

/** Arguments of `spill_read`. */
export interface SpillReadArgs {
  /** The locator from a spill notice, verbatim. */
  readonly locator: string;
  /** 1-based number of the first line. Default 1. */
  readonly offset?: number;
  /** How many lines at most. Default: the reader's default. */
  readonly limit?: number;
}

/** Room kept beside a `spill_read` answer's lines for its footer. */
const READ_FOOTER_BYTES = 256;

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

