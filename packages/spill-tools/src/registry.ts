/**
 * The registry of model-facing tools: one spec a tool (its name, description, input
 * schema, what it needs from the surface, how large its answers can be, and how it runs).
 * A surface (the MCP proxy, the AI SDK and LangChain adapters, a hand-written harness)
 * maps {@link offeredSpillTools} onto its own tool type with one loop, so that a tool
 * added here reaches every surface with no change there. No Node imports.
 */
import { DEFAULT_SEARCH_MAX_BYTES } from '@spillway/core';
import type { SessionId, SpillReader, SpillSearcher } from '@spillway/core';
import { DEFAULT_SPILL_ANSWER_BYTES } from './answer-bound.js';
import { runSpillGrep, spillGrepTool } from './grep-tool.js';
import { SPILL_GREP_TOOL, SPILL_READ_TOOL, SPILL_SEARCH_TOOL, type SpillToolName } from './names.js';
import { runSpillRead, spillReadTool } from './read-tool.js';
import { runSpillSearch, spillSearchTool, type SpillSearchToolAnswer } from './search-tool.js';
import { errorText, type SpillToolAnswer, type SpillToolJsonSchema, type SpillToolOptions } from './tool-call.js';

/** What a surface has to answer the tools with. */
export interface SpillToolServices {
  /** The backend's reader: `spill_read` and `spill_grep` need one. */
  readonly reader?: SpillReader | undefined;
  /** What answers `spill_search`, such as `await createBackendSearch(backend)` from `@spillway/search`. */
  readonly searcher?: SpillSearcher | undefined;
}

/** A service a tool cannot run without. */
export type SpillToolRequirement = keyof SpillToolServices;

/** Every setting of one call: the answers' bounds, and the session `spill_search` searches. */
export interface SpillToolCallOptions extends SpillToolOptions {
  /**
   * The session whose spills `spill_search` searches. A surface that cannot tell the
   * session of a call leaves it out, and `spill_search` then answers an error the model can read.
   */
  readonly sessionId?: SessionId | undefined;
  /** Byte cap on one `spill_search` answer. Default {@link DEFAULT_SEARCH_MAX_BYTES}. */
  readonly maxSearchBytes?: number | undefined;
  /** `maxResults` of a `spill_search` call that names none. */
  readonly defaultMaxResults?: number | undefined;
}

/** What any tool call answers: the text for the model, and either the data or the error's code. */
export type SpillToolCallAnswer = SpillToolAnswer | SpillSearchToolAnswer;

/** One model-facing tool, as every surface offers it. */
export interface SpillToolSpec {
  /** The tool's name: one of {@link SPILL_TOOL_NAMES}. */
  readonly name: SpillToolName;
  /** One-paragraph description for the model. */
  readonly description: string;
  /** The JSON Schema of the arguments. A surface hands a framework a copy (`structuredClone`). */
  readonly inputSchema: SpillToolJsonSchema;
  /** The services the tool cannot run without; a surface that lacks one does not offer it. */
  readonly requires: readonly SpillToolRequirement[];
  /**
   * The most UTF-8 bytes one answer's text holds under `options`, whatever the model asks
   * (so also an upper bound in characters): what a surface may tell a host to expect.
   */
  answerBytes(options?: SpillToolCallOptions): number;
  /**
   * Runs one call with untrusted `args`. Never throws: a missing service or session, a bad
   * argument, or a failing reader or index answers `isError: true` with text the model can act on.
   */
  run(services: SpillToolServices, args: unknown, options?: SpillToolCallOptions): Promise<SpillToolCallAnswer>;
}

function missing(tool: string, what: string): Promise<SpillToolCallAnswer> {
  return Promise.resolve({ text: errorText(tool, 'SPILL_INVALID_INPUT', `not available here: ${what}.`), isError: true, code: 'SPILL_INVALID_INPUT' });
}

const answerCap = (options: SpillToolCallOptions = {}): number => options.maxAnswerBytes ?? DEFAULT_SPILL_ANSWER_BYTES;

const readSpec: SpillToolSpec = {
  ...spillReadTool,
  requires: ['reader'],
  answerBytes: answerCap,
  run: (services, args, options = {}) =>
    services.reader === undefined ? missing(SPILL_READ_TOOL, 'the store has no reader') : runSpillRead(services.reader, args, options),
};

const grepSpec: SpillToolSpec = {
  ...spillGrepTool,
  requires: ['reader'],
  answerBytes: answerCap,
  run: (services, args, options = {}) =>
    services.reader === undefined ? missing(SPILL_GREP_TOOL, 'the store has no reader') : runSpillGrep(services.reader, args, options),
};

const searchSpec: SpillToolSpec = {
  ...spillSearchTool,
  requires: ['searcher'],
  answerBytes: (options = {}) => options.maxSearchBytes ?? DEFAULT_SEARCH_MAX_BYTES,
  run: (services, args, options = {}) => {
    if (services.searcher === undefined) return missing(SPILL_SEARCH_TOOL, 'no search index is configured');
    const { sessionId, maxSearchBytes, defaultMaxResults, signal } = options;
    if (sessionId === undefined) {
      return Promise.resolve({ text: errorText(SPILL_SEARCH_TOOL, 'SPILL_INVALID_INPUT', 'there is no session to search for this call.'), isError: true, code: 'SPILL_INVALID_INPUT' });
    }
    return runSpillSearch(services.searcher, args, {
      sessionId,
      ...(maxSearchBytes === undefined ? {} : { maxSearchBytes }),
      ...(defaultMaxResults === undefined ? {} : { defaultMaxResults }),
      ...(signal === undefined ? {} : { signal }),
    });
  },
};

/** Every model-facing tool, in the order surfaces list them. */
export const spillToolSpecs: readonly SpillToolSpec[] = Object.freeze([readSpec, grepSpec, searchSpec]);

/**
 * The tools a surface offers: every spec whose requirements `services` meets, in
 * registry order, optionally only those named in `only`.
 */
export function offeredSpillTools(services: SpillToolServices, only?: readonly SpillToolName[]): SpillToolSpec[] {
  return spillToolSpecs.filter(
    (spec) => spec.requires.every((need) => services[need] !== undefined) && (only === undefined || only.includes(spec.name)),
  );
}

/** The spec named `name`, or `undefined` for a name that is not a spillway tool. */
export function spillToolSpec(name: string): SpillToolSpec | undefined {
  return spillToolSpecs.find((spec) => spec.name === name);
}

/**
 * Runs the tool named `name`: the one entry point a hand-written dispatcher needs. A
 * name that is not a spillway tool, or a tool whose service `services` lacks, answers
 * `isError: true`; nothing throws.
 */
export function runSpillTool(
  services: SpillToolServices,
  name: string,
  args: unknown,
  options: SpillToolCallOptions = {},
): Promise<SpillToolCallAnswer> {
  const spec = spillToolSpec(name);
  if (spec === undefined) {
    const names = offeredSpillTools(services).map((s) => s.name);
    return Promise.resolve({ text: `Unknown tool "${name}": use ${names.join(', ') || 'none: no spillway tool is available here'}.`, isError: true, code: 'SPILL_INVALID_INPUT' });
  }
  return spec.run(services, args, options);
}
