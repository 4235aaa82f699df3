import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Utf8ChunkEncoder } from './utf8-chunk-encoder.js';

const unit = fc.constantFrom('a', 'é', '€', '😀', '\uD83D', '\uDE00', '\uD800', '\uDFFF', '\n');
const chunksArb = fc.array(fc.string({ unit, maxLength: 12 }), { maxLength: 16 });

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}

describe('Utf8ChunkEncoder', () => {
  it('encodes any chunking exactly as TextEncoder encodes the concatenation', () => {
    fc.assert(
      fc.property(chunksArb, (chunks) => {
        const encoder = new Utf8ChunkEncoder();
        const parts = chunks.map((c) => encoder.encode(c));
        parts.push(encoder.end());
        expect(concat(parts)).toEqual(new TextEncoder().encode(chunks.join('')));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a pair split across two chunks together, and writes a lone high surrogate at the end as U+FFFD', () => {
    const encoder = new Utf8ChunkEncoder();
    expect(encoder.take('a\uD83D')).toBe('a');
    expect(encoder.holding).toBe(true);
    expect(encoder.take('\uDE00b')).toBe('😀b');
    expect(encoder.take('\uD800')).toBe('');
    expect([...encoder.end()]).toEqual([0xef, 0xbf, 0xbd]);
    expect(encoder.holding).toBe(false);
  });
});
