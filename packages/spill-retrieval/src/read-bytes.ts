import { SpillError, isSpillError, throwIfAborted } from '@spillway/core';
import type { SpillCallOptions, SpillLocator } from '@spillway/core';
import { checkSource } from './byte-source.js';
import type { OpenSpillByteSource } from './byte-source.js';
import { assertLocatorString, callSettings } from './options.js';

/** The most bytes one chunk of {@link readSourceBytes} asks a source for. */
export const READ_BYTES_CHUNK = 1024 * 1024;

/**
 * Streams an artifact's bytes, whole and as stored, one bounded read at a time: the locator
 * and options are checked as `read` checks them, the source is opened through `open` (the
 * backend's own locator checks), and it is closed when the loop ends, early or not.
 */
export async function* readSourceBytes(
  open: OpenSpillByteSource,
  locator: SpillLocator,
  options: SpillCallOptions | undefined,
): AsyncGenerator<Uint8Array, void, undefined> {
  const { signal } = callSettings('readBytes', options);
  assertLocatorString(locator);
  throwIfAborted(signal, 'The read');
  const source = checkSource(await open(locator, signal === undefined ? {} : { signal }));
  try {
    const chunk = Math.max(1, Math.min(READ_BYTES_CHUNK, source.preferredReadBytes ?? READ_BYTES_CHUNK));
    let position = 0;
    while (position < source.size) {
      throwIfAborted(signal, 'The read');
      let bytes: Uint8Array;
      try {
        bytes = await source.read(position, Math.min(chunk, source.size - position), signal === undefined ? undefined : { signal });
      } catch (error) {
        if (isSpillError(error)) throw error;
        throw new SpillError('SPILL_STORAGE_FAILED', `Reading the artifact failed: ${error instanceof Error ? error.message : String(error)}.`, { cause: error });
      }
      if (bytes.length === 0) {
        throw new SpillError('SPILL_STORAGE_FAILED', `The artifact ended after ${String(position)} of its ${String(source.size)} bytes; it may have been changed or cut while it was read.`);
      }
      position += bytes.length;
      // A source may hand out a view of a buffer it reuses: the consumer gets its own copy.
      yield bytes.slice();
    }
  } finally {
    await source.close?.().catch(() => undefined);
  }
}
