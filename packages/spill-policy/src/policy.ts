import { utf8ByteLength } from '@spillway/core';
import { removeUnreferenced } from './artifact.js';
import { emitSafely } from './events.js';
import { BLOCK_SEPARATOR, joinedTextExceeds } from './measure.js';
import { formatSpillNotice } from './notice.js';
import { resolveOptions, type ResolvedOptions } from './options.js';
import { composeOutline } from './outline.js';
import { PreviewScanner, type PreviewScan } from './scan.js';
import { startSave } from './save.js';
import { eventNames, saveRequest, screenExecution, spillBlocker, type ExecutionInfo } from './screen.js';
import { createSpillStream } from './stream.js';
import { resolvable } from './thenable.js';
import type {
  ContentBlock,
  PostToolDecision,
  SpillEvent,
  SpillPolicy,
  SpillPolicyOptions,
  SpillStream,
  ToolExecution,
  ToolResult,
} from './types.js';

/**
 * Creates the policy that decides, for each tool result, whether the model sees it whole
 * or a bounded preview plus a notice pointing at the full text in `backend`.
 *
 * @throws TypeError for a bad configuration: `maxInlineBytes` or `previewBytes` that is
 *   not a non-negative integer, `saveTimeoutMs` outside 1..2^31-1, a `backend` without
 *   `saveText`/`saveTextStream`, `skipTools` that is not an array of strings, or an
 *   `onEvent` that is not a function.
 * @throws SpillError `SPILL_INVALID_INPUT` for a `backend` that declares another
 *   `specificationVersion` than this release speaks, or none (see `assertSpillBackendVersion`).
 *
 * @example
 * const policy = createSpillPolicy({ backend: createLocalBackend(), maxInlineBytes: 20_000 });
 * const shown = await policy.applyToResult({ toolName: 'bash', callId: 'c1', sessionId: 's1' }, result);
 */
export function createSpillPolicy(options: SpillPolicyOptions): SpillPolicy {
  const resolved = resolveOptions(options);
  const emit = (event: SpillEvent): void => {
    emitSafely(resolved.onEvent, event);
  };
  return {
    enabled: resolved.cap !== undefined,
    apply(exec: ToolExecution, result: ToolResult, decision?: PostToolDecision): Promise<PostToolDecision> {
      // Every answer goes through `resolvable`: resolving a promise with it reads `then`.
      const unchanged: PostToolDecision = decision === undefined ? { kind: 'accept' } : resolvable(decision);
      try {
        let base: Record<string, unknown> = { kind: 'accept' };
        let content: unknown;
        if (decision === undefined) {
          content = readContent(result);
        } else {
          if (typeof decision !== 'object' || (decision as unknown) === null) return settled(unchanged);
          base = { ...(unchanged as Record<string, unknown>) }; // `decision`, or its copy without `then`
          if (base.kind !== 'accept' || base.value !== undefined) return settled(unchanged);
          content = base.content === undefined ? readContent(result) : base.content;
        }
        const candidate = spillCandidate(exec, content, resolved);
        // Under the cap (the common case): answered without an async function or an await.
        if (candidate === undefined) return settled(unchanged);
        const withText = (text: string): PostToolDecision => ({ ...base, kind: 'accept', content: [{ type: 'text', text }] });
        return spillOrKeep(candidate, unchanged, withText, resolved, emit);
      } catch {
        return settled(unchanged);
      }
    },
    applyToResult(exec: ToolExecution, result: ToolResult): Promise<ToolResult> {
      const unchanged = resolvable(result);
      try {
        if (typeof result !== 'object' || (result as unknown) === null) return settled(unchanged);
        const copy: Record<string, unknown> = { ...(unchanged as unknown as Record<string, unknown>) };
        const candidate = spillCandidate(exec, copy.content, resolved);
        if (candidate === undefined) return settled(unchanged);
        const withText = (text: string): ToolResult => ({ ...copy, content: [{ type: 'text', text }] });
        return spillOrKeep(candidate, unchanged, withText, resolved, emit);
      } catch {
        return settled(unchanged);
      }
    },
    stream(exec: ToolExecution): SpillStream {
      return createSpillStream(exec, resolved, emit);
    },
  };
}

function readContent(result: unknown): unknown {
  if (typeof result !== 'object' || result === null) return undefined;
  return (result as { content?: unknown }).content;
}

/**
 * The text blocks' texts, each read once, or `undefined` when the content is not an
 * array of text blocks only (an empty array is fine: it joins to the empty string).
 */
function textsOf(content: unknown): string[] | undefined {
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const block of content as unknown[]) {
    if (typeof block !== 'object' || block === null) return undefined;
    const { type, text } = block as Partial<ContentBlock> & { text?: unknown };
    if (type !== 'text' || typeof text !== 'string') return undefined;
    texts.push(text);
  }
  return texts;
}

/**
 * A promise already fulfilled with `value`, which has been through {@link resolvable}.
 * An async function with no `await` costs what `Promise.resolve` costs (measured), but
 * resolves exactly as `return value` always did: it reads only `then`, where
 * `Promise.resolve` would also read `constructor` of a real promise and might hand that
 * promise back itself. It never throws synchronously.
 */
// eslint-disable-next-line @typescript-eslint/require-await -- the promise is the point
async function settled<T>(value: T): Promise<T> {
  return value;
}

/** An over-cap text result that may be spilled: the screened execution and its texts, each read once. */
interface SpillCandidate {
  readonly info: ExecutionInfo;
  readonly texts: readonly string[];
  readonly cap: number;
}

/**
 * Decides synchronously whether this content is a spill candidate; `undefined` means leave
 * the result as it is (disabled, excluded or nested execution, not all text, or under the
 * cap — the last settled by lengths alone for most results, without scanning the text).
 */
function spillCandidate(exec: unknown, content: unknown, options: ResolvedOptions): SpillCandidate | undefined {
  const info = screenExecution(exec, options);
  const cap = options.cap;
  if (info === undefined || cap === undefined) return undefined;
  const texts = textsOf(content);
  if (texts === undefined || !joinedTextExceeds(texts, cap)) return undefined;
  return { info, texts, cap };
}

/**
 * What `apply` or `applyToResult` answers for a spill candidate: `withText(replacement)`
 * once it is spilled, or `unchanged` when it is kept or anything fails.
 */
async function spillOrKeep<T>(
  candidate: SpillCandidate,
  unchanged: T,
  withText: (text: string) => T,
  options: ResolvedOptions,
  emit: (event: SpillEvent) => void,
): Promise<T> {
  try {
    const text = await replacementFor(candidate, options, emit);
    return text === undefined ? unchanged : withText(text);
  } catch {
    return unchanged;
  }
}

/**
 * The replacement text for an over-cap candidate, or `undefined` to leave the result as it
 * is. Reports an event for every over-cap result.
 */
async function replacementFor(
  { info, texts, cap }: SpillCandidate,
  options: ResolvedOptions,
  emit: (event: SpillEvent) => void,
): Promise<string | undefined> {
  const text = texts.length === 1 ? (texts[0] as string) : texts.join(BLOCK_SEPARATOR);
  const totalBytes = utf8ByteLength(text);
  const names = eventNames(info);
  const blocker = spillBlocker(info, options, totalBytes);
  const backend = options.backend;
  if (blocker !== undefined || backend === undefined) {
    emit({ type: 'kept', ...names, reason: blocker ?? 'no-backend', bytes: totalBytes });
    return undefined;
  }
  const request = { ...saveRequest(info), content: text };
  const save = startSave((signal) => backend.saveText(request, { signal }), () => totalBytes);
  const outcome = await save.settle(options.saveTimeoutMs);
  if (!outcome.ok) {
    emit({ type: 'kept', ...names, reason: outcome.reason, bytes: totalBytes, ...(outcome.error === undefined ? {} : { error: outcome.error }) });
    return undefined;
  }
  const { locator, retrievalHint } = outcome.ref;
  const replacement = composeOutline({ head: text, tail: text, totalBytes, scan: scanOf(text, cap, options) }, cap, options.previewLimit, (omittedBytes) =>
    formatSpillNotice({ omittedBytes, locator, retrievalHint }),
  );
  if (replacement === undefined) {
    // The model keeps the original, so the stored copy is referenced by nothing.
    const removed = await removeUnreferenced(backend, locator, options.saveTimeoutMs);
    emit({ type: 'kept', ...names, reason: 'notice-too-large', bytes: totalBytes, locator, removed });
    return undefined;
  }
  emit({ type: 'spilled', ...names, bytes: totalBytes, shownBytes: replacement.shownBytes, locator, ms: outcome.ms });
  return replacement.text;
}

/** The scan of a whole text, as a stream's scan of the same text in chunks finds it. */
function scanOf(text: string, cap: number, options: ResolvedOptions): PreviewScan | undefined {
  if (options.preview === 'head-tail') return undefined;
  const scanner = new PreviewScanner(cap);
  scanner.push(text);
  return scanner.finish();
}
