import { utf8ByteLength } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { joinedTextExceeds } from './measure.js';
import { textArb } from './test-backends.js';

describe('the byte count the policy uses (core utf8ByteLength)', () => {
  it('equals what TextEncoder writes for any text, a lone surrogate counting as the 3 bytes of U+FFFD', () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(textArb, (text) => {
        expect(utf8ByteLength(text)).toBe(encoder.encode(text).length);
      }),
      { numRuns: 500 },
    );
    expect(utf8ByteLength('\uD800x\uDC00')).toBe(7);
  });
});

describe('joinedTextExceeds', () => {
  it('agrees with measuring the joined text exactly', () => {
    fc.assert(
      fc.property(fc.array(textArb, { maxLength: 4 }), fc.nat({ max: 3000 }), (texts, cap) => {
        expect(joinedTextExceeds(texts, cap)).toBe(utf8ByteLength(texts.join('\n')) > cap);
      }),
      { numRuns: 1000 },
    );
  });

  it('decides from UTF-16 lengths alone when they settle it, without scanning', () => {
    const scan = vi.fn(utf8ByteLength);
    const big = '€'.repeat(1_000_000);
    expect(joinedTextExceeds([big, big], 1_999_999, scan)).toBe(true); // at least 2 000 001 bytes
    expect(joinedTextExceeds([big, big], 6_000_001, scan)).toBe(false); // at most 6 000 001 bytes
    expect(joinedTextExceeds([], 0, scan)).toBe(false);
    expect(scan).not.toHaveBeenCalled();
  });

  it('scans only as many blocks as it takes once the bounds straddle the cap', () => {
    const scan = vi.fn(utf8ByteLength);
    const wide = 'é'.repeat(1000); // 2000 bytes, bounds 1000..3000
    // After the first block is measured, the rest (bounds 1001..3001) settles it.
    expect(joinedTextExceeds([wide, wide], 2000 + 1 + 3000 + 1, scan)).toBe(false);
    expect(scan).toHaveBeenCalledTimes(1);
    scan.mockClear();
    expect(joinedTextExceeds([wide, 'a'], 2001, scan)).toBe(true);
    expect(scan).toHaveBeenCalledTimes(1);
  });
});
