import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { CompletedPart, S3Client, ServerSideEncryption } from '@aws-sdk/client-s3';
import { SpillError, throwIfAborted } from '@spillway/core';
import type { SaveTextSpill, SpillRef } from '@spillway/core';
import { RETRIEVAL_HINTS } from '@spillway/core/notice';
import { ContentStream, Utf8ChunkEncoder } from '@spillway/backend-utils';
import type { ContentChunks } from '@spillway/backend-utils';
import { isKeyTaken } from './errors.js';
import { locatorOf, newKey } from './layout.js';
import type { Layout } from './layout.js';
import { Passthrough, request } from './request.js';
import type { RequestContext } from './request.js';

/** The `retrievalHint` of every artifact: the model has no file to `read`, so it names the retrieval tools. */
export const S3_RETRIEVAL_HINT = RETRIEVAL_HINTS['spill-tools'];
/** The Content-Type of a text artifact (every `saveText`/`saveTextStream`, and bytes that are UTF-8 text). */
export const CONTENT_TYPE = 'text/plain; charset=utf-8';
/** The Content-Type of bytes that are not UTF-8 text (see `saveBytesStream`). */
export const BINARY_CONTENT_TYPE = 'application/octet-stream';
/** The first size of a stream's part buffer, before it grows to the part size. */
const FIRST_BUFFER_BYTES = 64 * 1024;
/** How many fresh keys a save tries when the store says a key is taken. */
export const KEY_ATTEMPTS = 5;

/** Server-side encryption settings, passed through to PutObject and CreateMultipartUpload. */
export interface S3Encryption {
  /** `AES256` (SSE-S3), `aws:kms` (SSE-KMS) or `aws:kms:dsse`. */
  readonly serverSideEncryption: ServerSideEncryption;
  /** The KMS key (id or ARN) for `aws:kms`; the bucket's default key when omitted. */
  readonly kmsKeyId?: string;
  /** Use an S3 Bucket Key for SSE-KMS (fewer KMS requests). */
  readonly bucketKeyEnabled?: boolean;
}

/** What saving needs. */
export interface SaveContext extends RequestContext {
  readonly client: S3Client;
  readonly layout: Layout;
  readonly partBytes: number;
  readonly encryption: S3Encryption | undefined;
  /** Makes the random id of a new key. */
  readonly randomId: () => string;
}

type Envelope = Omit<SaveTextSpill, 'content'>;

function metadata(input: Envelope, bytes: number | undefined): Record<string, string> {
  // Header values must be ASCII: the tool name is percent-encoded.
  const tool = encodeURIComponent(input.source.toolName).slice(0, 256);
  return bytes === undefined ? { 'spillway-tool': tool } : { 'spillway-tool': tool, 'spillway-bytes': String(bytes) };
}

function encryptionFields(encryption: S3Encryption | undefined): {
  ServerSideEncryption?: ServerSideEncryption;
  SSEKMSKeyId?: string;
  BucketKeyEnabled?: boolean;
} {
  if (encryption === undefined) return {};
  return {
    ServerSideEncryption: encryption.serverSideEncryption,
    ...(encryption.kmsKeyId === undefined ? {} : { SSEKMSKeyId: encryption.kmsKeyId }),
    ...(encryption.bucketKeyEnabled === undefined ? {} : { BucketKeyEnabled: encryption.bucketKeyEnabled }),
  };
}

function keyTakenTooOften(ctx: SaveContext): SpillError {
  return new SpillError(
    'SPILL_STORAGE_FAILED',
    `Every fresh key was already taken in bucket "${ctx.bucket}" (${String(KEY_ATTEMPTS)} conditional PutObjects answered 412); nothing was stored. Check that nothing else writes under the prefix.`,
  );
}

/**
 * Stores `body` with one conditional PutObject (`If-None-Match: *`), so an existing object
 * is never overwritten; when the store answers 412 the save picks a fresh key and tries
 * again. Stores that ignore the condition overwrite instead, which 80 random bits make
 * practically impossible.
 */
export async function putOnce(
  ctx: SaveContext,
  input: Envelope,
  body: Uint8Array,
  signal: AbortSignal | undefined,
  contentType: string = CONTENT_TYPE,
): Promise<SpillRef> {
  for (let i = 0; i < KEY_ATTEMPTS; i++) {
    const key = newKey(ctx.layout, input.owner.sessionId, input.suggestedName, ctx.randomId);
    try {
      await request(
        ctx,
        'PutObject',
        signal,
        (abortSignal) =>
          ctx.client.send(
            new PutObjectCommand({
              Bucket: ctx.layout.bucket,
              Key: key,
              Body: body,
              ContentLength: body.byteLength,
              ContentType: contentType,
              IfNoneMatch: '*',
              Metadata: metadata(input, body.byteLength),
              ...encryptionFields(ctx.encryption),
            }),
            { abortSignal },
          ),
        isKeyTaken,
      );
      return { locator: locatorOf(ctx.layout, key), bytes: body.byteLength, retrievalHint: S3_RETRIEVAL_HINT };
    } catch (error) {
      if (!(error instanceof Passthrough)) throw error;
    }
  }
  throw keyTakenTooOften(ctx);
}

/** One multipart upload in progress. */
export interface Upload {
  readonly key: string;
  readonly uploadId: string;
  readonly parts: CompletedPart[];
}

export async function startUpload(ctx: SaveContext, input: Envelope, signal: AbortSignal | undefined, contentType: string = CONTENT_TYPE): Promise<Upload> {
  const key = newKey(ctx.layout, input.owner.sessionId, input.suggestedName, ctx.randomId);
  const created = await request(ctx, 'CreateMultipartUpload', signal, (abortSignal) =>
    ctx.client.send(
      new CreateMultipartUploadCommand({
        Bucket: ctx.layout.bucket,
        Key: key,
        ContentType: contentType,
        Metadata: metadata(input, undefined),
        ...encryptionFields(ctx.encryption),
      }),
      { abortSignal },
    ),
  );
  if (created.UploadId === undefined) {
    throw new SpillError('SPILL_STORAGE_FAILED', `CreateMultipartUpload on bucket "${ctx.bucket}" answered without an UploadId; the store does not support multipart uploads.`);
  }
  return { key, uploadId: created.UploadId, parts: [] };
}

export async function uploadPart(ctx: SaveContext, upload: Upload, body: Uint8Array, signal: AbortSignal | undefined): Promise<void> {
  const partNumber = upload.parts.length + 1;
  const answer = await request(ctx, 'UploadPart', signal, (abortSignal) =>
    ctx.client.send(
      new UploadPartCommand({
        Bucket: ctx.layout.bucket,
        Key: upload.key,
        UploadId: upload.uploadId,
        PartNumber: partNumber,
        Body: body,
        ContentLength: body.byteLength,
      }),
      { abortSignal },
    ),
  );
  upload.parts.push({ PartNumber: partNumber, ETag: answer.ETag });
}

/**
 * Aborts an upload, best effort: the save has failed already and its error is the one to
 * report. Not tied to the caller's signal (which may be what fired); a store that loses
 * the abort leaves parts that `sweepTemp` (or a lifecycle rule) removes later.
 */
export async function abortUpload(ctx: SaveContext, upload: Upload): Promise<void> {
  const quick: RequestContext = { bucket: ctx.bucket, retry: { ...ctx.retry, attempts: Math.min(3, ctx.retry.attempts), attemptTimeoutMs: 10_000 } };
  await request(quick, 'AbortMultipartUpload', undefined, (abortSignal) =>
    ctx.client.send(new AbortMultipartUploadCommand({ Bucket: ctx.layout.bucket, Key: upload.key, UploadId: upload.uploadId }), { abortSignal }),
  ).catch(() => undefined);
}

export async function completeUpload(ctx: SaveContext, upload: Upload, signal: AbortSignal | undefined): Promise<void> {
  try {
    await request(
      ctx,
      'CompleteMultipartUpload',
      signal,
      (abortSignal) =>
        ctx.client.send(
          new CompleteMultipartUploadCommand({
            Bucket: ctx.layout.bucket,
            Key: upload.key,
            UploadId: upload.uploadId,
            IfNoneMatch: '*',
            MultipartUpload: { Parts: upload.parts },
          }),
          { abortSignal },
        ),
      isKeyTaken,
    );
  } catch (error) {
    if (error instanceof Passthrough) {
      throw new SpillError('SPILL_STORAGE_FAILED', `The key ${upload.key} was taken while the stream uploaded (CompleteMultipartUpload answered 412); nothing was stored.`, {
        cause: error.original,
      });
    }
    throw error;
  }
}

/**
 * Streams content into the store with one part buffer of (at most) `partBytes`. A stream that ends
 * before the first part fills is stored with one conditional PutObject; a longer one
 * becomes a multipart upload, completed with `If-None-Match: *`. Until completion nothing
 * is visible under the key; on any failure or abort the upload is aborted.
 */
export async function saveStream(ctx: SaveContext, input: Envelope, chunks: ContentChunks, signal: AbortSignal | undefined): Promise<SpillRef> {
  throwIfAborted(signal, 'The save');
  const reader = new ContentStream(chunks);
  const encoder = new Utf8ChunkEncoder();
  // The buffer starts small and doubles up to partBytes, so a short stream (the common
  // case) does not hold 8 MiB; once a part is full it is reused for every later part.
  let part = Buffer.allocUnsafe(Math.min(ctx.partBytes, FIRST_BUFFER_BYTES));
  let fill = 0;
  let total = 0;
  let upload: Upload | undefined;
  try {
    const take = async (data: Uint8Array): Promise<void> => {
      let at = 0;
      while (at < data.length) {
        const n = Math.min(part.length - fill, data.length - at);
        part.set(data.subarray(at, at + n), fill);
        fill += n;
        at += n;
        if (fill === part.length && part.length < ctx.partBytes) {
          const bigger = Buffer.allocUnsafe(Math.min(ctx.partBytes, part.length * 2));
          part.copy(bigger, 0, 0, fill);
          part = bigger;
        } else if (fill === part.length) {
          upload ??= await startUpload(ctx, input, signal);
          await uploadPart(ctx, upload, part, signal);
          fill = 0;
        }
      }
    };
    for (;;) {
      const chunk = await reader.next(signal);
      if (chunk === undefined) break;
      const data = encoder.encode(chunk);
      total += data.length;
      await take(data);
      throwIfAborted(signal, 'The save');
    }
    const rest = encoder.end();
    total += rest.length;
    await take(rest);
    if (upload === undefined) return await putOnce(ctx, input, part.subarray(0, fill), signal);
    // S3 wants every part but the last at least 5 MiB; a final empty part is not allowed.
    if (fill > 0) await uploadPart(ctx, upload, part.subarray(0, fill), signal);
    await completeUpload(ctx, upload, signal);
    return { locator: locatorOf(ctx.layout, upload.key), bytes: total, retrievalHint: S3_RETRIEVAL_HINT };
  } catch (error) {
    reader.stop();
    if (upload !== undefined) await abortUpload(ctx, upload);
    throw error;
  }
}
