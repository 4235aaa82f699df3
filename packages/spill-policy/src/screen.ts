import { callId as brandCallId, sessionId as brandSessionId, type SaveTextSpill } from '@spillway/core';
import { formatSpillNotice } from './notice.js';
import type { ResolvedOptions } from './options.js';
import type { SpillKeptReason } from './types.js';

/** A snapshot of the execution, each field read once. */
export interface ExecutionInfo {
  readonly toolName: string;
  readonly callId: unknown;
  readonly sessionId: unknown;
}

/**
 * Reads the execution and decides whether it may be spilled at all. `undefined` means
 * pass through untouched: the policy is disabled, the execution is not an object or has
 * no string `toolName`, it is nested (a non-empty `parentCallId`, or any other non-nullish
 * value), or its tool is in `skipTools`.
 */
export function screenExecution(exec: unknown, options: ResolvedOptions): ExecutionInfo | undefined {
  if (options.cap === undefined) return undefined;
  if (typeof exec !== 'object' || exec === null) return undefined;
  const { toolName, callId, sessionId, parentCallId } = exec as Record<string, unknown>;
  if (parentCallId !== undefined && parentCallId !== null && parentCallId !== '') return undefined;
  if (typeof toolName !== 'string' || options.skipTools.has(toolName)) return undefined;
  return { toolName, callId, sessionId };
}

/** The reason an over-cap result cannot be spilled before anything is saved, if any. */
export function spillBlocker(info: ExecutionInfo, options: ResolvedOptions, totalBytes: number): SpillKeptReason | undefined {
  if (typeof info.callId !== 'string' || info.callId.length === 0) return 'invalid-execution';
  if (typeof info.sessionId !== 'string' || info.sessionId.length === 0) return 'no-session';
  if (options.backend === undefined) return 'no-backend';
  // The smallest notice this total could get (a one-byte locator, an empty hint): when
  // even that is over the cap, saving would be wasted.
  const smallest = formatSpillNotice({ omittedBytes: totalBytes, locator: '-', retrievalHint: '' }).length;
  if (options.cap !== undefined && smallest > options.cap) return 'notice-too-large';
  return undefined;
}

/**
 * The most UTF-16 code units of a tool name that go into a suggested name or a label. A
 * backend keeps a name of at most a few hundred bytes, so a longer tool name (the harness
 * may take it from the model) is cut here, before anyone does per-character work on it.
 */
export const MAX_NAMING_TOOL_NAME = 200;

/** `text` cut to at most `max` code units, never leaving half a surrogate pair at the end. */
function cutUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** The save request for an execution that passed {@link spillBlocker}. */
export function saveRequest(info: ExecutionInfo): Omit<SaveTextSpill, 'content'> {
  const naming = cutUnits(info.toolName, MAX_NAMING_TOOL_NAME);
  return {
    owner: { sessionId: brandSessionId(info.sessionId as string) },
    source: { toolName: info.toolName, callId: brandCallId(info.callId as string), label: `result of ${naming || 'a tool'}` },
    suggestedName: `${naming || 'tool-result'}.txt`,
  };
}

/** The event fields that name the call. */
export function eventNames(info: ExecutionInfo): { readonly toolName: string; readonly callId: string } {
  return { toolName: info.toolName, callId: typeof info.callId === 'string' ? info.callId : '' };
}
