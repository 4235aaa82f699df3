import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseByteSize, parseDuration } from './units.js';

describe('huge inputs', () => {
  it('are refused with a short message that quotes only their start', () => {
    for (const text of ['1'.repeat(1_000_000) + 'x', '1s '.repeat(300_000) + 'x']) {
      for (const parse of [parseDuration, parseByteSize]) {
        let message = '';
        try {
          parse(text);
        } catch (error) {
          message = (error as Error).message;
        }
        expect(message).toMatch(/^Expected a/);
        expect(message.length).toBeLessThan(300);
      }
    }
  });
});

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['15m', 900_000],
    ['12h', 43_200_000],
    ['7d', 604_800_000],
    ['2w', 1_209_600_000],
    ['1h30m', 5_400_000],
    ['1d 12h', 129_600_000],
    ['1.5h', 5_400_000],
    ['0s', 0],
    [' 7d ', 604_800_000],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '7', 'd', '7D', '7 days', '-1d', '1x', '1d-2h', '1e3s', 'NaNs', '1..5h', '9999999999999999w'])(
    'refuses %j with a TypeError that lists the units',
    (text) => {
      expect(() => parseDuration(text)).toThrow(/units ms, s, m, h, d, w/);
    },
  );

  it('reads back what formatDuration writes for whole seconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 23 }), (m, h) => {
        const ms = (h * 60 + m) * 60_000;
        if (ms === 0) return;
        expect(parseDuration(formatDuration(ms).replace(' ', ''))).toBe(ms);
      }),
    );
  });
});

describe('parseByteSize', () => {
  it.each([
    ['4096', 4096],
    ['0', 0],
    ['2GB', 2_000_000_000],
    ['2gb', 2_000_000_000],
    ['500MB', 500_000_000],
    ['1.5KB', 1500],
    ['1KiB', 1024],
    ['1.5GiB', 1_610_612_736],
    ['2G', 2_147_483_648],
    ['10 MB', 10_000_000],
    ['3b', 3],
    ['1TB', 1e12],
  ])('reads %j as %d bytes', (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });

  it.each(['', 'GB', '-1GB', '2XB', '2 G B', '1e9', '0x10', '99999999PB'])('refuses %j with a TypeError', (text) => {
    expect(() => parseByteSize(text)).toThrow(TypeError);
  });
});

describe('formatting', () => {
  it.each([
    [450, '450ms'],
    [90_000, '1m 30s'],
    [604_800_000, '1w'],
    [93_600_000, '1d 2h'],
  ])('formats %d ms as %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
