import { removeUnreferenced } from './artifact.js';
import { emitSafely } from './events.js';
import { BLOCK_SEPARATOR, byteLength, joinedTextExceeds } from './measure.js';
import { formatSpillNotice } from './notice.js';
import { resolveOptions, type ResolvedOptions } from './options.js';
import { composeReplacement } from './preview.js';
import { startSave } from './save.js';
import { eventNames, saveRequest, screenExecution, spillBlocker } from './screen.js';
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
    async apply(exec: ToolExecution, result: ToolResult, decision?: PostToolDecision): Promise<PostToolDecision> {
      // Every answer goes through `resolvable`: an async function's promise reads `then`.
      const unchanged: PostToolDecision = decision === undefined ? { kind: 'accept' } : resolvable(decision);
      try {
        let base: Record<string, unknown> = { kind: 'accept' };
        let content: unknown;
        if (decision === undefined) {
          content = readContent(result);
        } else {
          if (typeof decision !== 'object' || (decision as unknown) === null) return unchanged;
          base = { ...(unchanged as Record<string, unknown>) }; // `decision`, or its copy without `then`
          if (base.kind !== 'accept' || base.value !== undefined) return unchanged;
          content = base.content === undefined ? readContent(result) : base.content;
        }
        const text = await replacementFor(exec, content, resolved, emit);
        if (text === undefined) return unchanged;
        return { ...base, kind: 'accept', content: [{ type: 'text', text }] };
      } catch {
        return unchanged;
      }
    },
    async applyToResult(exec: ToolExecution, result: ToolResult): Promise<ToolResult> {
      const unchanged = resolvable(result);
      try {
        if (typeof result !== 'object' || (result as unknown) === null) return unchanged;
        const copy: Record<string, unknown> = { ...(unchanged as unknown as Record<string, unknown>) };
        const text = await replacementFor(exec, copy.content, resolved, emit);
        if (text === undefined) return unchanged;
        return { ...copy, content: [{ type: 'text', text }] };
      } catch {
        return unchanged;
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
 * The replacement text for this content, or `undefined` to leave the result as it is.
 * Reports an event for every over-cap result.
 */
async function replacementFor(
  exec: unknown,
  content: unknown,
  options: ResolvedOptions,
  emit: (event: SpillEvent) => void,
): Promise<string | undefined> {
  const info = screenExecution(exec, options);
  const cap = options.cap;
  if (info === undefined || cap === undefined) return undefined;
  const texts = textsOf(content);
  if (texts === undefined || !joinedTextExceeds(texts, cap)) return undefined;

  const text = texts.length === 1 ? (texts[0] as string) : texts.join(BLOCK_SEPARATOR);
  const totalBytes = byteLength(text);
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
  const replacement = composeReplacement({ head: text, tail: text, totalBytes }, cap, options.previewLimit, (omittedBytes) =>
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
