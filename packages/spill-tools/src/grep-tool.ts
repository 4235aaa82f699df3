/**
 * `spill_grep`: the matching lines of a spilled result with their line numbers, within the
 * answer's bound in bytes and in matches. No Node imports; it runs through any reader.
 */
import { DEFAULT_GREP_MAX_MATCHES } from '@spillway/core';
import type { GrepResult, SpillReader } from '@spillway/core';
import { boundRows, DEFAULT_SPILL_ANSWER_BYTES, DEFAULT_SPILL_ANSWER_MATCHES } from './answer-bound.js';
import { SPILL_GREP_TOOL, SPILL_READ_TOOL } from './names.js';
import { ArgumentError, guarded, LOCATOR_PROPERTY, optional, type SpillToolAnswer, type SpillToolDefinition, type SpillToolOptions } from './tool-call.js';

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

/** The most characters of a pattern quoted back in a footer. */
const QUOTED_PATTERN_CHARS = 120;

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
      throw new ArgumentError('`pattern` is missing: give a regular expression, or plain text with literal: true.');
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
