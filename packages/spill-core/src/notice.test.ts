import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findSpillNotices, formatSpillNotice, hasSpillNotice, parseSpillNotice, type SpillNotice } from './notice.js';

const LOCAL_HINT = 'Use read with offset/limit, or grep this path to search within it.';
const OPENING_PHRASE = /\(Omitted (0|[1-9][0-9]*) bytes\. Full formatted result stored at: /;

/** Any locator except one that embeds the notice's own opening phrase (the documented limit). */
const locatorArb = fc.string({ minLength: 1, maxLength: 80, unit: 'binary' }).filter((s) => !OPENING_PHRASE.test(s));
/** Hints as the default rule recovers them: anything without ". ". */
const plainHintArb = fc.string({ maxLength: 80, unit: 'binary' }).filter((s) => !s.includes('. ') && !OPENING_PHRASE.test(s));
const anyHintArb = fc.string({ maxLength: 80, unit: 'binary' }).filter((s) => !OPENING_PHRASE.test(s));
const bytesArb = fc.nat({ max: Number.MAX_SAFE_INTEGER });
/** Locators built from the pieces that make parsing hard. */
const nastyLocatorArb = fc
  .array(fc.constantFrom('. ', ')', ' ', '(', '.', ')\n', 'a', '/', 'Omitted', ': '), { minLength: 1, maxLength: 12 })
  .map((parts) => parts.join(''));

describe('formatSpillNotice', () => {
  it('writes the exact contracted sentence', () => {
    expect(formatSpillNotice({ omittedBytes: 4817233, locator: '/home/u/x.txt', retrievalHint: LOCAL_HINT })).toBe(
      `(Omitted 4817233 bytes. Full formatted result stored at: /home/u/x.txt. ${LOCAL_HINT})`,
    );
  });

  it('throws a TypeError for a negative, fractional or unsafe count, an empty locator or a non-string hint', () => {
    const good: SpillNotice = { omittedBytes: 1, locator: 'l', retrievalHint: 'h' };
    for (const bad of [
      { ...good, omittedBytes: -1 },
      { ...good, omittedBytes: 1.5 },
      { ...good, omittedBytes: Number.NaN },
      { ...good, omittedBytes: 2 ** 60 },
      { ...good, locator: '' },
      { ...good, retrievalHint: 42 as unknown as string },
    ]) {
      expect(() => formatSpillNotice(bad)).toThrow(TypeError);
    }
  });
});

describe('parseSpillNotice', () => {
  it('round-trips any count and locator with a hint that has no ". "', () => {
    fc.assert(
      fc.property(bytesArb, fc.oneof(locatorArb, nastyLocatorArb), plainHintArb, (omittedBytes, locator, retrievalHint) => {
        const notice = { omittedBytes, locator, retrievalHint };
        expect(parseSpillNotice(formatSpillNotice(notice))).toEqual(notice);
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips any hint at all when it is passed as a known hint', () => {
    fc.assert(
      fc.property(bytesArb, fc.oneof(locatorArb, nastyLocatorArb), anyHintArb, (omittedBytes, locator, retrievalHint) => {
        const notice = { omittedBytes, locator, retrievalHint };
        expect(parseSpillNotice(formatSpillNotice(notice), { knownHints: ['Other hint.', retrievalHint] })).toEqual(notice);
      }),
      { numRuns: 500 },
    );
  });

  it('reads the notice at the end of a spilled result, whatever the preview holds (even an older notice)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), bytesArb, locatorArb, plainHintArb, (preview, omittedBytes, locator, retrievalHint) => {
        const notice = { omittedBytes, locator, retrievalHint };
        const older = formatSpillNotice({ omittedBytes: 5, locator: '/old', retrievalHint: 'Old.' });
        expect(parseSpillNotice(`${older}\n${preview}\n\n${formatSpillNotice(notice)}`)).toEqual(notice);
        expect(parseSpillNotice(`${preview}\n\n${formatSpillNotice(notice)}\n  `)).toEqual(notice);
      }),
    );
  });

  it('recovers a locator that contains ". ", ")" and spaces', () => {
    const locator = '/srv/My Docs. v2)/out (final). txt';
    expect(parseSpillNotice(formatSpillNotice({ omittedBytes: 7, locator, retrievalHint: LOCAL_HINT }))).toEqual({
      omittedBytes: 7,
      locator,
      retrievalHint: LOCAL_HINT,
    });
  });

  it('splits an unknown two-sentence hint at its last ". " (the documented ambiguity)', () => {
    const text = formatSpillNotice({ omittedBytes: 1, locator: 'spill+memory://a', retrievalHint: 'Use spill_read. Or spill_grep.' });
    expect(parseSpillNotice(text)).toEqual({ omittedBytes: 1, locator: 'spill+memory://a. Use spill_read', retrievalHint: 'Or spill_grep.' });
    expect(parseSpillNotice(text, { knownHints: ['Use spill_read. Or spill_grep.'] })?.locator).toBe('spill+memory://a');
  });

  it('answers undefined for text that does not end with a notice', () => {
    for (const text of [
      '',
      'hello',
      '(Omitted 5 bytes. Full formatted result stored at: /x. Hint.) and then more',
      '(Omitted 05 bytes. Full formatted result stored at: /x. Hint.)',
      '(Omitted -1 bytes. Full formatted result stored at: /x. Hint.)',
      '(Omitted 5 bytes. Full formatted result stored at: . Hint.)',
      '(Omitted 5 bytes. Full formatted result stored at: /x)',
      '(Omitted 5 bytes. Stored at: /x. Hint.)',
      '(Omitted 99999999999999999999 bytes. Full formatted result stored at: /x. Hint.)',
      42 as unknown as string,
    ]) {
      expect(parseSpillNotice(text)).toBeUndefined();
    }
  });
});

describe('findSpillNotices', () => {
  it('finds every notice in a transcript, with positions, in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ omittedBytes: bytesArb, locator: locatorArb.filter((l) => !l.includes(')')), retrievalHint: plainHintArb.filter((h) => !h.includes(')')) }), {
          maxLength: 5,
        }),
        fc.array(fc.string({ maxLength: 50 }).filter((s) => !s.includes('(Omitted')), { minLength: 6, maxLength: 6 }),
        (notices, fillers) => {
          let text = fillers[0] ?? '';
          const starts: number[] = [];
          notices.forEach((notice, i) => {
            text += '\n';
            starts.push(text.length);
            text += `${formatSpillNotice(notice)}\n${fillers[i + 1] ?? ''}`;
          });
          const found = [...findSpillNotices(text)];
          expect(found.map(({ omittedBytes, locator, retrievalHint }) => ({ omittedBytes, locator, retrievalHint }))).toEqual(notices);
          expect(found.map((f) => f.start)).toEqual(starts);
          for (const f of found) expect(text.slice(f.start, f.end)).toBe(formatSpillNotice(f));
          expect(hasSpillNotice(text)).toBe(notices.length > 0);
        },
      ),
    );
  });

  it('ends a notice at a ")" followed by a line break, so a locator with ")" mid-line survives', () => {
    const notice = { omittedBytes: 3, locator: '/a (copy)/b. c', retrievalHint: LOCAL_HINT };
    const text = `before\n${formatSpillNotice(notice)}\nafter (x)\n`;
    expect([...findSpillNotices(text)].map((n) => n.locator)).toEqual(['/a (copy)/b. c']);
  });

  it('uses known hints to end a notice that is followed by more text on the same line', () => {
    const text = `x ${formatSpillNotice({ omittedBytes: 1, locator: '/p', retrievalHint: 'Use spill_read. Then grep.' })} and more`;
    // Unknown, a two-sentence hint is split at its last ". " (the documented ambiguity).
    expect([...findSpillNotices(text)].map((n) => [n.locator, n.retrievalHint])).toEqual([['/p. Use spill_read', 'Then grep.']]);
    const found = [...findSpillNotices(text, { knownHints: ['Use spill_read. Then grep.'] })];
    expect(found.map((n) => n.locator)).toEqual(['/p']);
    expect(hasSpillNotice(text, { knownHints: ['Use spill_read. Then grep.'] })).toBe(true);
  });

  it('skips look-alikes and keeps scanning', () => {
    const real = formatSpillNotice({ omittedBytes: 9, locator: '/r', retrievalHint: 'H.' });
    const text = `(Omitted 1 bytes. Full formatted result stored at: nothing here\n${real}`;
    expect([...findSpillNotices(text)].map((n) => n.locator)).toEqual(['/r']);
    expect(hasSpillNotice('no notice (Omitted 3 bytes.)')).toBe(false);
  });

  it('finds a notice with an unknown hint followed by any non-word character or the end, in running text', () => {
    fc.assert(
      fc.property(
        fc.record({ omittedBytes: bytesArb, locator: runningLocatorArb, retrievalHint: runningHintArb }),
        fc.string({ maxLength: 30 }).filter((s) => !s.includes('(Omitted')),
        fc.constantFrom('', '"', '"}', '",', ']', ' and more', '.', ',', ';', '\n', '\r\n', '\t', '»'),
        (notice, before, after) => {
          const text = `${before}${formatSpillNotice(notice)}${after}`;
          const found = [...findSpillNotices(text)];
          expect(found).toEqual([{ ...notice, start: before.length, end: before.length + formatSpillNotice(notice).length }]);
        },
      ),
    );
  });

  it('finds notices inside JSON strings of a JSON-lines transcript, and unescapes their locators and hints (jsonEscaped)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            notice: fc.record({ omittedBytes: bytesArb, locator: runningLocatorArb, retrievalHint: runningHintArb }),
            before: fc.string({ maxLength: 20, unit: 'binary' }).filter((s) => !s.includes('(Omitted')),
            after: fc.oneof(fc.constant(''), fc.string({ maxLength: 20, unit: 'binary' }).map((s) => ` ${s}`).filter((s) => !s.includes('(Omitted'))),
          }),
          { maxLength: 4 },
        ),
        (records) => {
          const jsonl = records.map((r) => JSON.stringify({ role: 'tool', content: `${r.before}${formatSpillNotice(r.notice)}${r.after}` })).join('\n');
          const found = [...findSpillNotices(jsonl, { jsonEscaped: true })];
          expect(found.map(({ omittedBytes, locator, retrievalHint }) => ({ omittedBytes, locator, retrievalHint }))).toEqual(records.map((r) => r.notice));
          expect(hasSpillNotice(jsonl, { jsonEscaped: true })).toBe(records.length > 0);
        },
      ),
    );
  });

  it('reads a JSON-escaped locator and a known hint with ". " in a JSON line', () => {
    const hint = 'Use "spill_read". Then grep.';
    const notice = { omittedBytes: 42, locator: 'C:\\tmp\\a "b".txt', retrievalHint: hint };
    const line = JSON.stringify({ content: `head\n\n${formatSpillNotice(notice)}` });
    const found = [...findSpillNotices(line, { jsonEscaped: true, knownHints: [hint] })];
    expect(found).toMatchObject([notice]);
    expect(line.slice(found[0]?.start, found[0]?.end)).toBe(JSON.stringify(formatSpillNotice(notice)).slice(1, -1));
    // Without jsonEscaped the escapes stay, and the escaped hint is not recognised.
    const raw = [...findSpillNotices(line, { knownHints: [hint] })];
    expect(raw.map((n) => [n.locator, n.retrievalHint])).toEqual([['C:\\\\tmp\\\\a \\"b\\".txt. Use \\"spill_read\\"', 'Then grep.']]);
  });
});

describe('findSpillNotices on a text cut short (a chunk of a longer transcript)', () => {
  it('does not end a notice at a ")" inside a known hint that the text was cut in', () => {
    const odd = 'Use spill_read. Or spill_grep (by line) to search.';
    const full = `${formatSpillNotice({ omittedBytes: 3, locator: 'spill+memory://x/3', retrievalHint: odd })} end`;
    for (let cut = full.indexOf('(by line)') + 9; cut < full.length - 5; cut++) {
      expect([...findSpillNotices(full.slice(0, cut), { knownHints: [odd] })]).toEqual([]);
    }
    expect([...findSpillNotices(full, { knownHints: [odd] })].map((n) => [n.locator, n.retrievalHint])).toEqual([['spill+memory://x/3', odd]]);
  });
});

/** A ")" followed by a non-word character (or ending the string) would end a running notice early. */
function endsEarly(s: string): boolean {
  return /\)(?![A-Za-z0-9_])/.test(s);
}
const runningLocatorArb = fc
  .string({ minLength: 1, maxLength: 60, unit: 'binary' })
  .filter((s) => !OPENING_PHRASE.test(s) && !endsEarly(s));
const runningHintArb = fc.string({ maxLength: 60, unit: 'binary' }).filter((s) => !s.includes('. ') && !OPENING_PHRASE.test(s) && !endsEarly(s));