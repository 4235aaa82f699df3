import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReadResult } from '@spillway/core';
import { SCAN_BUFFER_BYTES, findLineStart, readFrom, readOptions } from './read-lines.js';
import type { PositionedRead } from './read-lines.js';

/** A positioned read over bytes in memory that returns at most `step` bytes per call. */
function memoryRead(bytes: Buffer, step = Number.MAX_SAFE_INTEGER): PositionedRead {
  return (buffer, offset, length, position) => {
    const n = Math.max(0, Math.min(length, step, bytes.length - position));
    bytes.copy(buffer, offset, position, position + n);
    return Promise.resolve(n);
  };
}

async function readText(text: string, options: { offset?: number; limit?: number; maxBytes?: number }, step?: number): Promise<ReadResult> {
  const bytes = Buffer.from(text, 'utf8');
  const opts = readOptions(options);
  const read = memoryRead(bytes, step);
  const start = await findLineStart(read, bytes.length, opts.offset);
  return readFrom(read, bytes.length, start, opts);
}

/** An independent model of the contract, on strings: lines keep their terminator. */
function model(text: string, offset: number, limit: number, maxBytes: number): ReadResult {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const totalBytes = Buffer.byteLength(text);
  const base = { startLine: offset, totalBytes };
  if (offset > lines.length || limit === 0) {
    const hasMore = offset <= lines.length;
    return { ...base, text: '', endLine: offset - 1, truncated: false, hasMore, ...(hasMore ? { nextOffset: offset } : {}) };
  }
  let out = '';
  let end = offset - 1;
  for (let i = offset; i < offset + limit && i <= lines.length; i++) {
    const line = lines[i - 1] ?? '';
    if (Buffer.byteLength(out + line) > maxBytes) break;
    out += line;
    end = i;
  }
  if (end >= offset) {
    const hasMore = end < lines.length;
    return { ...base, text: out, endLine: end, truncated: false, hasMore, ...(hasMore ? { nextOffset: end + 1 } : {}) };
  }
  let cut = '';
  for (const ch of lines[offset - 1] ?? '') {
    if (Buffer.byteLength(cut + ch) > maxBytes) break;
    cut += ch;
  }
  if (cut === '') return { ...base, text: '', endLine: offset - 1, truncated: true, hasMore: true };
  return { ...base, text: cut, endLine: offset, truncated: true, hasMore: true };
}

const wellFormedText = fc
  .array(fc.oneof(fc.constantFrom('\n', '\r\n', '\r', 'a', 'é', '中', '😀', ''), fc.string({ maxLength: 12 })), { maxLength: 60 })
  .map((parts) => parts.join(''));

describe('read semantics', () => {
  it('match an independent model for any text, offset, limit and maxBytes, even with 1-byte reads (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        wellFormedText,
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 120 }),
        fc.constantFrom(1, 3, Number.MAX_SAFE_INTEGER),
        async (text, offset, limit, maxBytes, step) => {
          expect(await readText(text, { offset, limit, maxBytes }, step)).toEqual(model(text, offset, limit, maxBytes));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('count lines the documented way: "a\\nb" and "a\\nb\\n" have 2, "" has none', async () => {
    expect(await readText('a\nb', { offset: 2 })).toMatchObject({ text: 'b', endLine: 2, hasMore: false });
    expect(await readText('a\nb\n', { offset: 3 })).toMatchObject({ text: '', endLine: 2, hasMore: false });
    expect(await readText('', {})).toEqual({ text: '', startLine: 1, endLine: 0, truncated: false, hasMore: false, totalBytes: 0 });
  });

  it('cut an over-long first line at a code-point boundary and offer no nextOffset', async () => {
    const r = await readText(`${'😀'.repeat(10)}\nnext\n`, { maxBytes: 6 });
    expect(r).toMatchObject({ text: '😀', endLine: 1, truncated: true, hasMore: true });
    expect(r.nextOffset).toBeUndefined();
  });

  it.each([
    ['a 4-byte first character and maxBytes 3', '😀rest\nnext\n', 3],
    ['a 3-byte first character and maxBytes 2', '中\n', 2],
    ['an empty first line and maxBytes 0', '\nnext\n', 0],
    ['any first line and maxBytes 0', 'abc', 0],
  ])('answer "nothing fits" as truncated with no nextOffset for %s', async (_name, text, maxBytes) => {
    const r = await readText(text, { offset: 1, limit: 5, maxBytes });
    expect(r).toEqual({ text: '', startLine: 1, endLine: 0, truncated: true, hasMore: true, totalBytes: Buffer.byteLength(text) });
    expect('nextOffset' in r).toBe(false);
  });

  it('answer "nothing fits" the same way at a later offset', async () => {
    const r = await readText('a\n😀b\nc\n', { offset: 2, maxBytes: 3 });
    expect(r).toEqual({ text: '', startLine: 2, endLine: 1, truncated: true, hasMore: true, totalBytes: 10 });
  });

  it('find a line beyond the first scan buffer, and across its boundary', async () => {
    const line = 'x'.repeat(99) + '\n';
    const count = Math.ceil((2.5 * SCAN_BUFFER_BYTES) / line.length);
    const text = line.repeat(count - 1) + 'last line';
    for (const offset of [1, 10_486, 10_487, count - 1, count]) {
      const r = await readText(text, { offset, limit: 2 });
      expect(r.startLine).toBe(offset);
      expect(r.text).toBe(offset === count ? 'last line' : offset === count - 1 ? `${line}last line` : line + line);
    }
  });

  it.each([
    [{ offset: 0 }],
    [{ offset: -1 }],
    [{ offset: 1.5 }],
    [{ offset: Number.NaN }],
    [{ limit: -1 }],
    [{ limit: 2.5 }],
    [{ maxBytes: -1 }],
    [{ maxBytes: Number.POSITIVE_INFINITY }],
  ])('reject %j with SPILL_INVALID_INPUT', (options) => {
    expect(() => readOptions(options)).toThrow(expect.objectContaining({ code: 'SPILL_INVALID_INPUT' }) as Error);
  });
});
