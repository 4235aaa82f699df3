// Faults provoked through the shim between the client and a real s3rver: a key collision
// answered 412, 5xx bursts, stalls, cut connections, denied access, a missing bucket.
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { callId, isSpillError, sessionId } from '@spillway/core';
import type { SaveTextSpill, SpillRef } from '@spillway/core';
import { createSpillPolicy } from '@spillway/policy';
import type { SpillEvent } from '@spillway/policy';
import { describe, expect, it } from 'vitest';
import { createS3BackendWith } from './backend.js';
import { parseLocator, sessionPrefix } from './layout.js';
import { BUCKET, keysUnder, s3Endpoint, s3FixturesCleanedAfterEach, testClient } from './test-helpers.js';
import type { S3TestFixture } from './test-helpers.js';
import type { ShimRequest } from './test-shim.js';

const fixture = s3FixturesCleanedAfterEach();

function request(content: string, name = 'out.txt'): SaveTextSpill {
  return { owner: { sessionId: sessionId('s1') }, source: { toolName: 'web_fetch', callId: callId('c1') }, suggestedName: name, content };
}

async function readObject(f: S3TestFixture, ref: SpillRef): Promise<string> {
  const { key } = parseLocator({ bucket: BUCKET, prefix: f.prefix }, ref.locator);
  const answer = await f.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return (await answer.Body?.transformToString('utf8')) ?? '';
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

const isPut = (r: ShimRequest): boolean => r.method === 'PUT' && !r.query.has('uploadId') && r.key !== '';
const isPart = (r: ShimRequest): boolean => r.method === 'PUT' && r.query.has('uploadId');

/** Answers the first `count` requests that `match` selects with `status`/`code`. */
function burst(match: (r: ShimRequest) => boolean, count: number, status: number, code: string): (r: ShimRequest) => { kind: 'error'; status: number; code: string } | undefined {
  let left = count;
  return (r) => {
    if (!match(r) || left === 0) return undefined;
    left--;
    return { kind: 'error', status, code };
  };
}

function* chunksOf(total: number, size: number, fill = 'x'): Generator<string> {
  for (let sent = 0; sent < total; sent += size) yield fill.repeat(Math.min(size, total - sent));
}

describe('a key that is already taken', () => {
  it('answers 412 to the conditional PutObject; the save picks a new id and overwrites nothing', async () => {
    const ids = ['0000000000000000000a', '0000000000000000000b'];
    const f = await fixture({}, { randomId: () => ids.shift() ?? 'ffffffffffffffffffff' });
    // Someone else's object already sits at the first key the save will pick.
    const taken = `${sessionPrefix({ bucket: BUCKET, prefix: f.prefix }, sessionId('s1'))}0000000000000000000a-out.txt`;
    await f.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: taken, Body: 'original' }));

    const ref = await f.backend.saveText(request('new content'));

    expect(ref.locator.endsWith('/0000000000000000000b-out.txt')).toBe(true);
    expect(await readObject(f, ref)).toBe('new content');
    const original = await f.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: taken }));
    expect(await original.Body?.transformToString()).toBe('original');
    const puts = f.shim.log.filter(isPut);
    expect(puts.map((r) => r.headers['if-none-match'])).toEqual([undefined, '*', '*']);
  });

  it('refuses to complete a multipart upload over an existing key: SPILL_STORAGE_FAILED, the upload aborted, the object intact', async () => {
    const f = await fixture({ partBytes: 16 * 1024 }, { randomId: () => '0000000000000000000d' });
    const taken = `${sessionPrefix({ bucket: BUCKET, prefix: f.prefix }, sessionId('s1'))}0000000000000000000d-out.txt`;
    // Another writer already published at the key; the multipart upload only finds out at completion.
    await f.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: taken, Body: 'first writer' }));
    const error = await rejection(f.backend.saveTextStream({ ...request(''), content: chunksOf(60_000, 5000) }));
    expect(isSpillError(error, 'SPILL_STORAGE_FAILED')).toBe(true);
    expect(f.shim.log.filter(isPart).length).toBeGreaterThan(1);
    expect(f.shim.uploads.size).toBe(0);
    const kept = await f.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: taken }));
    expect(await kept.Body?.transformToString()).toBe('first writer');
  });

  it('gives up with SPILL_STORAGE_FAILED when every fresh key is taken, storing nothing new', async () => {
    const f = await fixture({}, { randomId: () => '0000000000000000000c' });
    await f.backend.saveText(request('first'));
    const error = await rejection(f.backend.saveText(request('second')));
    expect(isSpillError(error, 'SPILL_STORAGE_FAILED')).toBe(true);
    expect(await keysUnder(f.prefix)).toHaveLength(1);
  });
});

describe('throttling and server errors', () => {
  it('retries a burst of 503 SlowDown and 500 answers to PutObject, then stores the content once', async () => {
    const f = await fixture();
    let n = 0;
    f.shim.fault = (r) => (isPut(r) && n++ < 4 ? { kind: 'error', status: n % 2 === 0 ? 500 : 503, code: n % 2 === 0 ? 'InternalError' : 'SlowDown' } : undefined);
    const ref = await f.backend.saveText(request('after the storm'));
    expect(await readObject(f, ref)).toBe('after the storm');
    expect(f.shim.log.filter(isPut)).toHaveLength(5);
    expect(await keysUnder(f.prefix)).toHaveLength(1);
  });

  it('retries 503s on parts of a multipart stream and on listing', async () => {
    const f = await fixture({ partBytes: 64 * 1024 });
    f.shim.fault = burst(isPart, 3, 503, 'SlowDown');
    const ref = await f.backend.saveTextStream({ ...request(''), content: chunksOf(200_000, 7000) });
    expect(ref.bytes).toBe(200_000);
    expect(await readObject(f, ref)).toBe('x'.repeat(200_000));
    f.shim.fault = burst((r) => r.method === 'GET' && r.query.get('list-type') === '2', 2, 500, 'InternalError');
    const listed = [];
    for await (const entry of f.backend.catalog.list()) listed.push(entry);
    expect(listed.map((e) => e.locator)).toEqual([ref.locator]);
  });

  it('gives up after the configured attempts with SPILL_STORAGE_FAILED', async () => {
    const f = await fixture({ retry: { attempts: 3 } });
    f.shim.fault = (r) => (isPut(r) ? { kind: 'error', status: 503, code: 'SlowDown' } : undefined);
    const error = await rejection(f.backend.saveText(request('never')));
    expect(isSpillError(error, 'SPILL_STORAGE_FAILED')).toBe(true);
    expect(f.shim.log.filter(isPut)).toHaveLength(3);
    expect(await keysUnder(f.prefix)).toEqual([]);
  });
});

describe('stalls and aborts', () => {
  it('bounds a stalled PutObject by the AbortSignal: SPILL_ABORTED, nothing stored', async () => {
    const f = await fixture();
    f.shim.fault = (r) => (isPut(r) ? { kind: 'stall' } : undefined);
    const error = await rejection(f.backend.saveText(request('stalled'), { signal: AbortSignal.timeout(200) }));
    expect(isSpillError(error, 'SPILL_ABORTED')).toBe(true);
    f.shim.fault = undefined;
    expect(await keysUnder(f.prefix)).toEqual([]);
  });

  it('abandons and retries an attempt that outlives attemptTimeoutMs', async () => {
    // The first PUT stalls for ever; the budget is one that a healthy attempt meets even
    // on a loaded machine, so only the stall is abandoned.
    const f = await fixture({ retry: { attemptTimeoutMs: 3000 } });
    let stalls = 1;
    f.shim.fault = (r) => (isPut(r) && stalls-- > 0 ? { kind: 'stall' } : undefined);
    const ref = await f.backend.saveText(request('second try'));
    expect(await readObject(f, ref)).toBe('second try');
    expect(f.shim.log.filter(isPut).length).toBeGreaterThanOrEqual(2);
  });

  it('bounds a stalled ranged read by the AbortSignal', async () => {
    const f = await fixture();
    const ref = await f.backend.saveText(request('line\n'.repeat(100)));
    f.shim.fault = (r) => (r.method === 'GET' && r.headers.range !== undefined ? { kind: 'stall' } : undefined);
    const source = await f.backend.openByteSource(ref.locator);
    const error = await rejection(source.read(0, 10, { signal: AbortSignal.timeout(200) }));
    expect(isSpillError(error, 'SPILL_ABORTED')).toBe(true);
  });

  it('aborts the multipart upload when the signal fires mid-stream: no object, no upload left', async () => {
    const f = await fixture({ partBytes: 16 * 1024 });
    const controller = new AbortController();
    function* slow(): Generator<string> {
      for (let i = 0; i < 10; i++) yield 'y'.repeat(10_000);
      controller.abort(new Error('user cancelled'));
      yield 'never stored';
    }
    const error = await rejection(f.backend.saveTextStream({ ...request(''), content: slow() }, { signal: controller.signal }));
    expect(isSpillError(error, 'SPILL_ABORTED')).toBe(true);
    expect(f.shim.log.some((r) => r.method === 'DELETE' && r.query.has('uploadId'))).toBe(true);
    expect(f.shim.uploads.size).toBe(0);
    expect(await keysUnder(f.prefix)).toEqual([]);
  });

  it('aborts the upload when the content stream throws: SPILL_STREAM_FAILED', async () => {
    const f = await fixture({ partBytes: 16 * 1024 });
    function* broken(): Generator<string> {
      yield 'z'.repeat(40_000);
      throw new Error('producer died');
    }
    const error = await rejection(f.backend.saveTextStream({ ...request(''), content: broken() }));
    expect(isSpillError(error, 'SPILL_STREAM_FAILED')).toBe(true);
    expect(f.shim.uploads.size).toBe(0);
    expect(await keysUnder(f.prefix)).toEqual([]);
  });
});

describe('a connection cut during a multipart stream', () => {
  it('aborts the upload and leaves no object visible', async () => {
    const f = await fixture({ partBytes: 16 * 1024, retry: { attempts: 2 } });
    let parts = 0;
    // From the third part on, every UploadPart loses its connection.
    f.shim.fault = (r) => (isPart(r) && ++parts >= 3 ? { kind: 'cut' } : undefined);
    const error = await rejection(f.backend.saveTextStream({ ...request(''), content: chunksOf(100_000, 5000) }));
    expect(isSpillError(error, 'SPILL_STORAGE_FAILED')).toBe(true);
    expect(f.shim.log.filter(isPart).length).toBeGreaterThanOrEqual(3);
    expect(f.shim.log.some((r) => r.method === 'DELETE' && r.query.has('uploadId'))).toBe(true);
    expect(f.shim.uploads.size).toBe(0);
    expect(await keysUnder(f.prefix)).toEqual([]);
  });
});

describe('access denied', () => {
  it('rejects with SPILL_STORAGE_FAILED naming the bucket and the operation', async () => {
    const f = await fixture();
    f.shim.fault = () => ({ kind: 'error', status: 403, code: 'AccessDenied' });
    const error = await rejection(f.backend.saveText(request('secret')));
    expect(isSpillError(error, 'SPILL_STORAGE_FAILED')).toBe(true);
    expect((error as Error).message).toContain(BUCKET);
    expect((error as Error).message).toContain('PutObject');
    expect(f.shim.log.filter(isPut)).toHaveLength(1); // a denial is not retried
  });

  it('lets the policy keep the result inline and report the failure', async () => {
    const f = await fixture();
    f.shim.fault = () => ({ kind: 'error', status: 403, code: 'AccessDenied' });
    const events: SpillEvent[] = [];
    const policy = createSpillPolicy({ backend: f.backend, maxInlineBytes: 100, onEvent: (e) => events.push(e) });
    const text = 'a long line of output\n'.repeat(50);
    const shown = await policy.applyToResult({ toolName: 'bash', callId: 'c1', sessionId: 's1' }, { content: [{ type: 'text', text }] });
    expect(shown.content).toEqual([{ type: 'text', text }]);
    expect(shown.isError).toBeUndefined();
    const failure = events.find((e) => e.type === 'kept');
    expect(failure?.type === 'kept' && isSpillError(failure.error, 'SPILL_STORAGE_FAILED')).toBe(true);
  });
});

describe('a bucket that does not exist', () => {
  it('answers a clear SPILL_STORAGE_FAILED on the first save and on root()', async () => {
    const client = testClient(s3Endpoint());
    try {
      const backend = createS3BackendWith({ client, bucket: 'no-such-bucket-here', retry: { baseDelayMs: 1 } });
      const error = await rejection(backend.saveText(request('x')));
      expect(isSpillError(error, 'SPILL_STORAGE_FAILED')).toBe(true);
      expect((error as Error).message).toMatch(/bucket "no-such-bucket-here" does not exist/);
      const rootError = await rejection(backend.root());
      expect(isSpillError(rootError, 'SPILL_STORAGE_FAILED')).toBe(true);
    } finally {
      client.destroy();
    }
  });
});

describe('sweepTemp', () => {
  it('aborts uploads older than the age, with their part sizes, and leaves younger ones', async () => {
    let now = Date.now();
    const f = await fixture({ partBytes: 16 * 1024 }, { now: () => now });
    // A stream whose process "dies" after two parts: the generator never ends.
    const stuck = f.backend.saveTextStream({
      ...request(''),
      content: (async function* () {
        yield 'p'.repeat(40_000);
        await new Promise(() => undefined);
      })(),
    });
    void stuck.catch(() => undefined);
    await expect.poll(() => [...f.shim.uploads.values()].reduce((n, u) => n + u.parts.size, 0), { timeout: 30_000 }).toBe(2);
    expect((await f.backend.catalog.sweepTemp({ olderThanMs: 60_000 })).removed).toBe(0);
    now += 120_000;
    const swept = await f.backend.catalog.sweepTemp({ olderThanMs: 60_000 });
    expect(swept).toEqual({ removed: 1, bytes: 32 * 1024 });
    expect(f.shim.uploads.size).toBe(0);
    const error = await rejection(f.backend.catalog.sweepTemp({ olderThanMs: -1 }));
    expect(isSpillError(error, 'SPILL_INVALID_INPUT')).toBe(true);
  });

  it('answers 0 removed on a store that does not implement ListMultipartUploads (s3rver itself)', async () => {
    const client = testClient(s3Endpoint());
    try {
      const backend = createS3BackendWith({ client, bucket: BUCKET, prefix: 'no-uploads' });
      expect(await backend.catalog.sweepTemp({ olderThanMs: 0 })).toEqual({ removed: 0, bytes: 0 });
    } finally {
      client.destroy();
    }
  });
});
