import { describe, expect, it } from 'vitest';
import { randomBytes, randomHex } from './random-id.js';

describe('random ids', () => {
  it('are 128-bit hex strings that do not repeat across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const id = randomHex(16);
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(5000);
    expect(randomHex(1)).toMatch(/^[0-9a-f]{2}$/);
    expect(() => randomHex(5000)).toThrow(RangeError);
  });

  it('look uniform: every byte value turns up, none far too often', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 2000; i++) for (const b of randomBytes(16)) counts[b] = (counts[b] ?? 0) + 1;
    // 32 000 bytes: 125 expected per value; a broken source (zeros, a counter) fails this.
    expect(Math.min(...counts)).toBeGreaterThan(50);
    expect(Math.max(...counts)).toBeLessThan(250);
  });
});
