import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutToUtf8Bytes, utf8ByteLength } from './index.js';

describe('cutToUtf8Bytes', () => {
  it('keeps whole code points: a pair, a 3-byte and a 2-byte character are never split', () => {
    expect(cutToUtf8Bytes('a😀b', 4)).toBe('a');
    expect(cutToUtf8Bytes('a😀b', 5)).toBe('a😀');
    expect(cutToUtf8Bytes('€€', 5)).toBe('€');
    expect(cutToUtf8Bytes('éé', 3)).toBe('é');
    expect(cutToUtf8Bytes('abc', 0)).toBe('');
    expect(cutToUtf8Bytes('abc', -1)).toBe('');
    // A lone surrogate is written as U+FFFD: 3 bytes.
    expect(cutToUtf8Bytes('\uD800x', 2)).toBe('');
    expect(cutToUtf8Bytes('\uD800x', 3)).toBe('\uD800');
  });

  it('answers the longest prefix that fits, by the same count as utf8ByteLength', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom('a', 'é', '€', '😀', '\uD800', '\uDC00', '\n')) }), fc.integer({ min: 0, max: 60 }), (text, max) => {
        const cut = cutToUtf8Bytes(text, max);
        expect(text.startsWith(cut)).toBe(true);
        expect(utf8ByteLength(cut)).toBeLessThanOrEqual(max);
        if (cut.length < text.length) {
          // Never between the halves of a pair, and the next code point would not fit.
          const next = text.codePointAt(cut.length) ?? 0;
          const high = cut.length > 0 ? cut.charCodeAt(cut.length - 1) : 0;
          expect(high >= 0xd800 && high <= 0xdbff && next >= 0xdc00 && next <= 0xdfff).toBe(false);
          expect(utf8ByteLength(cut + String.fromCodePoint(next))).toBeGreaterThan(max);
        }
      }),
      { numRuns: 500 },
    );
  });
});
