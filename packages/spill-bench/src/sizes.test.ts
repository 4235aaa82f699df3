import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatBytes, parseSize } from './sizes.js';

describe('parseSize', () => {
  it('reads binary units as powers of 1024 and decimal units as powers of 1000', () => {
    expect(parseSize('4KiB')).toBe(4096);
    expect(parseSize('64 MiB')).toBe(64 * 1024 * 1024);
    expect(parseSize('2GiB')).toBe(2 ** 31);
    expect(parseSize('500MB')).toBe(500_000_000);
    expect(parseSize('1kb')).toBe(1000);
  });

  it('reads a bare number as bytes, and k/m/g as binary shorthands', () => {
    expect(parseSize('65536')).toBe(65536);
    expect(parseSize('64k')).toBe(65536);
    expect(parseSize('1g')).toBe(2 ** 30);
  });

  it('accepts fractions that come to whole bytes', () => {
    expect(parseSize('1.5GiB')).toBe(1.5 * 2 ** 30);
    expect(() => parseSize('1.5B')).toThrow(TypeError);
  });

  it('refuses text that is not a size, with a TypeError saying what to write', () => {
    for (const bad of ['', 'big', '4 XB', '-4KiB', '4KiB extra', '1e3']) {
      expect(() => parseSize(bad), bad).toThrow(/is not a size/);
    }
  });

  it('reads back what formatBytes writes for whole binary multiples', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1023 }), fc.constantFrom(1, 1024, 1024 ** 2, 1024 ** 3), (n, unit) => {
        expect(parseSize(formatBytes(n * unit).replace(' ', ''))).toBe(n * unit);
      }),
    );
  });
});

describe('formatBytes', () => {
  it('picks the largest unit that keeps the number at least 1', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(4096)).toBe('4 KiB');
    expect(formatBytes(1.5 * 1024 * 1024)).toBe('1.5 MiB');
    expect(formatBytes(2 ** 31)).toBe('2 GiB');
  });
});
