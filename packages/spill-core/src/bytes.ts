import type { SaveBytesStreamSpill } from './backend.js';
import { SpillError, isSpillError, raceAbort, throwIfAborted } from './errors.js';
import { assertSaveRequestEnvelope } from './validate.js';

/** {@link assertSaveRequestEnvelope} plus a check that `content` is iterable (of byte chunks). */
export function assertSaveBytesStreamRequest(input: unknown): asserts input is SaveBytesStreamSpill {
  assertSaveRequestEnvelope(input);
  const content = (input as { content?: unknown }).content;
  const iterable = typeof content === 'object' && content !== null && (Symbol.asyncIterator in content || Symbol.iterator in content);
  if (!iterable) throw new SpillError('SPILL_INVALID_INPUT', 'content must be an Iterable<Uint8Array> or AsyncIterable<Uint8Array>.');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object that is not a Uint8Array';
  return `a ${typeof value}`;
}

/** A `Uint8Array` (a `Buffer` too), from this realm or another. */
function isUint8Array(value: unknown): value is Uint8Array {
  return ArrayBuffer.isView(value) && Object.prototype.toString.call(value) === '[object Uint8Array]';
}

function failed(cause: unknown): SpillError {
  return new SpillError('SPILL_STREAM_FAILED', 'The content stream threw before it ended, so nothing was stored; retry the save once the source is fixed.', { cause });
}

/**
 * The chunks of a byte stream for a backend's `saveBytesStream`, checked: each one must be
 * a `Uint8Array` (a Node `Buffer` is one), a stream that throws becomes
 * `SPILL_STREAM_FAILED`, and a fired `signal` ends the loop with `SPILL_ABORTED`, even while
 * the producer hangs. Breaking out of the loop (or a failure) tells the producer to stop,
 * without waiting for it.
 *
 * @param content - the request's `content`
 * @param signal - the save's signal, if any
 */
export async function* byteChunks(
  content: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  signal: AbortSignal | undefined,
): AsyncGenerator<Uint8Array, void, undefined> {
  let iterator: Iterator<unknown> | AsyncIterator<unknown>;
  try {
    iterator = Symbol.asyncIterator in content ? (content as AsyncIterable<unknown>)[Symbol.asyncIterator]() : (content as Iterable<unknown>)[Symbol.iterator]();
  } catch (error) {
    throw failed(error);
  }
  let finished = false;
  try {
    for (;;) {
      throwIfAborted(signal, 'The save');
      let step: IteratorResult<unknown>;
      try {
        step = await raceAbort(Promise.resolve(iterator.next()), signal, 'The save');
      } catch (error) {
        if (isSpillError(error, 'SPILL_ABORTED')) throw error;
        finished = true; // a producer that threw is done
        throw failed(error);
      }
      if (typeof step !== 'object' || (step as unknown) === null) throw failed(new TypeError('The stream iterator returned a non-object result.'));
      if (step.done === true) {
        finished = true;
        return;
      }
      const chunk = step.value;
      if (!isUint8Array(chunk)) {
        throw new SpillError('SPILL_STREAM_FAILED', `The content stream yielded ${describe(chunk)} where a Uint8Array was expected, so nothing was stored; yield byte chunks only.`);
      }
      yield chunk;
    }
  } finally {
    if (!finished && typeof iterator.return === 'function') {
      try {
        Promise.resolve(iterator.return()).catch(() => undefined);
      } catch {
        // The save already failed or ended; the producer's cleanup error changes nothing.
      }
    }
  }
}
