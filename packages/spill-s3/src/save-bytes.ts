import { isUtf8 } from 'node:buffer';
import { assertSaveBytesStreamRequest, byteChunks, throwIfAborted } from '@spillway/core';
import type { SaveBytesStreamSpill, SpillRef } from '@spillway/core';
import { locatorOf } from './layout.js';
import { BINARY_CONTENT_TYPE, CONTENT_TYPE, S3_RETRIEVAL_HINT, abortUpload, completeUpload, putOnce, startUpload, uploadPart } from './save.js';
import type { SaveContext, Upload } from './save.js';

/** The first size of the part buffer, before it grows to the part size. */
const FIRST_BUFFER_BYTES = 64 * 1024;

/** `bytes` without a UTF-8 sequence cut off at its end (up to 3 bytes), for judging a first part alone. */
function withoutCutSequence(bytes: Uint8Array): Uint8Array {
  let i = bytes.length - 1;
  while (i >= 0 && bytes.length - i <= 3 && ((bytes[i] ?? 0) & 0xc0) === 0x80) i--;
  if (i < 0) return bytes;
  const lead = bytes[i] ?? 0;
  // Only a byte that can start a sequence (0xC2–0xF4) can start a cut one.
  const need = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 1;
  return bytes.length - i < need ? bytes.subarray(0, i) : bytes;
}

/**
 * The Content-Type of stored bytes: text when they are UTF-8 without NUL bytes, else
 * `application/octet-stream`. A multipart upload names its type before the rest arrives, so
 * its first part decides (`complete` false: a sequence cut at the part's end is not held against it).
 */
export function contentTypeOf(bytes: Uint8Array, complete: boolean): string {
  const judged = complete ? bytes : withoutCutSequence(bytes);
  return judged.includes(0) || !isUtf8(judged) ? BINARY_CONTENT_TYPE : CONTENT_TYPE;
}

/**
 * Streams raw bytes into the store exactly as given, with one part buffer of (at most)
 * `partBytes`: a stream that ends before the first part fills is one conditional
 * PutObject, a longer one a multipart upload completed with `If-None-Match: *`, aborted
 * on any failure. Nothing is decoded, so binary content keeps every byte; it is stored as
 * `application/octet-stream` (see {@link contentTypeOf}).
 */
export async function saveBytes(ctx: SaveContext, input: SaveBytesStreamSpill, signal: AbortSignal | undefined): Promise<SpillRef> {
  assertSaveBytesStreamRequest(input);
  throwIfAborted(signal, 'The save');
  const envelope = { owner: input.owner, source: input.source, suggestedName: input.suggestedName };
  let part = Buffer.allocUnsafe(Math.min(ctx.partBytes, FIRST_BUFFER_BYTES));
  let fill = 0;
  let total = 0;
  let upload: Upload | undefined;
  try {
    for await (const chunk of byteChunks(input.content, signal)) {
      total += chunk.length;
      let at = 0;
      while (at < chunk.length) {
        const n = Math.min(part.length - fill, chunk.length - at);
        part.set(chunk.subarray(at, at + n), fill);
        fill += n;
        at += n;
        if (fill < part.length) continue;
        if (part.length < ctx.partBytes) {
          // Grow by doubling up to the part size, so that a short stream holds little.
          const bigger = Buffer.allocUnsafe(Math.min(ctx.partBytes, part.length * 2));
          part.copy(bigger, 0, 0, fill);
          part = bigger;
        } else {
          upload ??= await startUpload(ctx, envelope, signal, contentTypeOf(part, false));
          await uploadPart(ctx, upload, part, signal);
          fill = 0;
        }
      }
    }
    throwIfAborted(signal, 'The save');
    if (upload === undefined) {
      const body = part.subarray(0, fill);
      return await putOnce(ctx, envelope, body, signal, contentTypeOf(body, true));
    }
    if (fill > 0) await uploadPart(ctx, upload, part.subarray(0, fill), signal);
    await completeUpload(ctx, upload, signal);
    return { locator: locatorOf(ctx.layout, upload.key), bytes: total, retrievalHint: S3_RETRIEVAL_HINT };
  } catch (error) {
    if (upload !== undefined) await abortUpload(ctx, upload);
    throw error;
  }
}
