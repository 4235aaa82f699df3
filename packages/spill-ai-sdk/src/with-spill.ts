import { checkOptionNames, wholeNumberProblem } from '@spillway/core';
import { createSpillPolicy, SPILL_POLICY_OPTION_NAMES } from '@spillway/policy';
import type { SpillPolicy, SpillPolicyOptions, ToolResult } from '@spillway/policy';
import { withSurfaceDefaults } from '@spillway/tools';
import type { SpillBackend, SpillSearcher } from '@spillway/core';
import type { ToolSet } from 'ai';
import { defaultModelOutput, fromPolicyResult, toPolicyResult, type ToolResultOutput } from './model-output.js';
import { contentDigest } from './content-digest.js';
import { RememberedSpills } from './remembered.js';
import { spillSearchTools, type SpillSearchTools } from './search-tool.js';

/** The tool call a `sessionId` function is asked about. */
export interface SpillCallInfo {
  /** The key of the tool in the tool set. */
  readonly toolName: string;
  /** The AI SDK's id of the call. */
  readonly toolCallId: string;
  /** The call's input, as the model gave it. */
  readonly input: unknown;
}

/** Options that belong to the adapter, whichever way the policy is given. */
export interface WithSpillAdapterOptions {
  /**
   * The conversation the artifacts belong to: a string, or a function of the call. Omitted:
   * one random session per `withSpill` call. A function that throws or answers anything but
   * a non-empty string leaves that output as it was.
   */
  readonly sessionId?: string | ((call: SpillCallInfo) => string | undefined) | undefined;
  /**
   * How many spilled calls to remember, so that the AI SDK calling `toModelOutput` again
   * for the same call answers the same preview and locator and stores nothing new.
   * Default {@link DEFAULT_REMEMBERED_CALLS}. 0 remembers none (every call spills again).
   */
  readonly rememberCalls?: number | undefined;
  /**
   * What answers `spill_search`, such as `await createBackendSearch(backend)` from
   * `@spillway/search`. Given, the returned tool set also holds `spill_search`, which
   * searches the session these tools spill to, and (with the policy's options) each notice
   * names `spill_search` too. Omitted: no `spill_search`, and the notice does not name it.
   */
  readonly search?: SpillSearcher | undefined;
}

/**
 * Options of {@link withSpill}: a ready policy (`{ policy }`), or the policy's own options
 * (`backend`, `maxInlineBytes`, `skipTools`, …), plus the adapter's options.
 *
 * With the policy's options, `skipTools` defaults to `read`, `spill_read` and `spill_grep`,
 * and each artifact's suggested name carries the tool call's id.
 */
export type WithSpillOptions = WithSpillAdapterOptions &
  ({ readonly policy: SpillPolicy } | (SpillPolicyOptions & { readonly policy?: undefined }));

/** Every option {@link withSpill} accepts: the policy's, `policy`, and the adapter's own. */
const WITH_SPILL_OPTIONS: readonly string[] = Object.freeze([
  ...SPILL_POLICY_OPTION_NAMES,
  'policy',
  ...(['sessionId', 'rememberCalls', 'search'] satisfies (keyof WithSpillAdapterOptions)[]),
]);

/** How many spilled calls {@link withSpill} remembers by default. */
export const DEFAULT_REMEMBERED_CALLS = 1000;

// One memory per policy or backend object and per spill shape (cap, preview bound, skipped tools), so
// that two `withSpill` calls over the same backend (a server that wraps its tools per
// request) share what was already spilled, and only when they would spill alike.
const memories = new WeakMap<object, Map<string, RememberedSpills<ToolResultOutput>>>();

/**
 * Wraps every tool of an AI SDK tool set so that its `toModelOutput` runs the spill policy
 * on what the model would see. The full output stays in `steps[].toolResults` (and in UI
 * messages); the model sees a preview plus a notice naming the stored artifact.
 *
 * - An existing `toModelOutput` (such as `@ai-sdk/mcp`'s) runs first; the policy runs on its answer.
 * - An output that is not a string is measured and stored as the JSON text the AI SDK
 *   sends; under the cap it is sent as JSON, unchanged.
 * - Idempotent per `toolCallId`: later calls for the same call answer the same locator and
 *   store nothing new (see {@link WithSpillAdapterOptions.rememberCalls}).
 * - Never throws because of spilling: a failed save leaves the output as it was.
 * - Provider-executed tools (`type: 'provider'`) are passed through unwrapped.
 * - With `search`, the set also holds `spill_search` over the same session, and the notice names it.
 *
 * @throws TypeError for a bad configuration (the policy's checks, a bad `rememberCalls`).
 *
 * @example
 * const tools = withSpill({ fetchPage }, { backend, maxInlineBytes: 16_000, search: await createBackendSearch(backend) });
 */
export function withSpill<TOOLS extends ToolSet>(tools: TOOLS, options: WithSpillOptions & { readonly search: SpillSearcher }): TOOLS & SpillSearchTools;
/**
 * Wraps every tool of an AI SDK tool set so that its `toModelOutput` runs the spill policy
 * on what the model would see. The full output stays in `steps[].toolResults` (and in UI
 * messages); the model sees a preview plus a notice naming the stored artifact.
 *
 * - An existing `toModelOutput` (such as `@ai-sdk/mcp`'s) runs first; the policy runs on its answer.
 * - An output that is not a string is measured and stored as the JSON text the AI SDK
 *   sends; under the cap it is sent as JSON, unchanged.
 * - Idempotent per `toolCallId`: later calls for the same call answer the same locator and
 *   store nothing new (see {@link WithSpillAdapterOptions.rememberCalls}).
 * - Never throws because of spilling: a failed save leaves the output as it was.
 * - Provider-executed tools (`type: 'provider'`) are passed through unwrapped.
 * - Without `search`, the set holds the wrapped tools only (add `spill_read`/`spill_grep` with `spillTools`).
 *
 * @throws TypeError for a bad configuration (the policy's checks, a bad `rememberCalls`).
 *
 * @example
 * const tools = withSpill({ fetchPage }, { backend: createMemoryBackend(), maxInlineBytes: 16_000 });
 */
export function withSpill<TOOLS extends ToolSet>(tools: TOOLS, options: WithSpillOptions): TOOLS;
export function withSpill<TOOLS extends ToolSet>(tools: TOOLS, options: WithSpillOptions): TOOLS | (TOOLS & SpillSearchTools) {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new TypeError('withSpill needs options, such as { backend, maxInlineBytes: 16_000 } or { policy }.');
  }
  // Named here, not by createSpillPolicy: the user called withSpill, with the adapter's options too.
  checkOptionNames('withSpill', options, WITH_SPILL_OPTIONS);
  const { sessionId, rememberCalls, search, policy: givenPolicy, ...policyOptions } = options as WithSpillAdapterOptions &
    SpillPolicyOptions & { readonly policy?: SpillPolicy };
  if (sessionId !== undefined && typeof sessionId !== 'function' && (typeof sessionId !== 'string' || sessionId === '')) {
    throw new TypeError('sessionId must be a non-empty string, a function of the call, or omitted.');
  }
  const remember = rememberCalls ?? DEFAULT_REMEMBERED_CALLS;
  const rememberProblem = wholeNumberProblem(remember, { min: 0 });
  if (rememberProblem !== undefined) throw new TypeError(`rememberCalls ${rememberProblem}.`);
  let policy: SpillPolicy;
  let owner: object;
  if (givenPolicy !== undefined) {
    if (Object.keys(policyOptions).length > 0) {
      throw new TypeError(`Give either { policy } or the policy's options, not both (also got ${Object.keys(policyOptions).join(', ')}).`);
    }
    policy = givenPolicy;
    owner = givenPolicy;
  } else {
    policy = createSpillPolicy({
      // The model reads back with spillTools, and searches with the spill_search added here.
      ...withSurfaceDefaults(policyOptions, { search: search !== undefined, wrapsHarnessTools: true }),
      backend: namedByCall(policyOptions.backend),
    });
    owner = policyOptions.backend ?? {};
  }
  const shape =
    givenPolicy === undefined
      ? JSON.stringify([policyOptions.maxInlineBytes, policyOptions.previewBytes, policyOptions.skipTools, policyOptions.noticeReader, search === undefined])
      : '';
  let memory: RememberedSpills<ToolResultOutput>;
  if (remember === DEFAULT_REMEMBERED_CALLS) {
    let shapes = memories.get(owner);
    if (shapes === undefined) memories.set(owner, (shapes = new Map<string, RememberedSpills<ToolResultOutput>>()));
    memory = shapes.get(shape) ?? new RememberedSpills<ToolResultOutput>(remember);
    shapes.set(shape, memory);
  } else {
    memory = new RememberedSpills<ToolResultOutput>(remember);
  }
  const spiller: Spiller = {
    policy,
    memory,
    session: sessionResolver(sessionId),
    cap: givenPolicy === undefined ? policyOptions.maxInlineBytes : undefined,
  };
  const wrapped: Record<string, unknown> = {};
  for (const [toolName, tool] of Object.entries(tools)) {
    wrapped[toolName] = tool.type === 'provider' ? tool : wrapTool(toolName, tool, spiller);
  }
  if (search === undefined) return wrapped as TOOLS;
  const session = spiller.session;
  const searchTools = spillSearchTools({
    searcher: search,
    sessionId: ({ toolCallId }) => session({ toolName: 'spill_search', toolCallId, input: undefined }),
  });
  return { ...wrapped, ...searchTools } as TOOLS & SpillSearchTools;
}

type AnyTool = ToolSet[string];

/** Everything one `withSpill` call's wrapped tools share. */
interface Spiller {
  readonly policy: SpillPolicy;
  readonly memory: RememberedSpills<ToolResultOutput>;
  readonly session: (call: SpillCallInfo) => string | undefined;
  /** `maxInlineBytes` when known (the policy's options were given), for the fast path. */
  readonly cap: number | undefined;
}

function wrapTool(toolName: string, tool: AnyTool, spiller: Spiller): AnyTool {
  const original = tool.toModelOutput;
  // Answers synchronously when it can (the SDK awaits whatever comes back): a result that
  // is surely under the cap, or a call already spilled, costs no promise.
  const toModelOutput = (call: { toolCallId: string; input: unknown; output: unknown }): ToolResultOutput | Promise<ToolResultOutput> => {
    const info: SpillCallInfo = { toolName, toolCallId: call.toolCallId, input: call.input };
    if (original === undefined) return spill(spiller, info, defaultModelOutput(call.output));
    const answered = original(call);
    return isThenable(answered) ? Promise.resolve(answered).then((base) => spill(spiller, info, base)) : spill(spiller, info, answered);
  };
  return { ...tool, toModelOutput };
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** The model output after the policy: `base` itself, or the preview plus notice. Never throws or rejects. */
function spill(spiller: Spiller, call: SpillCallInfo, base: ToolResultOutput): ToolResultOutput | Promise<ToolResultOutput> {
  try {
    const { policy, cap } = spiller;
    if (!policy.enabled) return base;
    const result = toPolicyResult(base);
    if (result === undefined) return base;
    const texts = textsOf(result);
    // A part that is not text (an image, a file): the policy leaves the output whole.
    if (texts === undefined) return base;
    // At most 3 UTF-8 bytes per UTF-16 unit (and per block separator): surely under the cap.
    if (cap !== undefined && 3 * (charsOf(texts) + texts.length) <= cap) return base;
    const sessionId = spiller.session(call);
    if (typeof sessionId !== 'string' || sessionId === '') return base;
    const digest = contentDigest(texts);
    if (typeof digest === 'string') return spillOnce(spiller, call, base, result, sessionId, digest);
    return digest.then(
      (d) => spillOnce(spiller, call, base, result, sessionId, d),
      () => base,
    );
  } catch {
    return base;
  }
}

/** Answers the remembered spill of this very text under this call, or spills it and remembers that. */
function spillOnce(
  spiller: Spiller,
  call: SpillCallInfo,
  base: ToolResultOutput,
  result: ToolResult,
  sessionId: string,
  digest: string,
): ToolResultOutput | Promise<ToolResultOutput> {
  const { policy, memory } = spiller;
  const { toolCallId, toolName } = call;
  const remembered = memory.get(toolCallId, sessionId, toolName, digest);
  if (remembered !== undefined) return remembered.value ?? remembered.answer;
  const answer = policy
    .applyToResult({ toolName, callId: toolCallId, sessionId }, result)
    .then((shown) => (shown === result ? base : fromPolicyResult(base, shown)))
    .catch(() => base);
  memory.set(toolCallId, { sessionId, toolName, digest, answer });
  return answer.then((shown) => {
    // Only spills are remembered: nothing was stored for an output that was kept.
    if (shown === base) memory.forget(toolCallId, answer);
    else memory.settle(toolCallId, answer, shown);
    return shown;
  });
}

/** The texts of the result's blocks, or undefined when a block is not text. */
function textsOf(result: ToolResult): string[] | undefined {
  const texts: string[] = [];
  for (const block of result.content) {
    if (block.type !== 'text' || typeof block.text !== 'string') return undefined;
    texts.push(block.text);
  }
  return texts;
}

/** The total length of the texts, in UTF-16 units. */
function charsOf(texts: readonly string[]): number {
  let chars = 0;
  for (const text of texts) chars += text.length;
  return chars;
}

function sessionResolver(sessionId: WithSpillAdapterOptions['sessionId']): (call: SpillCallInfo) => string | undefined {
  if (typeof sessionId === 'function') {
    return (call) => {
      try {
        return sessionId(call);
      } catch {
        return undefined;
      }
    };
  }
  const fixed = sessionId ?? `ai-sdk-${globalThis.crypto.randomUUID()}`;
  return () => fixed;
}

/**
 * The backend, with each artifact's suggested name derived from the tool call's id
 * (`<tool>-<call id>.txt`), so that a person can find a call's artifact in a listing.
 * Anything that is not a usable backend is handed on as it is, for the policy to refuse.
 */
function namedByCall(backend: SpillBackend | undefined): SpillBackend | undefined {
  if (typeof backend !== 'object' || (backend as unknown) === null || typeof backend.saveText !== 'function') return backend;
  const rename = <T extends { readonly source: { readonly toolName: string; readonly callId: string } }>(input: T): T => ({
    ...input,
    suggestedName: `${input.source.toolName}-${input.source.callId}.txt`,
  });
  return {
    // The wrapped backend's version, whatever it is, for the policy to check.
    specificationVersion: backend.specificationVersion,
    name: backend.name,
    saveText: (input, callOptions) => backend.saveText(rename(input), callOptions),
    saveTextStream: (input, callOptions) => backend.saveTextStream(rename(input), callOptions),
    ...(backend.reader === undefined ? {} : { reader: backend.reader }),
    ...(backend.catalog === undefined ? {} : { catalog: backend.catalog }),
    ...(backend.indexHome === undefined ? {} : { indexHome: (callOptions) => backend.indexHome?.(callOptions) ?? Promise.resolve(undefined) }),
  };
}
