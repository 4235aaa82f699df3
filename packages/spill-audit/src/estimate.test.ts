import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { distinctiveStrings, estimateTokens, MIN_DISTINCTIVE_LENGTH, utf8Bytes } from './estimate.js';

describe('distinctiveStrings', () => {
  it('keeps paths, ids, versions and needles; not plain words or short strings', () => {
    const text = 'Error in src/app.ts at req_7f3a9c, version 1.18.33: SHELL-NEEDLE-4242; see ./build/ and the documentation. a1_b2 x';
    expect([...distinctiveStrings(text)]).toEqual(['src/app.ts', 'app.ts', 'req_7f3a9c', '1.18.33', 'SHELL-NEEDLE-4242']);
  });

  it('stops at the limit', () => {
    expect(distinctiveStrings('aaaa_1 bbbb_2 cccc_3', 2).size).toBe(2);
  });

  it('every string is in the text, long enough, marked, and trimmed', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'Z', '7', '_', '.', '/', '-', ' ', '"', ':', 'é') }), (text) => {
        for (const s of distinctiveStrings(text)) {
          expect(text).toContain(s);
          expect(s.length).toBeGreaterThanOrEqual(MIN_DISTINCTIVE_LENGTH);
          expect(s).toMatch(/[\d/._]/);
          expect(s).not.toMatch(/^[.\-/]|[.\-/]$/);
        }
      }),
    );
  });
});

describe('estimateTokens', () => {
  it('is bytes / 4 rounded up, and monotone', () => {
    expect(estimateTokens(0)).toBe(0);
    expect(estimateTokens(1)).toBe(1);
    expect(estimateTokens(8)).toBe(2);
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (a, b) => {
        expect(estimateTokens(a) * 4).toBeGreaterThanOrEqual(a);
        expect(estimateTokens(a) * 4 - a).toBeLessThan(4);
        if (a <= b) expect(estimateTokens(a)).toBeLessThanOrEqual(estimateTokens(b));
      }),
    );
  });

  it('utf8Bytes counts UTF-8', () => {
    expect(utf8Bytes('aé€😀')).toBe(1 + 2 + 3 + 4);
  });
});
