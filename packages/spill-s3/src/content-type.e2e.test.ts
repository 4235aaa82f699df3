// The Content-Type of stored bytes, against the suite's s3rver: UTF-8 text is text/plain,
// bytes that are not (invalid UTF-8, NUL bytes) are application/octet-stream, for one
// PutObject and for a multipart upload, whose first part decides.
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { callId, sessionId } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLocator } from './layout.js';
import { BINARY_CONTENT_TYPE, CONTENT_TYPE } from './save.js';
import { contentTypeOf } from './save-bytes.js';
import { BUCKET, s3FixturesCleanedAfterEach } from './test-helpers.js';

const fixture = s3FixturesCleanedAfterEach();

async function storedType(chunks: readonly Uint8Array[], partBytes?: number): Promise<{ type: string | undefined; bytes: number }> {
  const f = await fixture(partBytes === undefined ? {} : { partBytes });
  const ref = await f.backend.saveBytesStream({
    owner: { sessionId: sessionId('s1') },
    source: { toolName: 'run', callId: callId('c1') },
    suggestedName: 'out.bin',
    content: chunks,
  });
  const { key } = parseLocator({ bucket: BUCKET, prefix: f.prefix }, ref.locator);
  const head = await f.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
  return { type: head.ContentType, bytes: head.ContentLength ?? -1 };
}

describe('saveBytesStream Content-Type', () => {
  it('stores UTF-8 text as text/plain and bytes that are not as application/octet-stream (one PutObject)', async () => {
    expect(await storedType([Buffer.from('héllo ✓\n')])).toEqual({ type: CONTENT_TYPE, bytes: 11 });
    expect(await storedType([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0xff, 0xfe, 0x00])])).toEqual({ type: BINARY_CONTENT_TYPE, bytes: 7 });
    expect((await storedType([Buffer.from('text then a NUL\u0000 byte')])).type).toBe(BINARY_CONTENT_TYPE);
  });

  it('decides a multipart upload by its first part, and a character cut by the part boundary is still text', async () => {
    const text = Buffer.from(`${'a'.repeat(1023)}€${'b'.repeat(3000)}`); // € straddles the first 1024-byte part's end
    expect(await storedType([text], 1024)).toEqual({ type: CONTENT_TYPE, bytes: text.length });
    const binary = Buffer.concat([Buffer.from([0xc3, 0x28]), Buffer.alloc(4000, 0x41)]);
    expect(await storedType([binary], 1024)).toEqual({ type: BINARY_CONTENT_TYPE, bytes: binary.length });
  });

  it('any prefix of UTF-8 text without NUL is text when judged as a first part; invalid bytes inside never are', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.nat(), (s, at) => {
        const bytes = Buffer.from(s.replaceAll('\u0000', ''));
        const cut = bytes.subarray(0, bytes.length === 0 ? 0 : at % (bytes.length + 1));
        expect(contentTypeOf(cut, false)).toBe(CONTENT_TYPE);
        expect(contentTypeOf(Buffer.concat([Buffer.from([0xff]), cut]), false)).toBe(BINARY_CONTENT_TYPE);
      }),
    );
  });
});
