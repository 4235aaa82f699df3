// The search contract from @spillway/conformance over the three backends that ship with a
// reader and a catalog: the memory backend, the local backend (its index on disk next to
// the root) and the S3 backend against a real s3rver on 127.0.0.1; then what is this
// searcher's own (section lines, the tool answer's byte bound) over the same three.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sessionId, type SpillBackend } from '@spillway/core';
import type { SpillBackendFixture } from '@spillway/conformance';
import { describeSpillSearch } from '@spillway/conformance/search';
import { createLocalBackend } from '@spillway/local';
import { createMemoryBackend } from '@spillway/memory';
import { runSpillSearch } from '@spillway/tools';
import { createS3Backend } from '@spillway/s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackendSearch } from '@spillway/search';
import { saveText as save } from '@spillway/test-support/save-text';

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
const fixtures: [string, () => Promise<SpillBackendFixture>][] = [
  ['memory', () => Promise.resolve({ backend: createMemoryBackend() })],
  [
    'local',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'spill-search-local-'));
      return { backend: createLocalBackend({ root: path.join(dir, 'root'), createRoot: true }), cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  ],
  [
    's3 (s3rver)',
    () => {
      prefixes += 1;
      const backend = createS3Backend({
        endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
        bucket: BUCKET,
        prefix: `t${String(prefixes)}`,
      }) as unknown as SpillBackend;
      return Promise.resolve({ backend });
    },
  ],
];

for (const [name, create] of fixtures) {
  describeSpillSearch({ name, create, search: (backend) => createBackendSearch(backend), properties: { numRuns: 10 }, testTimeoutMs: 120_000 });

  describe(`@spillway/search over ${name}`, () => {
    const withSearch = async (body: (backend: SpillBackend, search: Awaited<ReturnType<typeof createBackendSearch>>) => Promise<void>): Promise<void> => {
      const fixture = await create();
      const search = await createBackendSearch(fixture.backend);
      try {
        await body(fixture.backend, search);
      } finally {
        await search.close();
        await fixture.cleanup?.();
      }
    };

    it('shows the nearest section line above a snippet', async () => {
      await withSearch(async (backend, search) => {
        const s = sessionId(`s-${name}-5`);
        const text = [
          'commit 0123456789abcdef0123456789abcdef01234567',
          'Author: someone',
          '',
          'diff --git a/src/widget.ts b/src/widget.ts',
          ...Array.from({ length: 80 }, (_, i) => `+  const filler${String(i)} = ${String(i)};`),
          '+  throw new RangeError("zebrafish overflow");',
          ...Array.from({ length: 10 }, (_, i) => `+  const tail${String(i)} = ${String(i)};`),
        ].join('\n');
        await save(backend, s, text);
        const { hits } = await search.search({ query: 'zebrafish', sessionId: s, maxBytes: 300 });
        expect(hits[0]?.text).toContain('zebrafish overflow');
        expect(hits[0]?.section).toEqual({ line: 4, text: 'diff --git a/src/widget.ts b/src/widget.ts' });
      });
    });

    it('keeps the tool answer within its byte bound, whatever maxResults asks', async () => {
      await withSearch(async (backend, search) => {
        const s = sessionId(`s-${name}-6`);
        for (let k = 0; k < 6; k += 1) {
          await save(backend, s, Array.from({ length: 400 }, (_, i) => `gecko ${String(k)}-${String(i + 1)} ${'x'.repeat((i + 1) % 90)}`).join('\n') + '\n');
        }
        for (const maxSearchBytes of [512, 1500, 4096]) {
          const answer = await runSpillSearch(search, { query: 'gecko', maxResults: 50 }, { sessionId: s, maxSearchBytes });
          expect(answer.isError).toBe(false);
          expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(maxSearchBytes);
          if (!answer.isError) expect(answer.data.hits.length).toBeGreaterThan(0);
        }
      });
    });
  });
}
