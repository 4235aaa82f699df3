import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { callId, isSpillError, sessionId } from '@spillway/core';
import type { SaveTextSpill } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { createS3Backend } from './backend.js';
import { parseLocator } from './layout.js';
import { BUCKET, s3FixturesCleanedAfterEach } from './test-helpers.js';

const fixture = s3FixturesCleanedAfterEach();

function request(content: string): SaveTextSpill {
  return { owner: { sessionId: sessionId('s1') }, source: { toolName: 'wéb_fetch', callId: callId('c1') }, suggestedName: 'page.html', content };
}

describe('saveText', () => {
  it('stores text/plain UTF-8 with the tool name and byte count as metadata, and passes encryption through', async () => {
    const f = await fixture({ encryption: { serverSideEncryption: 'aws:kms', kmsKeyId: 'alias/spill', bucketKeyEnabled: true } });
    const ref = await f.backend.saveText(request('héllo\n'));
    expect(ref.bytes).toBe(7);
    expect(ref.locator).toMatch(new RegExp(`^s3://${BUCKET}/${f.prefix}/session-[0-9a-f]{32}/[0-9a-f]{20}-page\\.html$`));
    const { key } = parseLocator({ bucket: BUCKET, prefix: f.prefix }, ref.locator);
    const head = await f.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head.ContentType).toBe('text/plain; charset=utf-8');
    expect(head.Metadata).toMatchObject({ 'spillway-tool': 'w%C3%A9b_fetch', 'spillway-bytes': '7' });
    const put = f.shim.log.find((r) => r.method === 'PUT');
    expect(put?.headers).toMatchObject({
      'x-amz-server-side-encryption': 'aws:kms',
      'x-amz-server-side-encryption-aws-kms-key-id': 'alias/spill',
      'x-amz-server-side-encryption-bucket-key-enabled': 'true',
      'if-none-match': '*',
    });
  });
});

describe('saveTextStream', () => {
  it('uploads many parts from one buffer and stores the exact concatenation, pairs split across chunks included', async () => {
    const f = await fixture({ partBytes: 4096 });
    const pieces: string[] = [];
    for (let i = 0; i < 3000; i++) pieces.push(`line ${String(i)} é😀\n`);
    const text = pieces.join('');
    // Cut every 7 UTF-16 units: surrogate pairs and multi-byte characters straddle chunks and parts.
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 7) chunks.push(text.slice(i, i + 7));
    const ref = await f.backend.saveTextStream({ ...request(''), content: chunks });
    expect(ref.bytes).toBe(Buffer.byteLength(text));
    const parts = f.shim.log.filter((r) => r.method === 'PUT' && r.query.has('partNumber'));
    expect(parts.length).toBe(Math.ceil(ref.bytes / 4096));
    const back = await f.backend.reader.read(ref.locator, { offset: 2999, limit: 2 });
    expect(back.text).toBe('line 2998 é😀\nline 2999 é😀\n');
    expect(f.shim.uploads.size).toBe(0);
  });

  it('grows its buffer to the part size, so every part but the last is exactly partBytes', async () => {
    const f = await fixture({ partBytes: 200_000 });
    const text = 'abcdefghij'.repeat(50_000);
    const ref = await f.backend.saveTextStream({ ...request(''), content: [text.slice(0, 123_457), text.slice(123_457)] });
    const sizes = f.shim.log.filter((r) => r.method === 'PUT' && r.query.has('partNumber')).map((r) => Number(r.headers['content-length']));
    expect(sizes).toEqual([200_000, 200_000, 100_000]);
    expect((await f.backend.reader.read(ref.locator, { maxBytes: 1_000_000 })).text).toBe(text);
  });

  it('stores a stream that fits one part with a single conditional PutObject', async () => {
    const f = await fixture();
    const ref = await f.backend.saveTextStream({ ...request(''), content: ['a', 'b', ''] });
    expect(ref.bytes).toBe(2);
    expect(f.shim.log.some((r) => r.query.has('uploads'))).toBe(false);
    expect(f.shim.log.filter((r) => r.method === 'PUT').map((r) => r.headers['if-none-match'])).toEqual(['*']);
  });
});

describe('reader over ranged GetObjects', () => {
  it('pages deep into a large artifact, and a second nearby read makes at most one ranged request', async () => {
    const f = await fixture({ readBytes: 256 * 1024 });
    const lines: string[] = [];
    for (let i = 1; i <= 200_000; i++) lines.push(`row ${String(i)}\n`);
    const ref = await f.backend.saveText(request(lines.join('')));
    const { key } = parseLocator({ bucket: BUCKET, prefix: f.prefix }, ref.locator);

    const first = await f.backend.reader.read(ref.locator, { offset: 150_000, limit: 3 });
    expect(first.text).toBe('row 150000\nrow 150001\nrow 150002\n');
    const before = f.shim.rangedGets(key).length;
    expect(before).toBeGreaterThan(1);

    const second = await f.backend.reader.read(ref.locator, { offset: 150_100, limit: 100 });
    expect(second.text.split('\n')[0]).toBe('row 150100');
    expect(f.shim.rangedGets(key).length - before).toBeLessThanOrEqual(1);
    for (const r of f.shim.rangedGets(key)) expect(r.headers['if-match']).toBeDefined();
  });

  it('answers SPILL_NOT_FOUND for a well-formed locator with no object, and greps', async () => {
    const f = await fixture();
    const ref = await f.backend.saveText(request('alpha\nbeta\ngamma\n'));
    expect((await f.backend.reader.grep(ref.locator, 'a$')).matches.map((m) => m.line)).toEqual([1, 2, 3]);
    expect(await f.backend.catalog.delete(ref.locator)).toBe(true);
    expect(await f.backend.catalog.delete(ref.locator)).toBe(false);
    await expect(f.backend.reader.read(ref.locator)).rejects.toSatisfy((e: unknown) => isSpillError(e, 'SPILL_NOT_FOUND'));
  });

  it('sends no request at all for a foreign locator', async () => {
    const f = await fixture();
    const error = await f.backend.reader.read(`s3://other-bucket/${f.prefix}/x` as never).catch((e: unknown) => e);
    expect(isSpillError(error, 'SPILL_INVALID_LOCATOR')).toBe(true);
    expect(f.shim.log).toEqual([]);
  });
});

describe('catalog listing', () => {
  it('requests the next page only when the consumer has taken the current one', async () => {
    const f = await fixture({}, { listPageSize: 2 });
    for (let i = 0; i < 5; i++) await f.backend.saveText(request(`artifact ${String(i)}`));
    const lists = (): number => f.shim.log.filter((r) => r.method === 'GET' && r.query.get('list-type') === '2').length;
    const iterator = f.backend.catalog.list()[Symbol.asyncIterator]();
    await iterator.next();
    expect(lists()).toBe(1);
    await iterator.next();
    expect(lists()).toBe(1);
    await iterator.next();
    expect(lists()).toBe(2);
    await iterator.return?.();
    const all = [];
    for await (const entry of f.backend.catalog.list({ sessionId: sessionId('s1') })) all.push(entry);
    expect(all).toHaveLength(5);
    expect(new Set(all.map((e) => e.session)).size).toBe(1);
    expect(all.every((e) => e.bytes === 10 && e.createdAt instanceof Date)).toBe(true);
    expect(await f.backend.catalog.list({ sessionId: sessionId('other') })[Symbol.asyncIterator]().next()).toMatchObject({ done: true });
  });

  it('retries a 503 on a ranged read and maps a denied read to SPILL_STORAGE_FAILED', async () => {
    const f = await fixture();
    const ref = await f.backend.saveText(request('one\ntwo\n'));
    let left = 2;
    f.shim.fault = (r) => (r.method === 'GET' && r.headers.range !== undefined && left-- > 0 ? { kind: 'error', status: 503, code: 'SlowDown' } : undefined);
    expect((await f.backend.reader.read(ref.locator, { offset: 2 })).text).toBe('two\n');
    f.shim.fault = () => ({ kind: 'error', status: 403, code: 'AccessDenied' });
    const error = await f.backend.reader.read(ref.locator).catch((e: unknown) => e);
    expect(isSpillError(error, 'SPILL_STORAGE_FAILED')).toBe(true);
    expect((error as Error).message).toContain('HeadObject');
  });
});

describe('createS3Backend options', () => {
  it('builds its own client from region, endpoint, forcePathStyle and credentials', async () => {
    const f = await fixture();
    const backend = createS3Backend({
      bucket: BUCKET,
      prefix: f.prefix,
      region: 'us-east-1',
      endpoint: f.shim.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    expect(await backend.root()).toBe(`s3://${BUCKET}/${f.prefix}`);
    const ref = await backend.saveText(request('built'));
    expect((await f.backend.reader.read(ref.locator)).text).toBe('built');
  });

  it.each([
    [{ bucket: BUCKET, bucketName: 'x' }],
    [{ bucket: BUCKET, partBytes: 1024 }],
    [{ bucket: BUCKET, readBytes: 0 }],
    [{ bucket: BUCKET, retry: { attempts: 0 } }],
    [{ bucket: BUCKET, retry: { tries: 3 } }],
    [{ bucket: BUCKET, encryption: 'AES256' }],
    [{ bucket: BUCKET, client: {} }],
    [{ bucket: 'UPPER' }],
  ])('refuses %j with a TypeError', (options) => {
    expect(() => createS3Backend(options as never)).toThrow(TypeError);
  });

  it('accepts a client it is given', () => {
    const client = new S3Client({ region: 'us-east-1' });
    expect(createS3Backend({ client, bucket: BUCKET }).name).toBe('s3');
    client.destroy();
  });
});
