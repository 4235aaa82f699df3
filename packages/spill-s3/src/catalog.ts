import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
} from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { SpillError, throwIfAborted } from '@spillway/core';
import type { ListOptions, SpillCallOptions, SpillEntry, SpillLocator, SweepTempResult } from '@spillway/core';
import { isKeyTaken, isNoSuchKey, isNotImplemented } from './errors.js';
import { locatorOf, parseKey, parseLocator, rootPrefix, sessionPrefix } from './layout.js';
import type { Layout } from './layout.js';
import { Passthrough, request } from './request.js';
import type { RequestContext } from './request.js';

/** What the catalog needs. */
export interface CatalogContext extends RequestContext {
  readonly client: S3Client;
  readonly layout: Layout;
  readonly now: () => number;
  /** Keys per ListObjectsV2 page (the store's maximum, 1000, unless a test lowers it). */
  readonly pageSize: number;
}

/**
 * Streams the artifacts under the prefix (or one session's), one ListObjectsV2 page at a
 * time: the next page is requested only when the consumer has taken every entry of the
 * current one, and nothing but that page is held. Keys not of this backend's shape are
 * skipped.
 */
export async function* listEntries(ctx: CatalogContext, options: ListOptions = {}): AsyncGenerator<SpillEntry> {
  const prefix = options.sessionId === undefined ? rootPrefix(ctx.layout) : sessionPrefix(ctx.layout, options.sessionId);
  let token: string | undefined;
  do {
    const page = await request(ctx, 'ListObjectsV2', options.signal, (abortSignal) =>
      ctx.client.send(
        new ListObjectsV2Command({ Bucket: ctx.layout.bucket, Prefix: prefix, MaxKeys: ctx.pageSize, ...(token === undefined ? {} : { ContinuationToken: token }) }),
        { abortSignal },
      ),
    );
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    for (const object of page.Contents ?? []) {
      if (object.Key === undefined) continue;
      const parsed = parseKey(ctx.layout, object.Key);
      if (parsed === undefined) continue;
      yield {
        locator: locatorOf(ctx.layout, parsed.key),
        bytes: object.Size ?? 0,
        createdAt: object.LastModified ?? new Date(0),
        session: parsed.session,
      };
    }
  } while (token !== undefined);
}

/**
 * Deletes one artifact: a HeadObject for its ETag (DeleteObject alone answers the same
 * whether or not the object was there), then DeleteObject with `If-Match: <etag>`, so of
 * two concurrent deletes only one answers `true` on stores that honour conditional
 * deletes. A 404 or 412 on either step means someone else removed it: `false`.
 */
export async function deleteEntry(ctx: CatalogContext, locator: SpillLocator, options: SpillCallOptions = {}): Promise<boolean> {
  const { key } = parseLocator(ctx.layout, locator);
  const { signal } = options;
  const gone = (error: unknown): boolean => isNoSuchKey(error) || isKeyTaken(error);
  try {
    const head = await request(ctx, 'HeadObject', signal, (abortSignal) => ctx.client.send(new HeadObjectCommand({ Bucket: ctx.layout.bucket, Key: key }), { abortSignal }), gone);
    await request(
      ctx,
      'DeleteObject',
      signal,
      (abortSignal) =>
        ctx.client.send(new DeleteObjectCommand({ Bucket: ctx.layout.bucket, Key: key, ...(head.ETag === undefined ? {} : { IfMatch: head.ETag }) }), { abortSignal }),
      gone,
    );
    return true;
  } catch (error) {
    if (error instanceof Passthrough) return false;
    throw error;
  }
}

/**
 * Aborts the multipart uploads under the prefix that were started more than `olderThanMs`
 * ago (streams that crashed before completing or aborting), summing their parts' sizes.
 * Uploads of keys not of this backend's shape are left alone. A store that does not
 * implement ListMultipartUploads (HTTP 501) answers 0 removed.
 */
export async function sweepUploads(ctx: CatalogContext, options: { readonly olderThanMs: number } & SpillCallOptions): Promise<SweepTempResult> {
  const olderThanMs: unknown = (options as { olderThanMs?: unknown } | undefined)?.olderThanMs;
  if (typeof olderThanMs !== 'number' || !(olderThanMs >= 0)) {
    throw new SpillError('SPILL_INVALID_INPUT', 'sweepTemp needs olderThanMs, a number of milliseconds >= 0 (such as 3600000 for an hour).');
  }
  const { signal } = options;
  throwIfAborted(signal, 'sweepTemp');
  const cutoff = ctx.now() - olderThanMs;
  let removed = 0;
  let bytes = 0;
  let keyMarker: string | undefined;
  let uploadIdMarker: string | undefined;
  do {
    let page;
    try {
      page = await request(
        ctx,
        'ListMultipartUploads',
        signal,
        (abortSignal) =>
          ctx.client.send(
            new ListMultipartUploadsCommand({
              Bucket: ctx.layout.bucket,
              Prefix: rootPrefix(ctx.layout),
              ...(keyMarker === undefined ? {} : { KeyMarker: keyMarker }),
              ...(uploadIdMarker === undefined ? {} : { UploadIdMarker: uploadIdMarker }),
            }),
            { abortSignal },
          ),
        isNotImplemented,
      );
    } catch (error) {
      // A store that cannot list uploads (501) has none this sweep can see; its bucket's
      // lifecycle rule (AbortIncompleteMultipartUpload) is what removes them.
      if (error instanceof Passthrough) return { removed, bytes };
      throw error;
    }
    const truncated = page.IsTruncated === true;
    keyMarker = truncated ? page.NextKeyMarker : undefined;
    uploadIdMarker = truncated ? page.NextUploadIdMarker : undefined;
    for (const upload of page.Uploads ?? []) {
      const { Key: key, UploadId: uploadId, Initiated: initiated } = upload;
      if (key === undefined || uploadId === undefined || parseKey(ctx.layout, key) === undefined) continue;
      if (initiated === undefined || initiated.getTime() > cutoff) continue;
      bytes += await partBytes(ctx, key, uploadId, signal);
      await request(ctx, 'AbortMultipartUpload', signal, (abortSignal) =>
        ctx.client.send(new AbortMultipartUploadCommand({ Bucket: ctx.layout.bucket, Key: key, UploadId: uploadId }), { abortSignal }),
      );
      removed++;
    }
  } while (keyMarker !== undefined);
  return { removed, bytes };
}

async function partBytes(ctx: CatalogContext, key: string, uploadId: string, signal: AbortSignal | undefined): Promise<number> {
  let total = 0;
  let marker: string | undefined;
  do {
    const page = await request(ctx, 'ListParts', signal, (abortSignal) =>
      ctx.client.send(
        new ListPartsCommand({ Bucket: ctx.layout.bucket, Key: key, UploadId: uploadId, ...(marker === undefined ? {} : { PartNumberMarker: marker }) }),
        { abortSignal },
      ),
    );
    for (const part of page.Parts ?? []) total += part.Size ?? 0;
    marker = page.IsTruncated === true ? page.NextPartNumberMarker : undefined;
  } while (marker !== undefined);
  return total;
}
