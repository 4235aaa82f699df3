import { DEFAULT_READ_LIMIT, isSpillError, utf8ByteLength } from '@spillway/core';
import type { ReadResult } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryBackend } from './index.js';
import { LINE_INDEX_STRIDE } from './line-index.js';
import { rejection, request, wellFormed } from './test-helpers.js';

/** Lines as the core TSDoc defines them, each with its terminator. */
function splitLines(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  return lines.filter((l) => l !== '');
}

async function saved(content: string) {
  const backend = createMemoryBackend();
  const ref = await backend.saveText(request(content));
  return { backend, ref, read: (options?: Parameters<typeof backend.reader.read>[1]) => backend.reader.read(ref.locator, options) };
}

describe('read: the line model', () => {
  it('counts a final unterminated line, and a trailing newline starts no new line', async () => {
    const open = await saved('a\nb');
    expect(await open.read({ offset: 2 })).toEqual({ text: 'b', startLine: 2, endLine: 2, truncated: false, hasMore: false, totalBytes: 3 });
    const closed = await saved('a\nb\n');
    expect(await closed.read({ offset: 2 })).toEqual({ text: 'b\n', startLine: 2, endLine: 2, truncated: false, hasMore: false, totalBytes: 4 });
    expect(await closed.read({ offset: 3 })).toEqual({ text: '', startLine: 3, endLine: 2, truncated: false, hasMore: false, totalBytes: 4 });
  });

  it('has no lines in an empty artifact', async () => {
    const { read } = await saved('');
    expect(await read()).toEqual({ text: '', startLine: 1, endLine: 0, truncated: false, hasMore: false, totalBytes: 0 });
  });

  it('keeps CR inside a line and treats a lone newline as an empty line', async () => {
    const { read } = await saved('a\r\n\n\rb\n');
    expect((await read({ offset: 1, limit: 1 })).text).toBe('a\r\n');
    expect((await read({ offset: 2, limit: 1 })).text).toBe('\n');
    expect((await read({ offset: 3, limit: 1 })).text).toBe('\rb\n');
  });

  it('answers limit 0 with no text and the same offset to continue', async () => {
    const { read } = await saved('a\nb\nc\n');
    expect(await read({ offset: 2, limit: 0 })).toEqual({
      text: '',
      startLine: 2,
      endLine: 1,
      truncated: false,
      hasMore: true,
      nextOffset: 2,
      totalBytes: 6,
    });
  });

  it('returns DEFAULT_READ_LIMIT lines by default', async () => {
    const content = 'x\n'.repeat(DEFAULT_READ_LIMIT + 5);
    const result = await (await saved(content)).read();
    expect(result.endLine).toBe(DEFAULT_READ_LIMIT);
    expect(result.nextOffset).toBe(DEFAULT_READ_LIMIT + 1);
  });
});

describe('read: the byte cap', () => {
  it('stops at a line end when at least one whole line fits', async () => {
    const { read } = await saved('aaaa\nbbbb\ncccc\n');
    expect(await read({ maxBytes: 12 })).toEqual({
      text: 'aaaa\nbbbb\n',
      startLine: 1,
      endLine: 2,
      truncated: false,
      hasMore: true,
      nextOffset: 3,
      totalBytes: 15,
    });
  });

  it('cuts a single over-long line at a code point boundary, without nextOffset', async () => {
    const { read } = await saved('ab😀cd\nnext\n'); // 😀 spans bytes 2..5
    for (const maxBytes of [3, 4, 5]) {
      expect(await read({ maxBytes })).toEqual({ text: 'ab', startLine: 1, endLine: 1, truncated: true, hasMore: true, totalBytes: 14 });
    }
    expect((await read({ maxBytes: 6 })).text).toBe('ab😀');
  });

  it('answers empty, truncated text with no nextOffset when not even one code point fits', async () => {
    const { read } = await saved('€uro\n');
    for (const maxBytes of [0, 1, 2]) {
      expect(await read({ maxBytes })).toEqual({
        text: '',
        startLine: 1,
        endLine: 0,
        truncated: true,
        hasMore: true,
        totalBytes: 7,
      });
    }
  });

  it('never offers a nextOffset that repeats the offset just read (the reported repro)', async () => {
    const { read } = await saved('€abc\nx');
    const result = await read({ offset: 1, maxBytes: 2 });
    expect(result).toEqual({ text: '', startLine: 1, endLine: 0, truncated: true, hasMore: true, totalBytes: 8 });
    expect('nextOffset' in result).toBe(false);
  });

  it('answers nothing-fits for an empty line when maxBytes is 0, but a whole line at 1', async () => {
    const { read } = await saved('a\n\nb\n');
    expect(await read({ offset: 2, maxBytes: 0 })).toEqual({ text: '', startLine: 2, endLine: 1, truncated: true, hasMore: true, totalBytes: 5 });
    expect(await read({ offset: 2, maxBytes: 1 })).toEqual({ text: '\n', startLine: 2, endLine: 2, truncated: false, hasMore: true, nextOffset: 3, totalBytes: 5 });
  });

  it('shows an unterminated final line only when it fits whole', async () => {
    const { read } = await saved('ab\ncdef');
    expect(await read({ maxBytes: 7 })).toMatchObject({ text: 'ab\ncdef', endLine: 2, hasMore: false });
    expect(await read({ maxBytes: 6 })).toMatchObject({ text: 'ab\n', endLine: 1, hasMore: true, nextOffset: 2 });
  });

  it('cuts a huge single line to the cap and reads the line after it whole', async () => {
    const { read } = await saved(`${'x'.repeat(5_000_000)}\nafter\n`);
    expect(await read({ maxBytes: 100 })).toMatchObject({ text: 'x'.repeat(100), endLine: 1, truncated: true, hasMore: true });
    expect(await read({ offset: 2 })).toMatchObject({ text: 'after\n', endLine: 2, hasMore: false });
  });
});

describe('read: options', () => {
  const bad: readonly [string, object][] = [
    ['offset 0', { offset: 0 }],
    ['a negative offset', { offset: -1 }],
    ['a fractional offset', { offset: 1.5 }],
    ['a NaN offset', { offset: Number.NaN }],
    ['a string offset', { offset: '2' }],
    ['a negative limit', { limit: -1 }],
    ['an infinite limit', { limit: Infinity }],
    ['a negative maxBytes', { maxBytes: -1 }],
    ['a fractional maxBytes', { maxBytes: 0.5 }],
    ['a non-signal signal', { signal: 'stop' }],
  ];
  for (const [label, options] of bad) {
    it(`rejects ${label} with SPILL_INVALID_INPUT`, async () => {
      const { read } = await saved('a\n');
      expect(isSpillError(await rejection(read(options as never)), 'SPILL_INVALID_INPUT')).toBe(true);
    });
  }

  it('rejects an options value that is not an object', async () => {
    const { read } = await saved('a\n');
    expect(isSpillError(await rejection(read(5 as never)), 'SPILL_INVALID_INPUT')).toBe(true);
  });

  it('rejects with SPILL_ABORTED when the signal has fired', async () => {
    const { read } = await saved('a\n');
    expect(isSpillError(await rejection(read({ signal: AbortSignal.abort() })), 'SPILL_ABORTED')).toBe(true);
  });
});

describe('read: paging and the line index', () => {
  it('agrees with a naive split at every offset of a many-line artifact, in any order', async () => {
    const lines = Array.from({ length: LINE_INDEX_STRIDE * 3 + 17 }, (_, i) => `line ${i + 1} ${'é'.repeat(i % 7)}\n`);
    const content = lines.join('');
    const { read } = await saved(content);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: lines.length + 3 }), fc.integer({ min: 0, max: 40 }), async (offset, limit) => {
        const result = await read({ offset, limit, maxBytes: 1 << 20 });
        expect(result.text).toBe(lines.slice(offset - 1, offset - 1 + limit).join(''));
      }),
      { numRuns: 300 },
    );
  });

  it('only ever offers a nextOffset past the line it started at, for any maxBytes (limit >= 1)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\n', '\r'), maxLength: 60 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 10 }),
        async (content, offset, limit, maxBytes) => {
          const { read } = await saved(content);
          const page = await read({ offset, limit, maxBytes });
          if (page.nextOffset !== undefined) expect(page.nextOffset).toBeGreaterThan(page.startLine);
          if (page.text === '' && page.hasMore) {
            expect(page).toMatchObject({ truncated: true, endLine: offset - 1 });
            expect('nextOffset' in page).toBe(false);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('pages through nextOffset and reproduces the content exactly', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom('a', 'é', '😀', '\n', '\r', '\uD800', '\uDFFF', '\uFEFF'), maxLength: 300 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 4, max: 64 }),
        async (content, limit, maxBytes) => {
          const { read } = await saved(content);
          let text = '';
          let offset = 1;
          for (let guard = 0; guard < 10_000; guard++) {
            const page: ReadResult = await read({ offset, limit, maxBytes });
            expect(utf8ByteLength(page.text)).toBeLessThanOrEqual(maxBytes);
            if (page.truncated) {
              // A line longer than maxBytes: fetch it whole with a larger cap, then go on.
              const whole = await read({ offset, limit: 1, maxBytes: 4096 });
              text += whole.text;
              offset += 1;
              if (!whole.hasMore) break;
              continue;
            }
            text += page.text;
            if (!page.hasMore) break;
            expect(page.nextOffset).toBe(page.endLine + 1);
            offset = page.nextOffset ?? Number.NaN;
          }
          expect(text).toBe(wellFormed(content));
          expect(splitLines(text).length).toBe(splitLines(wellFormed(content)).length);
        },
      ),
      { numRuns: 200 },
    );
  });
});
