// A case-insensitive literal grep is a linear search of the folded needle in the folded
// text: it answers what the dialect's ignoreCase (`iu`) answers, line for line, and a long
// repetitive needle over a long repetitive text answers at once instead of taking minutes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSpillError, spillLocator } from '@spillway/core';
import { textFinder } from './find-folded.js';
import { foldCase, foldCodePoint } from './fold-case.js';
import { readerOverText } from './test-reader.js';

const L = spillLocator('mem://fold');

function readerOver(text: string, workers: boolean): ReturnType<typeof readerOverText> {
  return readerOverText(L, text, workers ? {} : { workers: false });
}

const escape = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** The oracle: the line numbers whose text the dialect's `iu` matches with the quoted needle. */
function oracle(text: string, needle: string): number[] {
  const re = new RegExp(escape(needle), 'iu');
  return text.split('\n').flatMap((line, i) => (re.test(line) ? [i + 1] : []));
}

// Letters whose folds are not their lower case alone, and a few that must stay apart.
const TRICKY = ['a', 'A', 'b', 'k', 'K', '\u212A', 's', 'S', '\u017F', 'i', 'I', '\u0130', '\u0131', '\u00DF', '\u1E9E', '\u03C3', '\u03C2', '\u03A3', '\u00B5', '\u03BC', '\u039C', '\u03B8', '\u03D1', '\u0398', '\u03F4', '\u01C4', '\u01C5', '\u01C6', '\u13A0', '\uAB70', '\u{10400}', '\u{10428}', '\u{1F600}', '\u1FB3', '\u1FBC', '\u0345', '\u03B9', '\u1FBE', ' '];

describe('foldCase', () => {
  it('folds two code points alike exactly when the dialect takes them for the same letter, on every pair case mapping relates', () => {
    const problems: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      const related = new Set([c.toLowerCase(), c.toUpperCase(), c.toUpperCase().toLowerCase()]);
      for (const x of related) {
        if (x === c || String.fromCodePoint(x.codePointAt(0) ?? 0) !== x) continue;
        const xp = x.codePointAt(0) ?? 0;
        const same = new RegExp(`^${escape(c)}$`, 'iu').test(x);
        if (same !== (foldCodePoint(cp) === foldCodePoint(xp))) problems.push(`U+${cp.toString(16)} / U+${xp.toString(16)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('keeps the length and every index of the text (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TRICKY, '\uD800', '\uDC00', '\n')), (parts) => {
        const text = parts.join('');
        const folded = foldCase(text);
        expect(folded.length).toBe(text.length);
        for (let i = 0; i < text.length; i++) if (text[i] === '\n') expect(folded[i]).toBe('\n');
      }),
    );
  });
});

describe('textFinder', () => {
  it('finds what indexOf finds, for short and long needles (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b') }), fc.string({ unit: fc.constantFrom('a', 'b'), minLength: 1, maxLength: 40 }), fc.nat(), (text, needle, from0) => {
        const from = text.length === 0 ? 0 : from0 % (text.length + 1);
        const long = needle.repeat(Math.ceil(40 / needle.length));
        for (const n of [needle, long]) expect(textFinder(n)(text, from)).toBe(text.indexOf(n, from));
      }),
    );
  });
});

describe('a case-insensitive literal grep', () => {
  it('answers the lines that the dialect ignoreCase matches, with and without workers (property)', async () => {
    const line = fc.array(fc.constantFrom(...TRICKY), { maxLength: 12 }).map((p) => p.join(''));
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 12 }), fc.array(fc.constantFrom(...TRICKY), { minLength: 1, maxLength: 4 }), fc.boolean(), async (lines, needleParts, workers) => {
        const text = lines.join('\n');
        const needle = needleParts.join('');
        const result = await readerOver(text, workers).grep(L, needle, { literal: true, ignoreCase: true, maxMatches: 1000 });
        expect(result.matches.map((m) => m.line)).toEqual(oracle(text, needle));
        // Each answered text is the line itself (the lines here are short).
        const all = text.split('\n');
        for (const m of result.matches) expect(m.text).toBe(all[m.line - 1]);
      }),
      { numRuns: 60 },
    );
  });

  it('answers a 4,001-character needle over 4 MiB of short lines and over one 6 MiB line, as a correct answer or SPILL_TIMEOUT', { timeout: 60_000 }, async () => {
    const needle = `${'a'.repeat(2000)}b${'a'.repeat(2000)}`;
    const lines = `${'a'.repeat(4095)}\n`.repeat(1024); // 4 MiB
    const hit = 3 * 1024 * 1024;
    const oneLine = `${'a'.repeat(hit)}B${'A'.repeat(3 * 1024 * 1024)}`; // 6 MiB, a match around the B
    for (const [text, expected] of [
      [lines, []],
      [oneLine, [1]],
    ] as const) {
      for (const workers of [false, true]) {
        const answer = await readerOver(text, workers)
          .grep(L, needle, { literal: true, ignoreCase: true, timeoutMs: 500 })
          .catch((error: unknown) => error);
        if (isSpillError(answer)) {
          expect(answer.code).toBe('SPILL_TIMEOUT');
        } else {
          const result = answer as Awaited<ReturnType<ReturnType<typeof readerOverText>['grep']>>;
          expect(result.matches.map((m) => m.line)).toEqual(expected);
          // The line is cut to a window that starts where the match starts (the match is longer than the window).
          for (const m of result.matches) {
            expect(m.truncated).toBe(true);
            expect(m.text.length).toBeGreaterThan(0);
            expect(oneLine.slice(hit - 2000).startsWith(m.text)).toBe(true);
          }
        }
      }
    }
  });
});
