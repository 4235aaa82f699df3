import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { needleFinder } from './find-needle.js';
import { scanNeedle, scanPieces } from './scan-bytes.js';
import type { ByteBlock } from './scan-bytes.js';
import { literalNominate, nativeMatchers, scanBlock } from './scan-text.js';
import type { BlockScan, FirstMatch } from './scan-text.js';
import { decodeUtf8 } from './utf8.js';

const bytesOf = (text: string): ByteBlock => Buffer.from(text);

// A small alphabet makes needles and their windows common, and false hits many.
const unit = fc.constantFrom('a', 'b', '-', ' ', '\n', '\u00e9', '\u{1F600}');
const blockArb = fc.string({ unit, maxLength: 3000 });
const needleArb = fc.string({ unit: fc.constantFrom('a', 'b', '-', ' ', '\u00e9'), minLength: 1, maxLength: 12 });
// skipLine is a line already reported: the block's first line (a long line searched in
// pieces) or one before it.
const scanArb = fc.record({
  firstLine: fc.integer({ min: 1, max: 1000 }),
  remaining: fc.integer({ min: 0, max: 30 }),
  maxLineBytes: fc.integer({ min: 0, max: 40 }),
  skipOffset: fc.integer({ min: -1, max: 0 }),
});
const toScan = (s: { firstLine: number; remaining: number; maxLineBytes: number; skipOffset: number }): BlockScan => ({
  firstLine: s.firstLine,
  remaining: s.remaining,
  maxLineBytes: s.maxLineBytes,
  skipLine: s.firstLine + s.skipOffset,
});

/** Every position `find` answers in turn, each search starting one byte after the last hit. */
function walkWith(find: (block: ByteBlock, from: number) => number, block: ByteBlock): number[] {
  const walk: number[] = [];
  for (let at = find(block, 0); at !== -1; at = find(block, at + 1)) walk.push(at);
  return walk;
}

describe('the needle finder', () => {
  it('answers what Buffer.indexOf answers, from any position, whichever window it picks and when it gives up on one (property)', () => {
    fc.assert(
      fc.property(blockArb, needleArb, fc.array(fc.nat(), { maxLength: 8 }), (text, needleText, froms) => {
        const block = bytesOf(text);
        const needle = bytesOf(needleText);
        const find = needleFinder(needle, block);
        for (const from of [0, ...froms.map((f) => f % (block.length + 1))]) {
          expect(find(block, from)).toBe(block.indexOf(needle, from));
        }
        // Every occurrence in turn: the walk a scan makes, which uses up the false-hit budget.
        expect(walkWith(find, block)).toEqual(walkWith((b, from) => b.indexOf(needle, from), block));
      }),
      { numRuns: 500 },
    );
  });

  it('answers what Buffer.indexOf answers on periodic blocks, where the window is common and the finder gives it up (property)', () => {
    const ab = fc.constantFrom('a', 'b');
    fc.assert(
      fc.property(fc.string({ unit: ab, minLength: 1, maxLength: 5 }), fc.integer({ min: 100, max: 3000 }), fc.string({ unit: ab, minLength: 2, maxLength: 14 }), (period, repeats, needleText) => {
        const block = bytesOf(period.repeat(repeats));
        const needle = bytesOf(needleText);
        const find = needleFinder(needle, block);
        expect(walkWith(find, block)).toEqual(walkWith((b, from) => b.indexOf(needle, from), block));
      }),
      { numRuns: 300 },
    );
  });

  it('answers what Buffer.indexOf answers when the sample misleads it: a byte rare at the start is common later (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 300 }), fc.integer({ min: 8, max: 12 }), (runs, n) => {
        const block = bytesOf('b'.repeat(16 * 1024) + runs.map((r) => `${'a'.repeat(r)}b`).join(''));
        const needle = bytesOf(`${'a'.repeat(n)}b`);
        const find = needleFinder(needle, block);
        expect(walkWith(find, block)).toEqual(walkWith((b, from) => b.indexOf(needle, from), block));
      }),
      { numRuns: 200 },
    );
  });
});

describe('the byte scans', () => {
  it('scanNeedle answers what scanBlock answers on the decoded block with the same literal nominator (property)', () => {
    fc.assert(
      fc.property(blockArb, needleArb, scanArb, fc.boolean(), (text, needleText, s, regex) => {
        const scan = toScan(s);
        // The literal itself, or a regex that every match of which contains the literal.
        const first: FirstMatch = regex
          ? nativeMatchers(`(?:a|\u00e9)?${needleText}`, '', 'u').first
          : (line) => {
              const at = line.indexOf(needleText);
              return at === -1 ? undefined : [at, at + needleText.length];
            };
        const expected = scanBlock(text, scan, first, literalNominate(needleText));
        expect(scanNeedle(bytesOf(text), scan, bytesOf(needleText), first, decodeUtf8)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('scanPieces answers what scanBlock answers on the whole decoded block, for any piece size (property)', () => {
    const patterns = ['a-', '^b', 'a$', '\u00e9+', '\\bab\\b', '^$', 'b|-a', '(?:)', '.{3}\u{1F600}'];
    fc.assert(
      fc.property(blockArb, fc.constantFrom(...patterns), scanArb, fc.integer({ min: 1, max: 200 }), (text, pattern, s, pieceBytes) => {
        const scan = toScan(s);
        const { first, nominate } = nativeMatchers(pattern, pattern, 'u');
        const expected = scanBlock(text, scan, first, nominate);
        expect(scanPieces(bytesOf(text), scan, first, nominate, decodeUtf8, pieceBytes)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
