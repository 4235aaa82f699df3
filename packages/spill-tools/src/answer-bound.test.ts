import { SpillError, utf8ByteLength } from '@spillway/core';
import type { GrepResult, ReadResult, SpillReader } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundRows, utf8Prefix } from './answer-bound.js';
import { runSpillGrep, runSpillRead } from './index.js';

const text = fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\n', '\uD800', ' ') });

describe('utf8Prefix', () => {
  it('is the longest prefix within the cap that splits no code point (property)', () => {
    fc.assert(
      fc.property(text, fc.nat(64), (s, max) => {
        const p = utf8Prefix(s, max);
        expect(s.startsWith(p)).toBe(true);
        expect(utf8ByteLength(p)).toBeLessThanOrEqual(max);
        if (p.length < s.length) {
          // Not cut between the halves of a pair, and the next code point would not fit.
          const pair = /[\uD800-\uDBFF]$/.test(p) && /^[\uDC00-\uDFFF]/.test(s.slice(p.length));
          expect(pair).toBe(false);
          const nextUnits = /^[\uD800-\uDBFF][\uDC00-\uDFFF]/.test(s.slice(p.length)) ? 2 : 1;
          expect(utf8ByteLength(s.slice(0, p.length + nextUnits))).toBeGreaterThan(max);
        }
      }),
    );
  });
});

describe('boundRows', () => {
  it('answers leading rows whole, then the footer for that many, within the cap (property)', () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 30 }), fc.integer({ min: 0, max: 400 }), (rows, max) => {
        const footer = (n: number): string => `(${String(n)} of ${String(rows.length)})`;
        const out = boundRows(rows, max, footer);
        expect(utf8ByteLength(out.text)).toBeLessThanOrEqual(max);
        const full = [...rows.slice(0, out.shown), footer(out.shown)].join('\n');
        if (!out.rowCut && utf8ByteLength(full) <= max) {
          expect(out.text).toBe(rows.length === 0 || out.shown === 0 ? footer(out.shown) : full);
        }
        // One more row would not have fit.
        if (out.shown < rows.length && !out.rowCut && out.shown > 0) {
          expect(utf8ByteLength([...rows.slice(0, out.shown + 1), footer(out.shown + 1)].join('\n'))).toBeGreaterThan(max);
        }
      }),
    );
  });
});

/** A reader that ignores every limit it is given: the bound must not depend on the reader. */
function floodingReader(lines: number): SpillReader {
  const all = Array.from({ length: lines }, (_, i) => `line ${String(i + 1)} ${'z'.repeat(40)}`);
  return {
    read: (): Promise<ReadResult> =>
      Promise.resolve({ text: `${all.join('\n')}\n`, startLine: 1, endLine: lines, truncated: false, hasMore: false, totalBytes: 1 }),
    grep: (): Promise<GrepResult> =>
      Promise.resolve({ matches: all.map((t, i) => ({ line: i + 1, text: t, truncated: false })), limitReached: false, totalBytes: 1 }),
  };
}

describe('the retrieval tools over a reader that ignores its limits', () => {
  const locator = `spill+memory://session-${'0'.repeat(32)}/${'0'.repeat(32)}`;

  it('cuts spill_read to the answer cap at a line end and says where to continue', async () => {
    const answer = await runSpillRead(floodingReader(50_000), { locator }, { maxAnswerBytes: 4096 });
    expect(answer.isError).toBe(false);
    expect(utf8ByteLength(answer.text)).toBeLessThanOrEqual(4096);
    const next = /continue with spill_read offset (\d+)/.exec(answer.text)?.[1];
    expect(next).toBeDefined();
    const shownLines = answer.text.split('\n').filter((l) => l.startsWith('line '));
    expect(shownLines.at(-1)).toMatch(new RegExp(`^line ${String(Number(next) - 1)} `));
  });

  it('cuts spill_grep to the answer cap and says after which line more exist', async () => {
    const answer = await runSpillGrep(floodingReader(50_000), { locator, pattern: 'line' }, { maxAnswerBytes: 4096 });
    expect(utf8ByteLength(answer.text)).toBeLessThanOrEqual(4096);
    const rows = answer.text.split('\n').filter((l) => /^\d+: /.test(l));
    expect(rows.length).toBeGreaterThan(10);
    expect(answer.text).toContain(`more exist after line ${String(rows.length)}`);
    if (!answer.isError) expect((answer.data as GrepResult).matches).toHaveLength(rows.length);
  });

  it('bounds an error that quotes a huge argument', async () => {
    const quoting: SpillReader = {
      ...floodingReader(1),
      read: (at) => Promise.reject(new SpillError('SPILL_NOT_FOUND', `Nothing is stored at ${at}.`)),
    };
    const answer = await runSpillRead(quoting, { locator: 'x'.repeat(1_000_000) }, { maxAnswerBytes: 2048 });
    expect(answer).toMatchObject({ code: 'SPILL_NOT_FOUND' });
    expect(answer.isError).toBe(true);
    expect(utf8ByteLength(answer.text)).toBeLessThanOrEqual(2048);
  });

  it('refuses a cap too small to say how to continue', async () => {
    const answer = await runSpillRead(floodingReader(1), { locator }, { maxAnswerBytes: 10 });
    expect(answer.isError).toBe(true);
  });
});
