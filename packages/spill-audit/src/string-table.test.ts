import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forEachDistinctiveSpan } from './estimate.js';
import { spanHash, StringTable } from './string-table.js';

/** Strings of the code units that matter: ASCII, Latin-1, lone and paired surrogates; short, and now and then long. */
const unit = fc.constantFrom('a', 'b', '7', '/', '.', '_', 'ß', 'ñ', '\ud800', '\udc00', '😀', '٣');
const short = fc.string({ unit, maxLength: 12 });
const anyString = fc.oneof({ weight: 8, arbitrary: short }, { weight: 1, arbitrary: fc.tuple(short, fc.integer({ min: 900, max: 12_000 })).map(([s, n]) => s.repeat(Math.ceil(n / Math.max(1, s.length)))) });

/**
 * Numbers each string as it comes, through the table (looked up as a span of a longer text)
 * and through a `Map`, and expects the same numbers; strings are looked up before and after.
 */
function sameAsMap(strings: readonly string[], hash: (text: string, start: number, end: number) => number): void {
  const table = new StringTable();
  const map = new Map<string, number>();
  for (const [k, s] of strings.entries()) {
    // The string sits inside other text, so the span's neighbours must not count.
    const pad = '#'.repeat(k % 5);
    const text = `${pad}${s}${pad}x`;
    const start = pad.length;
    const end = start + s.length;
    const h = hash(text, start, end);
    const known = map.get(s);
    expect(table.find(text, start, end, h)).toBe(known ?? -1);
    if (known === undefined) {
      map.set(s, map.size);
      expect(table.add(text, start, end, h)).toBe(map.size - 1);
    }
    expect(table.size).toBe(map.size);
  }
  for (const [s, id] of map) expect(table.find(s, 0, s.length, hash(s, 0, s.length))).toBe(id);
  // A string never added is not found, even when it shares a hash with all the others.
  const absent = `${strings.join('')}\u0000`;
  expect(table.find(absent, 0, absent.length, hash(absent, 0, absent.length))).toBe(-1);
}

describe('the string table numbers strings as a Map would', () => {
  it('with the hash the scan computes: the hash of a span is the hash of its copy', () => {
    fc.assert(
      fc.property(short, short, short, (a, s, b) => {
        expect(spanHash(`${a}${s}${b}`, a.length, a.length + s.length)).toBe(spanHash(s, 0, s.length));
      }),
      { numRuns: 300 },
    );
  });

  it('with the hash the scan computes, over repeats, long strings and a few thousand distinct ones (the table grows, and so do its blocks of code units)', () => {
    // 5,000 distinct strings of 3 to 56 code units, half of them with a unit over 255: more than one block of each kind.
    const many = Array.from({ length: 6000 }, (_, i) => `${i % 2 === 0 ? 's' : 'ſ'}_${String(i % 5000)}${'x'.repeat((i % 5000) % 50)}`);
    fc.assert(
      fc.property(fc.array(anyString, { maxLength: 400 }), fc.integer({ min: 0, max: many.length }), (drawn, cut) => {
        const strings = [...drawn, ...many.slice(cut), ...drawn, ...many.slice(0, cut)];
        sameAsMap(strings, spanHash);
      }),
      // The empty string first and again, before any other: its block is the first one there is.
      { numRuns: 20, examples: [[[''], many.length]] },
    );
  });

  it('when every string has the same hash, or only one of four: equal hashes are told apart by their code units', () => {
    fc.assert(
      fc.property(fc.array(anyString, { maxLength: 700 }), fc.constantFrom(0, 3), (strings, bits) => {
        sameAsMap(strings, (text, start, end) => spanHash(text, start, end) & bits);
      }),
      { numRuns: 30, examples: [[[''], 0]] },
    );
  });

  it('two real strings with the same hash get their own numbers', () => {
    // Found by trying strings until two hash alike: a collision of 32 bits is expected in under 100,000.
    const byHash = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; pair === undefined && i < 1_000_000; i++) {
      const s = `key_${String(i)}`;
      const h = spanHash(s, 0, s.length);
      const other = byHash.get(h);
      if (other === undefined) byHash.set(h, s);
      else pair = [other, s];
    }
    if (pair === undefined) throw new Error('no two strings hashed alike');
    const [a, b] = pair;
    expect(a).not.toBe(b);
    const table = new StringTable();
    const ha = spanHash(a, 0, a.length);
    expect(table.add(a, 0, a.length, ha)).toBe(0);
    expect(table.find(b, 0, b.length, ha)).toBe(-1);
    expect(table.add(b, 0, b.length, ha)).toBe(1);
    expect(table.find(a, 0, a.length, ha)).toBe(0);
    expect(table.find(b, 0, b.length, ha)).toBe(1);
  });

  it('the scan hands each distinctive string as a span whose hash is its copy’s', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(short, fc.constantFrom(' ', '\n', 'src/deep/mod_42.ts', '--./a_1/', 'v1.2.3')), { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        forEachDistinctiveSpan(text, (start, end, hash) => {
          expect(hash).toBe(spanHash(text.slice(start, end), 0, end - start));
          return false;
        });
      }),
      { numRuns: 300 },
    );
  });
});
