import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { configInteger } from '@spillway/backend-utils';
import { assertSaveTextRequest, assertSaveTextStreamRequest, throwIfAborted } from '@spillway/core';
import type { ListOptions, SaveBytesStreamSpill, SaveTextSpill, SaveTextStreamSpill, SpillBackend, SpillCallOptions, SpillCatalog, SpillEntry, SpillLocator, SpillReader, SpillRef } from '@spillway/core';
import { DEFAULT_READ_BYTES, openByteSource } from './byte-source.js';
import type { ReadContext } from './byte-source.js';
import { createSpillReader } from '@spillway/retrieval';
import type { SpillByteSource } from '@spillway/retrieval';
import { deleteEntry, listEntries, sweepUploads } from './catalog.js';
import type { CatalogContext } from './catalog.js';
import { freshId, makeLayout } from './layout.js';
import type { Layout } from './layout.js';
import { DEFAULT_RETRY, request } from './request.js';
import type { RetrySettings } from './request.js';
import { putOnce, saveStream } from './save.js';
import { saveBytes } from './save-bytes.js';
import type { S3Encryption, SaveContext } from './save.js';

/** Default {@link S3BackendOptions.partBytes}: 8 MiB. */
export const DEFAULT_PART_BYTES = 8 * 1024 * 1024;
/** The smallest part S3 accepts for every part but the last. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
/** The largest part S3 accepts. */
export const MAX_PART_BYTES = 5 * 1024 * 1024 * 1024;

/** Options for {@link createS3Backend}. */
export interface S3BackendOptions {
  /**
   * The client to send requests with. Its own retry settings stay in force (spillway
   * retries on top of them; set `maxAttempts: 1` on it to leave retrying to spillway).
   * Omitted: a client is built from `region`, `endpoint`, `forcePathStyle` and
   * `credentials`, each falling back to the AWS SDK's standard chain (environment,
   * shared config files, instance roles; `AWS_ENDPOINT_URL_S3` for the endpoint).
   */
  readonly client?: S3Client;
  /** Region of the built client. Ignored with `client`. */
  readonly region?: string;
  /** Endpoint of the built client, such as `http://127.0.0.1:9000` for MinIO. Ignored with `client`. */
  readonly endpoint?: string;
  /** Path-style addressing (`endpoint/bucket/key`), which most self-hosted stores need. Ignored with `client`. */
  readonly forcePathStyle?: boolean;
  /** Credentials of the built client. Ignored with `client`. */
  readonly credentials?: S3ClientConfig['credentials'];
  /** The bucket. It must exist; the backend never creates it. */
  readonly bucket: string;
  /** Key prefix for every artifact, such as `spill/tenant-a` (no leading `/`). Default: the bucket's top level. */
  readonly prefix?: string;
  /** Server-side encryption for every artifact. Default: the bucket's default encryption. */
  readonly encryption?: S3Encryption;
  /** Size of the one part buffer a stream fills before each UploadPart. Default 8 MiB; 5 MiB to 5 GiB. */
  readonly partBytes?: number;
  /** Size of one ranged GetObject when reading. Default 8 MiB; at least 64 KiB. */
  readonly readBytes?: number;
  /** How requests are retried. Defaults: {@link DEFAULT_RETRY}. */
  readonly retry?: Partial<RetrySettings>;
}

/**
 * The catalog of an {@link S3Backend}: list, delete, and `sweepTemp`, which aborts this
 * prefix's multipart uploads started more than `olderThanMs` ago (streams whose process
 * died before completing or aborting them). Pick an age longer than your longest stream.
 */
export type S3Catalog = SpillCatalog & Required<Pick<SpillCatalog, 'sweepTemp'>>;

/** A backend on an S3-compatible object store. */
export interface S3Backend extends SpillBackend {
  readonly name: 's3';
  /** Reads artifacts back by line range, searches them and streams their bytes, over ranged GetObjects. */
  readonly reader: SpillReader & Required<Pick<SpillReader, 'readBytes'>>;
  /** Lists and deletes artifacts and aborts stale multipart uploads. */
  readonly catalog: S3Catalog;
  /**
   * Stores raw bytes exactly (see {@link SpillBackend.saveBytesStream}), as one PutObject
   * or a multipart upload with one part buffer, never the whole stream in memory.
   */
  saveBytesStream(input: SaveBytesStreamSpill, options?: SpillCallOptions): Promise<SpillRef>;
  /** The bucket in use. */
  readonly bucket: string;
  /** The key prefix in use (`''` for the bucket's top level). */
  readonly prefix: string;
  /**
   * Checks that the bucket is reachable (one HeadBucket, remembered once it succeeds) and
   * resolves with `s3://<bucket>/<prefix>`. A missing bucket or denied access rejects with
   * `SPILL_STORAGE_FAILED` naming the bucket.
   */
  root(options?: SpillCallOptions): Promise<string>;
  /**
   * Opens an artifact as a random-access byte source (one HeadObject; then one ranged
   * GetObject per `read`). This is what the reader is built on.
   */
  openByteSource(locator: SpillLocator, options?: SpillCallOptions): Promise<SpillByteSource>;
}

/** Test seams, not part of the public API. */
export interface S3BackendInternals {
  /** Lowers the 5 MiB part floor, so tests can stream many parts cheaply. */
  readonly minPartBytes?: number;
  /** A fake clock for sweepTemp. */
  readonly now?: () => number;
  /** Chooses the random id of each new key (to provoke a key collision). */
  readonly randomId?: () => string;
  /** Keys per listing page, to test paging without thousands of objects. */
  readonly listPageSize?: number;
}

const KNOWN_OPTIONS: readonly string[] = [
  'client',
  'region',
  'endpoint',
  'forcePathStyle',
  'credentials',
  'bucket',
  'prefix',
  'encryption',
  'partBytes',
  'readBytes',
  'retry',
] satisfies readonly (keyof S3BackendOptions)[];

function wholeNumber(what: string, value: unknown, fallback: number, min: number, max?: number): number {
  return configInteger('createS3Backend', what, value, { min, fallback, ...(max === undefined ? {} : { max }) });
}

function retrySettings(value: unknown): RetrySettings {
  if (value === undefined) return DEFAULT_RETRY;
  if (typeof value !== 'object' || value === null) throw new TypeError('createS3Backend: retry must be an object.');
  const r = value as Record<string, unknown>;
  for (const key of Object.keys(r)) {
    if (!(key in DEFAULT_RETRY)) throw new TypeError(`createS3Backend: unknown retry option ${JSON.stringify(key)}; the known ones are ${Object.keys(DEFAULT_RETRY).join(', ')}.`);
  }
  return {
    attempts: wholeNumber('retry.attempts', r.attempts, DEFAULT_RETRY.attempts, 1, 100),
    baseDelayMs: wholeNumber('retry.baseDelayMs', r.baseDelayMs, DEFAULT_RETRY.baseDelayMs, 0),
    maxDelayMs: wholeNumber('retry.maxDelayMs', r.maxDelayMs, DEFAULT_RETRY.maxDelayMs, 0),
    attemptTimeoutMs: wholeNumber('retry.attemptTimeoutMs', r.attemptTimeoutMs, DEFAULT_RETRY.attemptTimeoutMs, 1),
  };
}

function checkEncryption(value: unknown): S3Encryption | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) {
    throw new TypeError("createS3Backend: encryption must be { serverSideEncryption: 'AES256' | 'aws:kms' | 'aws:kms:dsse', kmsKeyId?, bucketKeyEnabled? }.");
  }
  const e = value as Partial<Record<keyof S3Encryption, unknown>>;
  if (typeof e.serverSideEncryption !== 'string') {
    throw new TypeError("createS3Backend: encryption must be { serverSideEncryption: 'AES256' | 'aws:kms' | 'aws:kms:dsse', kmsKeyId?, bucketKeyEnabled? }.");
  }
  if (e.kmsKeyId !== undefined && typeof e.kmsKeyId !== 'string') throw new TypeError('createS3Backend: encryption.kmsKeyId must be a string.');
  if (e.bucketKeyEnabled !== undefined && typeof e.bucketKeyEnabled !== 'boolean') throw new TypeError('createS3Backend: encryption.bucketKeyEnabled must be a boolean.');
  return value as S3Encryption;
}

function buildClient(o: S3BackendOptions): S3Client {
  if (o.client !== undefined) {
    if (!(o.client instanceof S3Client) && typeof (o.client as { send?: unknown }).send !== 'function') {
      throw new TypeError('createS3Backend: client must be an S3Client from @aws-sdk/client-s3.');
    }
    return o.client;
  }
  if (o.region !== undefined && typeof o.region !== 'string') throw new TypeError('createS3Backend: region must be a string.');
  if (o.endpoint !== undefined && typeof o.endpoint !== 'string') throw new TypeError('createS3Backend: endpoint must be a URL string.');
  if (o.forcePathStyle !== undefined && typeof o.forcePathStyle !== 'boolean') throw new TypeError('createS3Backend: forcePathStyle must be a boolean.');
  return new S3Client({
    ...(o.region === undefined ? {} : { region: o.region }),
    ...(o.endpoint === undefined ? {} : { endpoint: o.endpoint }),
    ...(o.forcePathStyle === undefined ? {} : { forcePathStyle: o.forcePathStyle }),
    ...(o.credentials === undefined ? {} : { credentials: o.credentials }),
    // spillway retries (with the caller's signal and a per-attempt timeout); one layer is enough.
    maxAttempts: 1,
  });
}

/** Builds an S3 backend with test seams. Internal: the package exports {@link createS3Backend} only. */
export function createS3BackendWith(options: S3BackendOptions, internals: S3BackendInternals = {}): S3Backend {
  if (typeof (options as unknown) !== 'object' || (options as unknown) === null) throw new TypeError('createS3Backend needs an options object with at least bucket.');
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.includes(key)) {
      throw new TypeError(`createS3Backend: unknown option ${JSON.stringify(key)}; the known options are ${KNOWN_OPTIONS.join(', ')}.`);
    }
  }
  const layout: Layout = makeLayout(options.bucket, options.prefix);
  const client = buildClient(options);
  const retry = retrySettings(options.retry);
  const partBytes = wholeNumber('partBytes', options.partBytes, DEFAULT_PART_BYTES, internals.minPartBytes ?? MIN_PART_BYTES, MAX_PART_BYTES);
  const readBytes = wholeNumber('readBytes', options.readBytes, DEFAULT_READ_BYTES, internals.minPartBytes === undefined ? 64 * 1024 : 1, 1024 * 1024 * 1024);
  const encryption = checkEncryption(options.encryption);
  const base = { client, layout, bucket: layout.bucket, retry };
  const saveCtx: SaveContext = { ...base, partBytes, encryption, randomId: internals.randomId ?? freshId };
  const catalogCtx: CatalogContext = { ...base, now: internals.now ?? Date.now, pageSize: internals.listPageSize ?? 1000 };
  const readCtx: ReadContext = { ...base, readBytes };
  let checked: Promise<void> | undefined;

  const open = (locator: SpillLocator, signal: AbortSignal | undefined): Promise<SpillByteSource> => openByteSource(readCtx, locator, signal);

  const catalog: S3Catalog = {
    list: (listOptions?: ListOptions): AsyncIterable<SpillEntry> => listEntries(catalogCtx, listOptions),
    delete: (locator: SpillLocator, callOptions?: SpillCallOptions): Promise<boolean> => deleteEntry(catalogCtx, locator, callOptions),
    sweepTemp: (sweepOptions) => sweepUploads(catalogCtx, sweepOptions),
  };

  return {
    specificationVersion: 'v1',
    name: 's3',
    bucket: layout.bucket,
    prefix: layout.prefix,
    reader: createSpillReader({ open: (locator, { signal }) => open(locator, signal) }),
    catalog,
    async root(callOptions?: SpillCallOptions): Promise<string> {
      throwIfAborted(callOptions?.signal, 'Checking the bucket');
      checked ??= request(base, 'HeadBucket', callOptions?.signal, (abortSignal) => client.send(new HeadBucketCommand({ Bucket: layout.bucket }), { abortSignal })).then(
        () => undefined,
        (error: unknown) => {
          checked = undefined;
          throw error;
        },
      );
      await checked;
      return `s3://${layout.bucket}/${layout.prefix}`;
    },
    openByteSource: (locator: SpillLocator, callOptions?: SpillCallOptions): Promise<SpillByteSource> => open(locator, callOptions?.signal),
    async saveText(input: SaveTextSpill, callOptions?: SpillCallOptions): Promise<SpillRef> {
      assertSaveTextRequest(input);
      throwIfAborted(callOptions?.signal, 'The save');
      return putOnce(saveCtx, input, Buffer.from(input.content, 'utf8'), callOptions?.signal);
    },
    async saveTextStream(input: SaveTextStreamSpill, callOptions?: SpillCallOptions): Promise<SpillRef> {
      assertSaveTextStreamRequest(input);
      return saveStream(saveCtx, input, input.content, callOptions?.signal);
    },
    saveBytesStream: (input: SaveBytesStreamSpill, callOptions?: SpillCallOptions): Promise<SpillRef> => saveBytes(saveCtx, input, callOptions?.signal),
  };
}

/**
 * Creates a backend on an S3-compatible object store (AWS S3, MinIO, Cloudflare R2, Ceph
 * RGW…). Artifacts land at `<prefix>/session-<h>/<random>-<name>.txt`; the locator is
 * `s3://<bucket>/<key>`. Saves never overwrite (`If-None-Match: *`), streams go up as
 * multipart uploads in bounded memory and are aborted on failure, reads are ranged.
 *
 * @throws TypeError when the options are malformed (no bucket, an unknown key, a part size
 * outside 5 MiB to 5 GiB…).
 */
export function createS3Backend(options: S3BackendOptions): S3Backend {
  return createS3BackendWith(options);
}
