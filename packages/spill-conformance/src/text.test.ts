import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentArbitrary } from './arbitraries.js';
import { cutToBytes, describeTextDifference, isCodePointBoundary, isWellFormed, toStoredText } from './text.js';

describe('toStoredText', () => {
  it('replaces lone surrogates by U+FFFD and keeps pairs', () => {
    expect(toStoredText('a\uD800b\uDFFF\u{1F600}\uDE00\uD83D')).toBe('a\uFFFDb\uFFFD\u{1F600}\uFFFD\uFFFD');
  });

  it('equals what a UTF-8 round trip gives back, for any content', () => {
    fc.assert(
      fc.property(contentArbitrary(), (content) => {
        const stored = toStoredText(content);
        expect(stored).toBe(Buffer.from(content, 'utf8').toString('utf8'));
        expect(isWellFormed(stored)).toBe(true);
      }),
    );
  });
});

describe('cutToBytes', () => {
  it('returns the longest code-point-safe prefix within the budget', () => {
    fc.assert(
      fc.property(contentArbitrary().map(toStoredText), fc.nat({ max: 60 }), (text, maxBytes) => {
        const cut = cutToBytes(text, maxBytes);
        expect(text.startsWith(cut)).toBe(true);
        expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(maxBytes);
        expect(isCodePointBoundary(text, cut.length)).toBe(true);
        if (cut.length < text.length) {
          const next = text.codePointAt(cut.length) ?? 0;
          expect(Buffer.byteLength(cut) + Buffer.byteLength(String.fromCodePoint(next))).toBeGreaterThan(maxBytes);
        }
      }),
    );
  });
});

describe('describeTextDifference', () => {
  it('is undefined for equal texts and names the first difference otherwise', () => {
    expect(describeTextDifference('abc', 'abc')).toBeUndefined();
    expect(describeTextDifference('abXd', 'abcd')).toContain('index 2');
  });
});
