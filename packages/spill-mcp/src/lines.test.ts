import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, lineText } from './lines.js';

function split(chunks: readonly Buffer[], maxBytes: number): { lines: string[]; dropped: number } {
  const lines: string[] = [];
  let dropped = 0;
  const splitter = new LineSplitter(maxBytes, (line) => lines.push(line.toString('utf8')), () => {
    dropped += 1;
  });
  for (const chunk of chunks) splitter.push(chunk);
  return { lines, dropped };
}

/** Cuts `bytes` at the given offsets. */
function chunked(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    out.push(bytes.subarray(start, point));
    start = point;
  }
  return out;
}

describe('LineSplitter', () => {
  it('yields every line exactly once, however the stream is cut', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }).map((s) => s.replaceAll('\n', ' ')), { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 30 }), (lines, cuts) => {
        const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''));
        const { lines: got, dropped } = split(chunked(bytes, cuts), 1 << 20);
        expect(dropped).toBe(0);
        expect(got).toEqual(lines);
      }),
    );
  });

  it('drops a line over the limit whole, reports it once, and goes on with the next', () => {
    fc.assert(
      fc.property(fc.integer({ min: 11, max: 200 }), fc.array(fc.nat(), { maxLength: 30 }), (long, cuts) => {
        const bytes = Buffer.from(`short\n${'x'.repeat(long)}\nafter\n`);
        const { lines, dropped } = split(chunked(bytes, cuts), 10);
        expect(lines).toEqual(['short', 'after']);
        expect(dropped).toBe(1);
      }),
    );
  });

  it('keeps a line without its carriage return, and skips blank ones', () => {
    expect(lineText(Buffer.from('{"a":1}\r'))).toBe('{"a":1}');
    expect(lineText(Buffer.from('  \r'))).toBeUndefined();
  });
});
