import { assertSaveBytesStreamRequest, byteChunks, throwIfAborted } from '@spillway/core';
import type { SaveBytesStreamSpill, SpillRef } from '@spillway/core';
import { locatorOf } from './layout.js';
import { S3_RETRIEVAL_HINT, abortUpload, completeUpload, putOnce, startUpload, uploadPart } from './save.js';
import type { SaveContext, Upload } from './save.js';

/** The first size of the part buffer, before it grows to the part size. */
const FIRST_BUFFER_BYTES = 64 * 1024;

/**
 * Streams raw bytes into the store exactly as given, with one part buffer of (at most)
 * `partBytes`: a stream that ends before the first part fills is one conditional
 * PutObject, a longer one a multipart upload completed with `If-None-Match: *`, aborted
 * on any failure. Nothing is decoded, so binary content keeps every byte.
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
          upload ??= await startUpload(ctx, envelope, signal);
          await uploadPart(ctx, upload, part, signal);
          fill = 0;
        }
      }
    }
    throwIfAborted(signal, 'The save');
    if (upload === undefined) return await putOnce(ctx, envelope, part.subarray(0, fill), signal);
    if (fill > 0) await uploadPart(ctx, upload, part.subarray(0, fill), signal);
    await completeUpload(ctx, upload, signal);
    return { locator: locatorOf(ctx.layout, upload.key), bytes: total, retrievalHint: S3_RETRIEVAL_HINT };
  } catch (error) {
    if (upload !== undefined) await abortUpload(ctx, upload);
    throw error;
  }
}
