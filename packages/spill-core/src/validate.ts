import type { SaveTextSpill, SaveTextStreamSpill } from './backend.js';
import { SpillError } from './errors.js';

function invalid(message: string): SpillError {
  return new SpillError('SPILL_INVALID_INPUT', message);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/**
 * Checks the parts of a save request that every backend relies on, for callers without
 * type checking. Rejects with `SPILL_INVALID_INPUT` naming the bad field. The content
 * itself is not checked here; see {@link assertSaveTextRequest}.
 */
export function assertSaveRequestEnvelope(input: unknown): asserts input is Omit<SaveTextSpill, 'content'> {
  if (typeof input !== 'object' || input === null) throw invalid('A save request must be an object.');
  const { owner, source, suggestedName } = input as Partial<Record<string, unknown>>;
  if (typeof owner !== 'object' || owner === null || !isNonEmptyString((owner as { sessionId?: unknown }).sessionId)) {
    throw invalid('owner.sessionId must be a non-empty string; pass the harness\'s session id.');
  }
  if (typeof source !== 'object' || source === null) throw invalid('source must be an object with toolName and callId.');
  const { toolName, callId } = source as { toolName?: unknown; callId?: unknown };
  if (typeof toolName !== 'string') throw invalid('source.toolName must be a string.');
  if (!isNonEmptyString(callId)) throw invalid('source.callId must be a non-empty string.');
  if (typeof suggestedName !== 'string') throw invalid('suggestedName must be a string (it may be empty).');
}

/** {@link assertSaveRequestEnvelope} plus a check that `content` is a string. */
export function assertSaveTextRequest(input: unknown): asserts input is SaveTextSpill {
  assertSaveRequestEnvelope(input);
  if (typeof (input as { content?: unknown }).content !== 'string') {
    throw invalid('content must be a string; use saveTextStream for chunked content.');
  }
}

/** {@link assertSaveRequestEnvelope} plus a check that `content` is iterable. */
export function assertSaveTextStreamRequest(input: unknown): asserts input is SaveTextStreamSpill {
  assertSaveRequestEnvelope(input);
  const content = (input as { content?: unknown }).content;
  const iterable =
    typeof content === 'object' &&
    content !== null &&
    (Symbol.asyncIterator in content || Symbol.iterator in content);
  if (!iterable) throw invalid('content must be an Iterable<string> or AsyncIterable<string>.');
}
