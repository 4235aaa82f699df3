import { checkOptionNames, type SpillBackend, type SpillSearcher } from '@spillway/core';
import { createSpillPolicy, SPILL_POLICY_OPTION_NAMES } from '@spillway/policy';
import { parseSpillNotice } from '@spillway/policy/notice';
import type { SpillPolicy, SpillPolicyOptions, ToolResult } from '@spillway/policy';
import { checkSpillToolOptions, SPILL_SEARCH_TOOL, withSurfaceDefaults } from '@spillway/tools';
import { ToolMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import { createSpillSearchTool, type SpillSearchCall } from './search-tool.js';
import { createSpillTools } from './spill-tools.js';

/** The tool call a `sessionId` function is asked about. */
export interface SpillCallInfo {
  /** The tool's name. */
  readonly toolName: string;
  /** The tool call's id. */
  readonly toolCallId: string;
  /** The call's arguments, as the model gave them. */
  readonly args: unknown;
  /** The run's `configurable` (LangGraph's `thread_id` and the rest), when there is one. */
  readonly configurable: Readonly<Record<string, unknown>> | undefined;
}

/** Options that belong to the middleware, whichever way the policy is given. */
export interface SpillMiddlewareAdapterOptions {
  /**
   * The conversation the artifacts belong to: a string, or a function of the call.
   * Omitted: the run's `configurable.thread_id`, or, when the run has none, one random
   * session per middleware. A function that throws or answers anything but a non-empty
   * string leaves that result as it was.
   */
  readonly sessionId?: string | ((call: SpillCallInfo) => string | undefined) | undefined;
  /**
   * The backend whose reader answers `spill_read` and `spill_grep`, which the middleware
   * adds to the agent. Default: `backend`, when it has a reader. `false` adds no tools.
   * With `{ policy }`, give the policy's backend here to get the tools.
   */
  readonly retrieval?: SpillBackend | false | undefined;
  /** Byte cap on one `spill_read` answer. Default: the reader's default (32 KiB). */
  readonly maxReadBytes?: number | undefined;
  /**
   * What answers `spill_search`, which the middleware then adds, searching the same
   * session its spills go to: such as `await createBackendSearch(backend)` from
   * `@spillway/search`. With the policy's options, each notice then names `spill_search`
   * too (with `{ policy }`, give that policy `noticeReader: 'spill-tools-and-search'`).
   * Omitted: no `spill_search`, and the notice does not name it.
   */
  readonly search?: SpillSearcher | undefined;
}

/**
 * Options of {@link createSpillMiddleware}: a ready policy (`{ policy }`), or the policy's
 * own options (`backend`, `maxInlineBytes`, `skipTools`, …), plus the middleware's options.
 * With the policy's options, `skipTools` defaults to `read`, `spill_read` and `spill_grep`.
 */
export type SpillMiddlewareOptions = SpillMiddlewareAdapterOptions &
  ({ readonly policy: SpillPolicy } | (SpillPolicyOptions & { readonly policy?: undefined }));

/** Every option {@link createSpillMiddleware} accepts: the policy's, `policy`, and the middleware's own. */
const MIDDLEWARE_OPTIONS: readonly string[] = Object.freeze([
  ...SPILL_POLICY_OPTION_NAMES,
  'policy',
  ...(['sessionId', 'retrieval', 'maxReadBytes', 'search'] satisfies (keyof SpillMiddlewareAdapterOptions)[]),
]);

/** What the middleware puts in a spilled `ToolMessage`'s `artifact`. */
export interface SpillArtifact {
  /** Where the full result is: pass it to `spill_read`/`spill_grep` or the backend's reader. */
  readonly locator: string;
  /** How many bytes of the result the model does not see. */
  readonly omittedBytes: number;
  /** The tool's own artifact, when its message had one. */
  readonly toolArtifact?: unknown;
}

/** The name the middleware registers under. */
export const SPILL_MIDDLEWARE_NAME = 'SpillwayMiddleware';

/**
 * An agent middleware for `createAgent` that keeps oversized tool results out of the
 * model's context. Its `wrapToolCall` runs the spill policy on each `ToolMessage`'s text:
 * over the cap, the full text is stored in the backend, the message's content becomes a
 * preview plus a notice, and the locator goes into the message's `artifact`
 * ({@link SpillArtifact}). It also gives the model `spill_read` and `spill_grep`.
 *
 * - The session is the run's `configurable.thread_id` unless `sessionId` is given.
 * - A handler that answers a `Command` passes through unchanged, as does a message with
 *   anything but text in it.
 * - A failed save leaves the message as it was; spilling never fails a tool call.
 *
 * @throws TypeError for a bad configuration (the policy's checks, a `retrieval` backend without a reader).
 *
 * @example
 * const agent = createAgent({ model, tools, middleware: [createSpillMiddleware({ backend, maxInlineBytes: 16_000 })] });
 */
export function createSpillMiddleware(options: SpillMiddlewareOptions): ReturnType<typeof createMiddleware> {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new TypeError('createSpillMiddleware needs options, such as { backend, maxInlineBytes: 16_000 } or { policy }.');
  }
  // Named here, not by createSpillPolicy: the user called createSpillMiddleware, with its own options too.
  checkOptionNames('createSpillMiddleware', options, MIDDLEWARE_OPTIONS);
  const { sessionId, retrieval, maxReadBytes, search, policy: givenPolicy, ...policyOptions } = options as SpillMiddlewareAdapterOptions &
    SpillPolicyOptions & { readonly policy?: SpillPolicy };
  if (sessionId !== undefined && typeof sessionId !== 'function' && (typeof sessionId !== 'string' || sessionId === '')) {
    throw new TypeError('sessionId must be a non-empty string, a function of the call, or omitted.');
  }
  // Checked here, not only by createSpillTools, so that the error names what was called, reader or not.
  checkSpillToolOptions({ maxReadBytes }, { caller: 'createSpillMiddleware' });
  let policy: SpillPolicy;
  if (givenPolicy !== undefined) {
    if (Object.keys(policyOptions).length > 0) {
      throw new TypeError(`Give either { policy } or the policy's options, not both (also got ${Object.keys(policyOptions).join(', ')}).`);
    }
    policy = givenPolicy;
  } else {
    // The notice names what the middleware offers: spill_search too when it adds it.
    policy = createSpillPolicy(withSurfaceDefaults(policyOptions, { search: search !== undefined, wrapsHarnessTools: true }));
  }
  const readerBackend = retrieval === undefined ? (policyOptions.backend?.reader === undefined ? undefined : policyOptions.backend) : retrieval;
  const tools = readerBackend === false || readerBackend === undefined ? [] : createSpillTools({ backend: readerBackend, maxReadBytes });
  const fallbackSession = `langchain-${globalThis.crypto.randomUUID()}`;
  if (search !== undefined) {
    const searchSession = (call: SpillSearchCall): string | undefined =>
      resolveSession(sessionId, { toolName: SPILL_SEARCH_TOOL, toolCallId: call.toolCallId, args: undefined, configurable: call.configurable }) ?? fallbackSession;
    tools.push(createSpillSearchTool({ searcher: search, sessionId: searchSession }));
  }
  const cap = givenPolicy === undefined ? policyOptions.maxInlineBytes : undefined;

  return createMiddleware({
    name: SPILL_MIDDLEWARE_NAME,
    tools,
    wrapToolCall: async (request, handler) => {
      const answer = await handler(request);
      if (!ToolMessage.isInstance(answer)) return answer; // a Command, or anything else: not ours to change
      // At most 3 UTF-8 bytes per UTF-16 unit: a string this short is surely under the cap.
      if (cap !== undefined && typeof answer.content === 'string' && 3 * answer.content.length <= cap) return answer;
      try {
        const configurable = request.runtime.configurable;
        const call: SpillCallInfo = {
          toolName: request.toolCall.name,
          toolCallId: request.toolCall.id ?? answer.tool_call_id,
          args: request.toolCall.args,
          configurable,
        };
        const session = resolveSession(sessionId, call) ?? fallbackSession;
        return await spillMessage(policy, call, session, answer);
      } catch {
        return answer;
      }
    },
  });
}

function resolveSession(sessionId: SpillMiddlewareAdapterOptions['sessionId'], call: SpillCallInfo): string | undefined {
  let value: unknown;
  if (typeof sessionId === 'string') return sessionId;
  if (typeof sessionId === 'function') {
    try {
      value = sessionId(call);
    } catch {
      return '';
    }
    return typeof value === 'string' ? value : '';
  }
  value = call.configurable?.thread_id;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The message with its content spilled, or the message itself. */
async function spillMessage(policy: SpillPolicy, call: SpillCallInfo, sessionId: string, message: ToolMessage): Promise<ToolMessage> {
  if (!policy.enabled || sessionId === '') return message;
  const result = toolResultOf(message);
  if (result === undefined) return message;
  const shown = await policy.applyToResult({ toolName: call.toolName, callId: call.toolCallId, sessionId }, result);
  if (shown === result) return message;
  const block = shown.content[0];
  const text = block?.type === 'text' && typeof block.text === 'string' ? block.text : undefined;
  const notice = text === undefined ? undefined : parseSpillNotice(text);
  if (text === undefined || notice === undefined) return message;
  const artifact: SpillArtifact = {
    locator: notice.locator,
    omittedBytes: notice.omittedBytes,
    ...(message.artifact === undefined ? {} : { toolArtifact: message.artifact as unknown }),
  };
  return new ToolMessage({
    content: text,
    tool_call_id: message.tool_call_id,
    artifact,
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(message.id === undefined ? {} : { id: message.id }),
    ...(message.status === undefined ? {} : { status: message.status }),
    // Deprecated, but still where some tools and providers put fields: carried, not dropped.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  });
}

/** The message's content as the policy's result, or `undefined` when it is not all text. */
function toolResultOf(message: ToolMessage): ToolResult | undefined {
  const content: unknown = message.content;
  const isError = message.status === 'error';
  if (typeof content === 'string') return { content: [{ type: 'text', text: content }], isError };
  if (!Array.isArray(content)) return undefined;
  const blocks: { type: 'text'; text: string }[] = [];
  for (const block of content as unknown[]) {
    if (typeof block !== 'object' || block === null) return undefined;
    const { type, text } = block as { type?: unknown; text?: unknown };
    if (type !== 'text' || typeof text !== 'string') return undefined;
    blocks.push({ type: 'text', text });
  }
  return { content: blocks, isError };
}
