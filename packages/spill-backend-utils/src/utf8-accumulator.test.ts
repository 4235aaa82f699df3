import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Utf8Accumulator } from './utf8-accumulator.js';

describe('Utf8Accumulator', () => {
  it('produces the same bytes as TextEncoder on the concatenation, for any chunking', () => {
    const unit = fc.constantFrom('a', 'é', '€', '😀', '\uD83D', '\uDE00', '\uD800', '\uDFFF', '\n');
    fc.assert(
      fc.property(fc.array(fc.string({ unit, maxLength: 20 }), { maxLength: 20 }), (chunks) => {
        const acc = new Utf8Accumulator(1 << 20);
        for (const chunk of chunks) acc.push(chunk);
        expect(acc.finish()).toEqual(new TextEncoder().encode(chunks.join('')));
      }),
      { numRuns: 500 },
    );
  });

  it('packs many segments and chunks larger than a segment into one exact array', () => {
    const acc = new Utf8Accumulator(8 << 20);
    const chunks = ['x'.repeat(700_000), 'é'.repeat(600_000), 'y', '😀'.repeat(400_000), 'z'.repeat(3_000_000)];
    for (const chunk of chunks) acc.push(chunk);
    const out = acc.finish();
    // Buffer.equals: a deep toEqual over megabytes of typed array takes minutes.
    expect(Buffer.from(out).equals(new TextEncoder().encode(chunks.join('')))).toBe(true);
    expect(out.buffer.byteLength).toBe(out.length); // no slack capacity is kept
  });

  it('throws SPILL_TOO_LARGE before encoding a chunk that would pass maxBytes', () => {
    const acc = new Utf8Accumulator(5);
    acc.push('abcd');
    expect(() => {
      acc.push('é');
    }).toThrow(expect.objectContaining({ code: 'SPILL_TOO_LARGE' }) as Error);
    expect(acc.byteLength).toBe(4);
  });
});
