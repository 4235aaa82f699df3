import type { SpillBackend } from '@spillway/core';
import {
  runSpillGrep,
  runSpillRead,
  spillGrepTool,
  spillReadTool,
  type SpillGrepArgs,
  type SpillReadArgs,
  type SpillToolAnswer,
  type SpillToolDefinition,
} from '@spillway/policy/tools';
import { jsonSchema, tool, type JSONSchema7, type Tool } from 'ai';

/** Options of {@link spillTools}. */
export interface SpillToolsOptions {
  /** The backend the spills went to. It must have a `reader`. */
  readonly backend: SpillBackend;
  /** Byte cap on one `spill_read` answer. Default: the reader's default (32 KiB). */
  readonly maxReadBytes?: number | undefined;
  /** `maxMatches` when the model gives none. Default: the reader's default (100). */
  readonly defaultMaxMatches?: number | undefined;
}

/**
 * The retrieval tools as AI SDK tools. Each call's output is the full
 * {@link SpillToolAnswer} (for the UI); the model sees its `text`, as an error when
 * `isError` is set.
 */
// A type literal, not an interface, so that it is assignable to the AI SDK's `ToolSet`.
export type SpillTools = {
  /** Reads lines of a spilled result back. */
  readonly spill_read: Tool<SpillReadArgs, SpillToolAnswer>;
  /** Searches a spilled result. */
  readonly spill_grep: Tool<SpillGrepArgs, SpillToolAnswer>;
};

/**
 * `spill_read` and `spill_grep` as AI SDK tools, with JSON Schema inputs, answered through
 * the backend's reader. A bad argument, a forged or expired locator, or a bad pattern
 * reaches the model as a tool error it can read (`error-text`); nothing throws.
 *
 * @throws TypeError when `backend` has no `reader`.
 *
 * @example
 * const backend = createMemoryBackend();
 * const tools = { ...withSpill({ fetchPage }, { backend, maxInlineBytes: 16_000 }), ...spillTools({ backend }) };
 */
export function spillTools(options: SpillToolsOptions): SpillTools {
  const reader = (options as Partial<SpillToolsOptions> | undefined)?.backend?.reader;
  if (reader === undefined) {
    throw new TypeError('spillTools needs { backend } with a reader (createMemoryBackend() and createLocalBackend() have one).');
  }
  const limits = {
    ...(options.maxReadBytes === undefined ? {} : { maxReadBytes: options.maxReadBytes }),
    ...(options.defaultMaxMatches === undefined ? {} : { defaultMaxMatches: options.defaultMaxMatches }),
  };
  return {
    spill_read: tool<SpillReadArgs, SpillToolAnswer>({
      ...described(spillReadTool),
      inputSchema: jsonSchema<SpillReadArgs>(schemaOf(spillReadTool)),
      execute: (input, { abortSignal }) => runSpillRead(reader, input, { ...limits, ...(abortSignal ? { signal: abortSignal } : {}) }),
      toModelOutput: ({ output }) => modelOutput(output),
    }),
    spill_grep: tool<SpillGrepArgs, SpillToolAnswer>({
      ...described(spillGrepTool),
      inputSchema: jsonSchema<SpillGrepArgs>(schemaOf(spillGrepTool)),
      execute: (input, { abortSignal }) => runSpillGrep(reader, input, { ...limits, ...(abortSignal ? { signal: abortSignal } : {}) }),
      toModelOutput: ({ output }) => modelOutput(output),
    }),
  };
}

function described(definition: SpillToolDefinition): { readonly description: string } {
  return { description: definition.description };
}

// The output may come back from UI messages (JSON), so read it defensively.
function modelOutput(output: unknown): { type: 'text' | 'error-text'; value: string } {
  const answer = output as Partial<SpillToolAnswer> | null | undefined;
  const text = typeof answer?.text === 'string' ? answer.text : JSON.stringify(output ?? null);
  return { type: answer?.isError === true ? 'error-text' : 'text', value: text };
}

// A copy: the definitions are shared by every adapter, and a framework may annotate a schema.
function schemaOf(definition: SpillToolDefinition): JSONSchema7 {
  return structuredClone(definition.inputSchema) as unknown as JSONSchema7;
}
