import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { SpillError, abortedError } from '@spillway/core';
import type { SpillLocator } from '@spillway/core';
import type { SpillByteSource } from '@spillway/retrieval';
import { isNoSuchKey } from './errors.js';
import { parseLocator } from './layout.js';
import type { Layout } from './layout.js';
import { Passthrough, request } from './request.js';
import type { RequestContext } from './request.js';

/** Default size of one ranged GetObject: large ranges, few requests. */
export const DEFAULT_READ_BYTES = 8 * 1024 * 1024;

/** What reading needs. */
export interface ReadContext extends RequestContext {
  readonly client: S3Client;
  readonly layout: Layout;
  readonly readBytes: number;
}

function notFound(locator: string, cause: unknown): SpillError {
  return new SpillError('SPILL_NOT_FOUND', `Nothing is stored at ${locator} (never stored, or deleted by retention or a lifecycle rule).`, { cause });
}

/** Collects a GetObject body into one array of exactly `length` bytes, abandoning it when `signal` fires. */
async function collect(body: AsyncIterable<Uint8Array>, length: number, signal: AbortSignal): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  let at = 0;
  const destroy = (): void => {
    (body as { destroy?: (e?: unknown) => void }).destroy?.(abortedError(signal));
  };
  signal.addEventListener('abort', destroy, { once: true });
  try {
    for await (const chunk of body) {
      if (at + chunk.byteLength > length) throw new Error(`the store sent more than the ${String(length)} bytes asked for`);
      out.set(chunk, at);
      at += chunk.byteLength;
    }
  } finally {
    signal.removeEventListener('abort', destroy);
  }
  if (at !== length) throw Object.assign(new Error(`the response ended after ${String(at)} of ${String(length)} bytes`), { code: 'ECONNRESET' });
  return out;
}

/**
 * Opens an artifact for the retrieval engine: checks the locator (no request for a forged
 * one), one HeadObject for the size and ETag, then ranged GetObjects pinned to that ETag
 * (`If-Match`), each retried like any request. A missing object answers `SPILL_NOT_FOUND`.
 */
export async function openByteSource(ctx: ReadContext, locator: SpillLocator, signal: AbortSignal | undefined): Promise<SpillByteSource> {
  const { key } = parseLocator(ctx.layout, locator);
  const bucket = ctx.layout.bucket;
  let head;
  try {
    head = await request(ctx, 'HeadObject', signal, (abortSignal) => ctx.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), { abortSignal }), isNoSuchKey);
  } catch (error) {
    if (error instanceof Passthrough) throw notFound(locator, error.original);
    throw error;
  }
  const size = head.ContentLength ?? 0;
  const etag = head.ETag;
  // The last range fetched: the engine scans to a line with one large read and then reads
  // the page from inside it, which this answers without a second request.
  let last: { start: number; bytes: Uint8Array } | undefined;
  return {
    size,
    preferredReadBytes: ctx.readBytes,
    ...(etag === undefined ? {} : { cacheKey: `${locator}#${etag}` }),
    close(): Promise<void> {
      last = undefined;
      return Promise.resolve();
    },
    async read(position: number, length: number, options?: { readonly signal?: AbortSignal }): Promise<Uint8Array> {
      const end = Math.min(size, position + length);
      if (end <= position) return new Uint8Array(0);
      if (last !== undefined && position >= last.start && end <= last.start + last.bytes.length) {
        return last.bytes.subarray(position - last.start, end - last.start);
      }
      try {
        last = undefined;
        const bytes = await request(
          ctx,
          'GetObject',
          options?.signal,
          async (abortSignal) => {
            const answer = await ctx.client.send(
              new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${String(position)}-${String(end - 1)}`, ...(etag === undefined ? {} : { IfMatch: etag }) }),
              { abortSignal },
            );
            if (answer.Body === undefined) throw new Error('GetObject answered without a body');
            return collect(answer.Body as AsyncIterable<Uint8Array>, end - position, abortSignal);
          },
          (error) => isNoSuchKey(error) || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 412,
        );
        last = { start: position, bytes };
        return bytes;
      } catch (error) {
        if (error instanceof Passthrough) throw notFound(locator, error.original);
        throw error;
      }
    },
  };
}
