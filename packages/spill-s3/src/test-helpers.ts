// Shared by the tests: a shim in front of the suite's s3rver, a client, a backend on a
// prefix no other test uses.
import { randomBytes } from 'node:crypto';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterEach, inject } from 'vitest';
import { createS3BackendWith } from './backend.js';
import type { S3Backend, S3BackendInternals, S3BackendOptions } from './backend.js';
import { S3Shim } from './test-shim.js';

/** The bucket the global setup creates. */
export const BUCKET = 'spillway-test';
/** s3rver's fixed credentials. */
export const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** The suite's s3rver endpoint (no shim). */
export function s3Endpoint(): string {
  return inject('s3Endpoint');
}

/** A client for `endpoint` that does not retry on its own. */
export function testClient(endpoint: string): S3Client {
  return new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS, maxAttempts: 1 });
}

/** A prefix no other test uses. */
export function freshPrefix(label = 't'): string {
  return `${label}/${randomBytes(6).toString('hex')}`;
}

/** A backend, its shim and its prefix. */
export interface S3TestFixture {
  readonly backend: S3Backend;
  readonly shim: S3Shim;
  readonly client: S3Client;
  readonly prefix: string;
  readonly cleanup: () => Promise<void>;
}

/** A backend on a fresh prefix, talking through a fresh shim, with quick retries. */
export async function s3Fixture(options: Partial<S3BackendOptions> = {}, internals: S3BackendInternals = {}): Promise<S3TestFixture> {
  const shim = await S3Shim.start(s3Endpoint());
  const client = testClient(shim.endpoint);
  const prefix = options.prefix ?? freshPrefix();
  const backend = createS3BackendWith(
    { client, bucket: BUCKET, retry: { baseDelayMs: 5, maxDelayMs: 50, ...options.retry }, ...options, prefix },
    { minPartBytes: 1024, ...internals },
  );
  return {
    backend,
    shim,
    client,
    prefix,
    cleanup: async () => {
      client.destroy();
      await shim.close();
    },
  };
}

/**
 * {@link s3Fixture}, each fixture cleaned up after the test that made it. Call it once at
 * the top level of a test file: it registers that file's `afterEach`.
 */
export function s3FixturesCleanedAfterEach(): (...args: Parameters<typeof s3Fixture>) => Promise<S3TestFixture> {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  return async (...args) => {
    const f = await s3Fixture(...args);
    cleanups.push(f.cleanup);
    return f;
  };
}

/** Every key under `prefix` (directly from s3rver), sorted. */
export async function keysUnder(prefix: string): Promise<string[]> {
  const client = testClient(s3Endpoint());
  try {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${prefix}/`, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key !== undefined) keys.push(o.Key);
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return keys.sort();
  } finally {
    client.destroy();
  }
}
