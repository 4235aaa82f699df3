/**
 * What every retrieval tool call shares: the limits it runs under, the check of untrusted
 * arguments, and the answer it gives (an error the model can read rather than a throw).
 * No Node imports.
 */
import { checkOptionNames, isSpillError, spillLocator, wholeNumberProblem } from '@spillway/core';
import type { GrepResult, ReadResult, SpillErrorCode, SpillLocator } from '@spillway/core';
import { DEFAULT_SPILL_ANSWER_BYTES, DEFAULT_SPILL_ANSWER_MATCHES, MIN_SPILL_ANSWER_BYTES, utf8Prefix } from './answer-bound.js';
import type { SPILL_GREP_TOOL, SPILL_READ_TOOL } from './names.js';

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

/** The `locator` argument, as every tool that takes one declares it. */
export const LOCATOR_PROPERTY = {
  type: 'string',
  description: 'The locator exactly as a spill notice printed it ("stored at: <locator>").',
} as const;


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


/** The limits one call runs under, with the defaults applied. */
export interface Limits {
  readonly maxAnswerBytes: number;
  readonly maxMatches: number;
}

/** Who is checking a {@link SpillToolOptions}, for {@link checkSpillToolOptions}'s errors. */
export interface SpillToolOptionsCaller {
  /** The function the user called (`spillTools`, `createSpillTools`), named by every error. */
  readonly caller: string;
  /**
   * Every option that function accepts. Given, any other key of the options is refused
   * with this list; omitted, the keys are not checked (the caller checks them itself).
   */
  readonly accepted?: readonly string[] | undefined;
}

function positiveInteger(value: unknown, name: string, min: number, caller: string | undefined): void {
  const problem = value === undefined ? undefined : wholeNumberProblem(value, { min });
  if (problem !== undefined) throw new TypeError(`${caller === undefined ? '' : `${caller}: `}${name} ${problem}.`);
}

/**
 * Checks an adapter's {@link SpillToolOptions} once, at construction, so that a bad
 * configuration fails the deployment rather than every call. Every surface that builds
 * retrieval tools (the AI SDK and LangChain adapters, the MCP proxy) checks with this, so
 * that the rules and the wording are one.
 *
 * @param options - The options as the user gave them.
 * @param from - The function the user called, and the options it accepts: each error then
 *   starts with that name (`spillTools: maxReadBytes must be …`), and an unknown option is refused.
 * @throws TypeError for an option `from.accepted` does not list, a `maxAnswerBytes` under
 * {@link MIN_SPILL_ANSWER_BYTES}, or a `maxMatches`, `maxReadBytes` or `defaultMaxMatches`
 * that is not a positive whole number.
 */
export function checkSpillToolOptions(
  options: { readonly [K in keyof SpillToolOptions]?: SpillToolOptions[K] | undefined },
  from?: SpillToolOptionsCaller,
): void {
  const caller = from?.caller;
  if (caller !== undefined && (typeof options !== 'object' || (options as unknown) === null)) {
    throw new TypeError(`${caller} needs an options object, such as { backend }.`);
  }
  if (from?.accepted !== undefined) checkOptionNames(from.caller, options, from.accepted);
  positiveInteger(options.maxAnswerBytes, 'maxAnswerBytes', MIN_SPILL_ANSWER_BYTES, caller);
  positiveInteger(options.maxMatches, 'maxMatches', 1, caller);
  positiveInteger(options.maxReadBytes, 'maxReadBytes', 1, caller);
  positiveInteger(options.defaultMaxMatches, 'defaultMaxMatches', 1, caller);
}

/**
 * Checks the options of a surface's `spill_search` tool once, at construction, as
 * {@link checkSpillToolOptions} does for the retrieval tools: a bad `maxSearchBytes` or
 * `defaultMaxResults` would otherwise fail every search the model asks for.
 *
 * @param options - The options as the user gave them.
 * @param from - The function the user called, and the options it accepts (see {@link SpillToolOptionsCaller}).
 * @throws TypeError for an option `from.accepted` does not list, a `maxSearchBytes` that is
 * not a whole number of at least {@link MIN_SPILL_ANSWER_BYTES}, or a `defaultMaxResults`
 * that is not a positive whole number.
 */
export function checkSpillSearchToolOptions(
  options: { readonly maxSearchBytes?: number | undefined; readonly defaultMaxResults?: number | undefined },
  from: SpillToolOptionsCaller,
): void {
  if (from.accepted !== undefined) checkOptionNames(from.caller, options, from.accepted);
  positiveInteger(options.maxSearchBytes, 'maxSearchBytes', MIN_SPILL_ANSWER_BYTES, from.caller);
  positiveInteger(options.defaultMaxResults, 'defaultMaxResults', 1, from.caller);
}

export function limitsOf(options: SpillToolOptions): Limits {
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
export class ArgumentError extends Error {}

/**
 * An error answer's text, worded the one way every tool's errors are: the tool, the
 * `SpillError` code, and what to do (`spill_read failed (SPILL_INVALID_INPUT): …`).
 */
export function errorText(tool: string, code: SpillErrorCode, message: string): string {
  return `${tool} failed (${code}): ${message}`;
}

export function record(args: unknown): Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new ArgumentError('the arguments must be a JSON object, such as { "locator": "…" }.');
  }
  return args as Record<string, unknown>;
}

export function locatorArg(args: Record<string, unknown>): string {
  const value = args.locator;
  if (typeof value !== 'string' || value.length === 0) {
    throw new ArgumentError('`locator` is missing: give the locator exactly as the spill notice printed it.');
  }
  return value;
}

// Absent values stay absent, so the reader applies its defaults; present values go through
// unchanged, so that the reader's one validation answers every bad value the same way.
export function optional(args: Record<string, unknown>, key: string): { readonly [k: string]: unknown } {
  return args[key] === undefined ? {} : { [key]: args[key] };
}

function failure(error: unknown, tool: string, maxBytes = DEFAULT_SPILL_ANSWER_BYTES): SpillToolAnswer {
  // An error's message may quote what the model sent (a huge locator or pattern): bound it too.
  const bounded = (text: string): string => utf8Prefix(text, maxBytes);
  if (error instanceof ArgumentError) {
    return { text: bounded(errorText(tool, 'SPILL_INVALID_INPUT', error.message)), isError: true, code: 'SPILL_INVALID_INPUT' };
  }
  if (isSpillError(error)) {
    return { text: bounded(errorText(tool, error.code, error.message)), isError: true, code: error.code };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { text: bounded(`${tool} failed: ${message}`), isError: true, code: undefined };
}

/**
 * One call of `tool` on untrusted `args`: the limits, the arguments' object and its
 * locator are checked, then `answer` runs; whatever throws on the way becomes the tool's
 * error answer, bounded by the answer cap (the default one when the limits themselves are bad).
 */
export async function guarded(
  tool: string,
  args: unknown,
  options: SpillToolOptions,
  answer: (a: Record<string, unknown>, locator: SpillLocator, limits: Limits) => Promise<SpillToolAnswer>,
): Promise<SpillToolAnswer> {
  let cap = DEFAULT_SPILL_ANSWER_BYTES;
  try {
    const limits = limitsOf(options);
    cap = limits.maxAnswerBytes;
    const a = record(args);
    return await answer(a, spillLocator(locatorArg(a)), limits);
  } catch (error) {
    return failure(error, tool, cap);
  }
}

