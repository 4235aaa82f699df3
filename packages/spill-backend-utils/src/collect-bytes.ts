import { assertSaveBytesStreamRequest, byteChunks, throwIfAborted } from '@spillway/core';
import type { SaveBytesStreamSpill } from '@spillway/core';

/**
 * The bytes of a `saveBytesStream` request as one array, checked chunk by chunk and
 * refused (with `tooLarge`) as soon as they pass `maxBytes`, so that an oversized stream
 * never holds more than the cap.
 */
export async function collectBytes(
  input: SaveBytesStreamSpill,
  signal: AbortSignal | undefined,
  maxBytes: number,
  tooLarge: (bytes: number | undefined) => Error,
): Promise<Uint8Array> {
  assertSaveBytesStreamRequest(input);
  throwIfAborted(signal, 'The save');
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of byteChunks(input.content, signal)) {
    total += chunk.length;
    if (total > maxBytes) throw tooLarge(undefined);
    // Copied: the producer may reuse its buffer once the next chunk is asked for.
    if (chunk.length > 0) chunks.push(chunk.slice());
  }
  throwIfAborted(signal, 'The save');
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}
