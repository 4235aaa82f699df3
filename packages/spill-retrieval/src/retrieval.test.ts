import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SpillError, isSpillError, spillLocator } from '@spillway/core';
import type { ReadResult } from '@spillway/core';
import { RE2JS } from 're2js';
import { requiredLiteral, toNative } from './dialect.js';
import { MAX_LINE_SPAN } from './grep-lines.js';
import { createSpillReader } from './index.js';
import type { CreateSpillReaderOptions, SpillByteSource } from './index.js';

const encoder = new TextEncoder();
const L = spillLocator('mem://a');

interface Counting {
  bytesRead: number;
  closes: number;
}

/** A reader over named texts whose sources answer short reads of at most `chunk` bytes. */
function readerOver(
  texts: Record<string, string>,
  options: Partial<CreateSpillReaderOptions> = {},
  chunk = Number.POSITIVE_INFINITY,
  readInto = false,
): { reader: ReturnType<typeof createSpillReader>; count: Counting } {
  const count: Counting = { bytesRead: 0, closes: 0 };
  const reader = createSpillReader({
    ...options,
    open(locator): Promise<SpillByteSource> {
      const text = texts[locator];
      if (text === undefined) return Promise.reject(new SpillError('SPILL_NOT_FOUND', 'none'));
      const bytes = encoder.encode(text);
      return Promise.resolve({
        size: bytes.length,
        cacheKey: locator,
        preferredReadBytes: 4096,
        read(position, length) {
          const n = Math.min(length, chunk);
          const piece = bytes.slice(position, position + n);
          count.bytesRead += piece.length;
          return Promise.resolve(piece);
        },
        close() {
          count.closes++;
          return Promise.resolve();
        },
        ...(readInto
          ? {
              readInto(buffer: Uint8Array, offset: number, length: number, position: number) {
                const piece = bytes.subarray(position, position + Math.min(length, chunk));
                buffer.set(piece, offset);
                count.bytesRead += piece.length;
                return Promise.resolve(piece.length);
              },
            }
          : {}),
      });
    },
  });
  return { reader, count };
}

/** Independent model of read: whole lines while they fit, as core documents. */
function modelRead(text: string, offset: number, limit: number, maxBytes: number): Pick<ReadResult, 'text' | 'endLine' | 'nextOffset' | 'hasMore'> | 'partial' {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const out: string[] = [];
  let used = 0;
  for (let i = offset - 1; i < lines.length && out.length < limit; i++) {
    const b = encoder.encode(lines[i]).length;
    if (used + b > maxBytes) break;
    used += b;
    out.push(lines[i] ?? '');
  }
  if (out.length === 0 && offset <= lines.length && limit > 0) return 'partial';
  const endLine = offset + out.length - 1;
  const hasMore = limit === 0 ? offset <= lines.length : endLine < lines.length;
  return { text: out.join(''), endLine, hasMore, ...(hasMore ? { nextOffset: endLine + 1 } : {}) };
}

const lineArb = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\r', '\u00e9', '\u{1F600}'), maxLength: 12 });
const textArb = fc.tuple(fc.array(lineArb, { maxLength: 40 }), fc.boolean()).map(([ls, nl]) => ls.join('\n') + (nl && ls.length > 0 ? '\n' : ''));

describe('read', () => {
  it('answers what an independent model answers, with short reads and a tiny line-index stride, at random offsets (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        textArb,
        fc.array(fc.record({ offset: fc.integer({ min: 1, max: 45 }), limit: fc.integer({ min: 0, max: 6 }), maxBytes: fc.integer({ min: 0, max: 200 }) }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 9 }),
        fc.boolean(),
        async (text, reads, chunk, readInto) => {
          const { reader, count } = readerOver({ [L]: text }, { lineIndexStride: 2 }, chunk, readInto);
          for (const r of reads) {
            const got = await reader.read(L, r);
            const want = modelRead(text, r.offset, r.limit, r.maxBytes);
            if (want === 'partial') {
              expect(got.truncated).toBe(true);
              expect(got.nextOffset).toBeUndefined();
            } else {
              expect({ text: got.text, endLine: got.endLine, hasMore: got.hasMore, nextOffset: got.nextOffset }).toEqual({ nextOffset: undefined, ...want });
            }
          }
          expect(count.closes).toBe(reads.length);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('answers the same from a given offsetByte, reading only from there; a position that starts no line is not used (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        textArb,
        fc.array(fc.record({ offset: fc.integer({ min: 1, max: 45 }), limit: fc.integer({ min: 0, max: 6 }), maxBytes: fc.integer({ min: 0, max: 200 }), shift: fc.integer({ min: -3, max: 3 }) }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 9 }),
        async (text, reads, chunk) => {
          const bytes = encoder.encode(text);
          const starts = [0, 0];
          bytes.forEach((b, i) => {
            if (b === 0x0a && i + 1 < bytes.length) starts.push(i + 1);
          });
          for (const { shift, ...r } of reads) {
            const at = starts[r.offset];
            if (at === undefined) continue;
            const hint = Math.max(0, at + shift);
            // Another line's start would answer that line's text, as documented.
            if (shift !== 0 && starts.includes(hint)) continue;
            // A fresh reader each time: no line index of earlier reads to start from.
            const { reader: plain } = readerOver({ [L]: text }, {}, chunk);
            const { reader: hinted, count } = readerOver({ [L]: text }, {}, chunk);
            expect(await hinted.read(L, { ...r, offsetByte: hint })).toEqual(await plain.read(L, r));
            if (shift === 0 && r.offset > 1) expect(count.bytesRead).toBeLessThanOrEqual(Math.min(bytes.length - at, r.maxBytes + 4) + 1);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('refuses an offsetByte that is not a whole number of at least 0', async () => {
    const { reader } = readerOver({ [L]: 'a\nb\n' });
    for (const offsetByte of [-1, 1.5, Number.NaN, '2']) {
      await expect(reader.read(L, { offset: 2, offsetByte } as never)).rejects.toMatchObject({ code: 'SPILL_INVALID_INPUT' });
    }
  });

  it('starts a later read from the nearest checkpoint: a second read near a deep line reads a small fraction of the first', async () => {
    const text = Array.from({ length: 100_000 }, (_, i) => `line ${i + 1}\n`).join('');
    const { reader, count } = readerOver({ [L]: text });
    expect((await reader.read(L, { offset: 90_000, limit: 1 })).text).toBe('line 90000\n');
    const first = count.bytesRead;
    count.bytesRead = 0;
    expect((await reader.read(L, { offset: 90_500, limit: 1 })).text).toBe('line 90500\n');
    expect(count.bytesRead).toBeLessThan(first / 20);
  });

  it('pages by nextOffset reading each byte about once (the exact hint), not from the start each time', async () => {
    const text = Array.from({ length: 20_000 }, (_, i) => `row ${i}\n`).join('');
    const { reader, count } = readerOver({ [L]: text });
    let offset: number | undefined = 1;
    const parts: string[] = [];
    while (offset !== undefined) {
      const page: ReadResult = await reader.read(L, { offset, limit: 1000, maxBytes: 1 << 20 });
      parts.push(page.text);
      offset = page.nextOffset;
    }
    expect(parts.join('')).toBe(text);
    expect(count.bytesRead).toBeLessThan(text.length * 2);
  });

  it('keeps answers right when the LRU holds one artifact and two alternate; a source without cacheKey is never indexed', async () => {
    const a = Array.from({ length: 3000 }, (_, i) => `a${i}\n`).join('');
    const b = Array.from({ length: 3000 }, (_, i) => `b${i}\n`).join('');
    const { reader } = readerOver({ 'mem://a': a, 'mem://b': b }, { lineIndexArtifacts: 1, lineIndexStride: 7 });
    for (const offset of [2500, 100, 2999, 1]) {
      expect((await reader.read(spillLocator('mem://a'), { offset, limit: 1 })).text).toBe(`a${offset - 1}\n`);
      expect((await reader.read(spillLocator('mem://b'), { offset, limit: 1 })).text).toBe(`b${offset - 1}\n`);
    }
  });

  it('closes the source once even when the read fails, and turns a plain read error into SPILL_STORAGE_FAILED', async () => {
    let closes = 0;
    const reader = createSpillReader({
      open: () =>
        Promise.resolve({
          size: 10,
          read: () => Promise.reject(new Error('EIO')),
          close: () => {
            closes++;
            return Promise.resolve();
          },
        }),
    });
    const err: unknown = await reader.read(L).catch((e: unknown) => e);
    expect(isSpillError(err, 'SPILL_STORAGE_FAILED')).toBe(true);
    expect(closes).toBe(1);
    const broken = createSpillReader({ open: () => Promise.resolve({} as SpillByteSource) });
    expect(isSpillError(await broken.read(L).catch((e: unknown) => e), 'SPILL_STORAGE_FAILED')).toBe(true);
  });
});

describe('grep', () => {
  const log = Array.from({ length: 3000 }, (_, i) => `2026-01-01 ${i % 5 === 0 ? 'ERROR' : 'INFO'} id=${i} caf\u00e9\r`).join('\n');
  const patterns = ['ERROR|WARN', 'id=[0-9]{3}\\r$', '^2026', '(?i)CAF\u00c9', '\\bid=1\\d\\b', '(a+)+$', '[^\\s]+\\s*$', '.$'];

  it('answers the same with worker threads (native engine) and without (linear engine only)', async () => {
    const withWorkers = readerOver({ [L]: log }).reader;
    const without = readerOver({ [L]: log }, { workers: false }).reader;
    for (const pattern of patterns) {
      for (const ignoreCase of [false, true]) {
        const options = { ignoreCase, maxMatches: 50, maxLineBytes: 20 };
        expect(await withWorkers.grep(L, pattern, options)).toEqual(await without.grep(L, pattern, options));
      }
    }
    await withWorkers.close();
  });

  it('answers (a+)+$ on a 100 KB line with workers: the native budget runs out and the linear engine finishes from that block', { timeout: 60_000 }, async () => {
    const { reader } = readerOver({ [L]: `${'a'.repeat(100_000)}!\nxaaa\n` });
    const result = await reader.grep(L, '(a+)+$', { timeoutMs: 30_000 });
    expect(result.matches.map((m) => m.line)).toEqual([2]);
    await reader.close();
  });

  it('starts no worker when the reserve hook refuses, answers anyway, and gives a reservation back when its worker ends', async () => {
    let reserved = 0;
    let refused = 0;
    const refusing = readerOver({ [L]: log }, { workers: { reserve: () => { refused++; return undefined; } } }).reader;
    expect((await refusing.grep(L, 'ERROR', { maxMatches: 1 })).matches).toHaveLength(1);
    expect(refused).toBe(1);
    const counting = readerOver(
      { [L]: log },
      {
        workers: {
          idleTimeoutMs: 10,
          reserve: () => {
            reserved++;
            return () => {
              reserved--;
            };
          },
        },
      },
    ).reader;
    expect((await counting.grep(L, 'ERROR', { maxMatches: 1 })).matches).toHaveLength(1);
    expect(reserved).toBe(1);
    await expect.poll(() => reserved, { timeout: 30_000 }).toBe(0);
  });

  it('stops at the deadline with SPILL_TIMEOUT on the linear engine, handing the event loop back while it runs', { timeout: 60_000 }, async () => {
    // About 40 MB: several seconds of the linear engine, many slices before the deadline.
    const big = `${'b'.repeat(200)}\n`.repeat(200_000);
    const { reader } = readerOver({ [L]: big }, { workers: false });
    let ticks = 0;
    const timer = setInterval(() => {
      ticks++;
    }, 1);
    // A class, not a literal, after the loop: a literal would be the required text every
    // match must contain, and the search would skip every line without running the engine.
    const err: unknown = await reader.grep(L, '(b|bb)+[cd]', { timeoutMs: 400 }).catch((e: unknown) => e);
    clearInterval(timer);
    expect(isSpillError(err, 'SPILL_TIMEOUT')).toBe(true);
    expect(ticks).toBeGreaterThan(0);
  });

  it('bounds a case-insensitive literal by timeoutMs too', { timeout: 60_000 }, async () => {
    const big = `${'x'.repeat(1000)}\n`.repeat(20_000);
    const { reader } = readerOver({ [L]: big }, { workers: false });
    const err: unknown = await reader.grep(L, 'XY', { literal: true, ignoreCase: true, timeoutMs: 5 }).catch((e: unknown) => e);
    expect(isSpillError(err, 'SPILL_TIMEOUT')).toBe(true);
  });

  it('numbers lines right across many blocks (read ahead, carried partial lines), for every engine', { timeout: 120_000 }, async () => {
    const lines = Array.from({ length: 400_000 }, (_, i) => (i % 40_000 === 7 ? `needle ${i + 1}` : `row ${i + 1} ${'x'.repeat(i % 50)}`));
    const text = `${lines.join('\n')}\n`;
    const expected = lines.flatMap((l, i) => (l.startsWith('needle') ? [i + 1] : []));
    for (const [workers, readInto] of [[undefined, false], [false, true], [undefined, true]] as const) {
      const { reader } = readerOver({ [L]: text }, workers === false ? { workers } : {}, 100_000, readInto);
      for (const [pattern, literal] of [['needle', true], ['^needle [0-9]+$', false], ['(?i)NEEDLE', false]] as const) {
        const result = await reader.grep(L, pattern, { literal, maxMatches: 100, timeoutMs: 60_000 });
        expect(result.matches.map((m) => m.line), `${pattern} workers ${String(workers)}`).toEqual(expected);
        expect(result.matches.every((m) => m.text === `needle ${m.line}`)).toBe(true);
      }
      await reader.close();
    }
  });

  it('numbers lines right around a line longer than a block (the block is read again, bigger), for every engine', { timeout: 120_000 }, async () => {
    const long = `${'x'.repeat(5 * 1024 * 1024)} needle 3 \u00e9`;
    const text = `needle 1\nrow 2\n${long}\nrow 4\nneedle 5\n`;
    for (const [workers, readInto] of [[undefined, false], [false, true], [undefined, true], [false, false]] as const) {
      const { reader } = readerOver({ [L]: text }, workers === false ? { workers } : {}, Number.POSITIVE_INFINITY, readInto);
      for (const [pattern, literal] of [['needle', true], ['needle [0-9]', false], ['(?i)NEEDLE', false], ['needle|absent', false]] as const) {
        const result = await reader.grep(L, pattern, { literal, maxMatches: 100, maxLineBytes: 64, timeoutMs: 60_000 });
        expect(result.matches.map((m) => m.line), `${pattern} workers ${String(workers)} readInto ${String(readInto)}`).toEqual([1, 3, 5]);
        expect(result.matches[1]?.truncated).toBe(true);
      }
      await reader.close();
    }
  });

  it('cuts a line longer than MAX_LINE_SPAN before a character, never inside one, for every engine', { timeout: 120_000 }, async () => {
    // The two bytes of "é" straddle the first piece's end: byte MAX_LINE_SPAN - 1 is its lead.
    const text = `${'a'.repeat(MAX_LINE_SPAN - 1)}\u00e9bc\nrow 2 \u00e9\n`;
    for (const [workers, readInto] of [[undefined, false], [false, true], [undefined, true]] as const) {
      const { reader } = readerOver({ [L]: text }, workers === false ? { workers } : {}, Number.POSITIVE_INFINITY, readInto);
      for (const [pattern, literal] of [['\u00e9', true], ['\u00e9bc', false], ['\u00e9[a-c]+$', false]] as const) {
        const result = await reader.grep(L, pattern, { literal, maxMatches: 10, maxLineBytes: 64, timeoutMs: 60_000 });
        const want = pattern === '\u00e9' ? [1, 2] : [1];
        expect(result.matches.map((m) => m.line), `${pattern} workers ${String(workers)} readInto ${String(readInto)}`).toEqual(want);
      }
      await reader.close();
    }
  });

  it('finds a match at the very end of a last line without a newline', async () => {
    const { reader } = readerOver({ [L]: '\nab\ncd' });
    expect((await reader.grep(L, '$')).matches.map((m) => m.line)).toEqual([1, 2, 3]);
    expect((await reader.grep(L, 'd$')).matches.map((m) => m.line)).toEqual([3]);
  });
});

describe('the required literal', () => {
  it('is in every line the pattern matches (property over generated patterns and lines)', () => {
    const token = fc.constantFrom('ab', 'c', 'd+', 'e*', 'f?', '.', '[a-c]', '(ab|c)', '\\.', '{2}', 'x{1,2}', '\\s', '^', '$', '(?:cd)+', '\\d');
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 8 }), fc.array(fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'x', '.', ' ', '1'), maxLength: 16 }), { maxLength: 20 }), (tokens, lines) => {
        const pattern = tokens.join('');
        let re: RE2JS;
        try {
          re = RE2JS.compile(pattern);
        } catch {
          return;
        }
        const literal = requiredLiteral(pattern);
        if (literal === undefined) return;
        for (const line of lines) if (re.matcher(line).find()) expect(line, `${pattern} needs ${literal}`).toContain(literal);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the native translation of RE2 syntax', () => {
  it('gives `.` and `\\s` their RE2 meaning, and keeps a block search from crossing lines', () => {
    expect(toNative('a.b', false)).toEqual({ line: 'a[^\\n]b', block: 'a[^\\n]b', flags: 'u' });
    expect(toNative('\\s[^a]', false)).toEqual({ line: '[\\t\\n\\f\\r ][^a]', block: '[\\t\\f\\r ][^a\\n]', flags: 'u' });
    expect(toNative('[^\\s]', true)).toEqual({ line: '[^\\t\\n\\f\\r ]', block: '[^\\t\\f\\r \\n]', flags: 'iu' });
  });

  it('leaves to the linear engine what JavaScript reads differently or not at all', () => {
    for (const pattern of ['(?i)a', '\\pL', '[[:alpha:]]', '\\Qa\\E', 'a\\z', '[]a]', 'a{,2}', '\\x{41}', '\\123', '\\p{Greek}']) {
      expect(toNative(pattern, false), pattern).toBeUndefined();
    }
    expect(toNative('\\w+', true)).toBeUndefined();
    // Plain mode (faster) only for ASCII without case folding or any-character constructs.
    expect(toNative('^[0-9]{9} x', false)?.flags).toBe('');
    expect(toNative('^[0-9]{9} x', true)?.flags).toBe('iu');
    expect(toNative('\u00e9+', false)?.flags).toBe('u');
    expect(toNative('\\w+', false)).toBeDefined();
  });
});
