// The search contract over the three backends that ship with a reader and a catalog: the
// memory backend, the local backend (its index on disk next to the root) and the S3
// backend against a real s3rver on 127.0.0.1.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLocalBackend } from '@spillway/local';
import { createMemoryBackend } from '@spillway/memory';
import { createS3Backend } from '@spillway/s3';
import S3rver from 's3rver';
import { afterAll, beforeAll } from 'vitest';
import { describeSearchOver } from './test-search-suite.js';

describeSearchOver('memory', () => Promise.resolve({ backend: createMemoryBackend() }));

describeSearchOver('local', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'spill-search-local-'));
  const root = path.join(dir, 'root');
  return { backend: createLocalBackend({ root, createRoot: true }), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

const BUCKET = 'spill-search';
let server: S3rver | undefined;
let s3dir = '';
let endpoint = '';
beforeAll(async () => {
  s3dir = await mkdtemp(path.join(tmpdir(), 'spill-search-s3-'));
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3dir, configureBuckets: [{ name: BUCKET }] });
  const { port } = (await server.run()) as { port: number };
  endpoint = `http://127.0.0.1:${String(port)}`;
});
afterAll(async () => {
  await server?.close();
  await rm(s3dir, { recursive: true, force: true });
});

let prefixes = 0;
describeSearchOver('s3 (s3rver)', () => {
  prefixes += 1;
  return Promise.resolve({
    backend: createS3Backend({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      bucket: BUCKET,
      prefix: `t${String(prefixes)}`,
    }) as never,
  });
});
