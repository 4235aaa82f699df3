import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashOfShape, shapeOf, ShapeReader } from './salient.js';

/** The definition the hand-written {@link shapeOf} must keep. */
function shapeByRegex(line: string): string {
  return line.replace(/0x[0-9a-fA-F]+|[0-9a-f]{8,}|\d+/g, '#').replace(/"[^"]*"|'[^']*'/g, '"…"');
}

/** Lines made of the characters the shape rules turn on, so that every branch is met often. */
const lineArb = fc.array(fc.constantFrom('0', 'x', '7', 'a', 'f', 'g', 'A', 'F', '"', "'", ' ', ':', '.', 'é', '😀', '0x', 'deadbeef'), { maxLength: 40 }).map((parts) => parts.join(''));

/** The same without quotes, whose lines {@link ShapeReader.matches} decides alone. */
const noQuoteArb = fc.array(fc.constantFrom('0', 'x', '7', '12', 'a', 'f', 'g', 'A', 'F', ' ', ':', '.', 'é', '😀', '0x', 'deadbeef'), { maxLength: 40 }).map((parts) => parts.join(''));

describe('shapeOf', () => {
  it('is the two replacements of its definition', () => {
    fc.assert(
      fc.property(lineArb, (line) => {
        expect(shapeOf(line)).toBe(shapeByRegex(line));
      }),
      { numRuns: 5000 },
    );
  });

  it('collapses numbers, hex runs and quoted strings', () => {
    for (const line of ['request 1 failed', 'src/a.ts:12:5 "x" 0xFF abcdef012 a1b2c3d \'q\' "open', '', '0x', '0xg 12345678 1234567a']) {
      expect(shapeOf(line)).toBe(shapeByRegex(line));
    }
    expect(shapeOf('request 12 failed at 0x7fA in "main"')).toBe('request # failed at # in "…"');
  });
});

describe('ShapeReader', () => {
  it('tells shapes apart by hash and units as the strings are told apart', () => {
    const reader = new ShapeReader();
    fc.assert(
      fc.property(lineArb, lineArb, (a, b) => {
        const hash = reader.read(a);
        expect(hash).toBe(hashOfShape(shapeByRegex(a)));
        expect(reader.text()).toBe(shapeByRegex(a));
        expect(reader.equals(shapeByRegex(b))).toBe(shapeByRegex(a) === shapeByRegex(b));
        expect(reader.equals(shapeByRegex(a))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('matches a shape exactly when reading the line gives it, for lines without a quote', () => {
    const reader = new ShapeReader();
    // Often the same shape: the digits of the line changed.
    const renumbered = (line: string): string => line.replace(/\d/g, (d) => String((Number(d) * 7 + 3) % 10));
    fc.assert(
      fc.property(noQuoteArb, lineArb, fc.boolean(), (a, other, same) => {
        const shape = shapeByRegex(same ? renumbered(a) : other);
        expect(reader.matches(a, shape)).toBe(shapeByRegex(a) === shape);
      }),
      { numRuns: 5000 },
    );
  });

  it('does not match a line with a quote, even to its own shape', () => {
    const reader = new ShapeReader();
    for (const line of ['"', "it's 3", 'a "b" c']) expect(reader.matches(line, shapeByRegex(line))).toBe(false);
  });

  it('reads lines longer than its buffer', () => {
    const line = `"${'7'.repeat(5000)}" ${"''".repeat(3000)} x`;
    const reader = new ShapeReader();
    reader.read(line);
    expect(reader.text()).toBe(shapeByRegex(line));
  });
});
