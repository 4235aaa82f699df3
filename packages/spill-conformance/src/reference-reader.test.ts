import { isSpillError, utf8ByteLength, type GrepResult, type ReadResult } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentArbitrary, grepQueryArbitrary, linesContentArbitrary, readOptionsArbitrary } from './arbitraries.js';
import {
  ReferenceArtifact,
  checkGrepResult,
  checkReadResult,
  escapeRegExp,
  referenceGrep,
  referenceRead,
  splitLines,
} from './reference-reader.js';
import { isCodePointBoundary, toStoredText } from './text.js';

describe('splitLines', () => {
  it.each([
    ['', []],
    ['a', ['a']],
    ['a\n', ['a\n']],
    ['a\nb', ['a\n', 'b']],
    ['a\nb\n', ['a\n', 'b\n']],
    ['\n\n', ['\n', '\n']],
    ['a\r\nb\rc', ['a\r\n', 'b\rc']],
  ])('splits %j into %j', (text, lines) => {
    expect(splitLines(text)).toEqual(lines);
  });

  it('joins back to the text for any content', () => {
    fc.assert(
      fc.property(contentArbitrary(), (content) => {
        expect(splitLines(content).join('')).toBe(content);
      }),
    );
  });
});

describe('referenceRead follows the ReadOptions/ReadResult contract', () => {
  it('reads everything by default', () => {
    expect(referenceRead('a\nb\n')).toEqual({ text: 'a\nb\n', startLine: 1, endLine: 2, truncated: false, hasMore: false, totalBytes: 4 });
  });

  it('counts "a\\nb" and "a\\nb\\n" as two lines and "" as none', () => {
    expect(new ReferenceArtifact('a\nb').lineCount).toBe(2);
    expect(new ReferenceArtifact('a\nb\n').lineCount).toBe(2);
    expect(new ReferenceArtifact('').lineCount).toBe(0);
  });

  it('answers empty text past the end', () => {
    expect(referenceRead('a\nb\n', { offset: 3 })).toEqual({ text: '', startLine: 3, endLine: 2, truncated: false, hasMore: false, totalBytes: 4 });
    expect(referenceRead('', {})).toEqual({ text: '', startLine: 1, endLine: 0, truncated: false, hasMore: false, totalBytes: 0 });
  });

  it('returns nothing for limit 0 and points at the offset', () => {
    expect(referenceRead('a\nb\n', { offset: 2, limit: 0 })).toEqual({
      text: '',
      startLine: 2,
      endLine: 1,
      truncated: false,
      hasMore: true,
      nextOffset: 2,
      totalBytes: 4,
    });
  });

  it('stops at the last whole line that fits in maxBytes', () => {
    expect(referenceRead('aaaa\nbbbb\ncccc\n', { maxBytes: 12 })).toEqual({
      text: 'aaaa\nbbbb\n',
      startLine: 1,
      endLine: 2,
      truncated: false,
      hasMore: true,
      nextOffset: 3,
      totalBytes: 15,
    });
  });

  it('cuts a line longer than maxBytes at the last whole code point', () => {
    expect(referenceRead('\u{1F600}\u{1F600}\n', { maxBytes: 7 })).toEqual({
      text: '\u{1F600}',
      startLine: 1,
      endLine: 1,
      truncated: true,
      hasMore: true,
      totalBytes: 9,
    });
    expect(referenceRead('abc\n', { maxBytes: 3 }).text).toBe('abc');
    expect(referenceRead('ab\u00e9', { maxBytes: 3 }).text).toBe('ab');
  });

  it('shows nothing, truncated, with no nextOffset when not even the first code point fits', () => {
    const result = new ReferenceArtifact('\u{1F600}\n').readDetailed({ maxBytes: 3 });
    expect(result.kind).toBe('nothing-fits');
    expect(result.result).toEqual({ text: '', startLine: 1, endLine: 0, truncated: true, hasMore: true, totalBytes: 5 });
    for (const maxBytes of [0, 1, 2]) {
      expect(referenceRead('\u20acabc\nx', { offset: 1, maxBytes })).toEqual({
        text: '',
        startLine: 1,
        endLine: 0,
        truncated: true,
        hasMore: true,
        totalBytes: 8,
      });
    }
    expect(referenceRead('a\n\nb', { offset: 2, maxBytes: 0 })).toEqual({ text: '', startLine: 2, endLine: 1, truncated: true, hasMore: true, totalBytes: 4 });
  });

  it('keeps CR in the line and reads lone surrogates as U+FFFD', () => {
    expect(referenceRead('a\r\nb\uD800\n', { offset: 2 }).text).toBe('b\uFFFD\n');
    expect(referenceRead('a\r\nb', { limit: 1 }).text).toBe('a\r\n');
  });

  it.each([
    { offset: 0 },
    { offset: -1 },
    { offset: 1.5 },
    { limit: -1 },
    { maxBytes: Number.NaN },
  ])('refuses %j with SPILL_INVALID_INPUT', (options) => {
    expect(() => referenceRead('a', options)).toThrow(expect.objectContaining({ code: 'SPILL_INVALID_INPUT' }) as Error);
  });

  it('never exceeds maxBytes and pages back to the whole text', () => {
    fc.assert(
      fc.property(contentArbitrary(), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 4, max: 40 }), (content, limit, maxBytes) => {
        const artifact = new ReferenceArtifact(content);
        let offset = 1;
        let text = '';
        for (let guard = 0; guard < 10_000; guard++) {
          let r = artifact.read({ offset, limit, maxBytes });
          expect(utf8ByteLength(r.text)).toBeLessThanOrEqual(maxBytes);
          expect(r.startLine).toBe(offset);
          if (r.truncated) {
            // The whole line, read with room to spare, starts with the cut.
            expect(isCodePointBoundary(r.text, r.text.length)).toBe(true);
            r = artifact.read({ offset, limit, maxBytes: artifact.totalBytes });
          }
          text += r.text;
          if (!r.hasMore) break;
          offset = r.nextOffset ?? r.endLine + 1;
        }
        expect(text).toBe(toStoredText(content));
      }),
    );
  });
});

describe('referenceGrep follows the GrepOptions/GrepMatch contract', () => {
  it('numbers matching lines from 1 and keeps CR in their text', () => {
    expect(referenceGrep('x\n\nx\r\nlast x', 'x')).toEqual({
      matches: [
        { line: 1, text: 'x', truncated: false },
        { line: 3, text: 'x\r', truncated: false },
        { line: 4, text: 'last x', truncated: false },
      ],
      limitReached: false,
      totalBytes: 12,
    });
  });

  it('has no phantom line after a final newline', () => {
    expect(referenceGrep('a\nb\n', '^').matches.map((m) => m.line)).toEqual([1, 2]);
    expect(referenceGrep('', '^').matches).toEqual([]);
  });

  it('matches literally, ignoring case when asked', () => {
    expect(referenceGrep('a.b\naxb\n', 'a.b').matches.map((m) => m.line)).toEqual([1, 2]);
    expect(referenceGrep('a.b\naxb\n', 'a.b', { literal: true }).matches.map((m) => m.line)).toEqual([1]);
    expect(referenceGrep('A.B\n', 'a.b', { literal: true, ignoreCase: true }).matches.map((m) => m.line)).toEqual([1]);
  });

  it('reports limitReached only when another matching line exists', () => {
    expect(referenceGrep('x\nx\nx\n', 'x', { maxMatches: 2 }).limitReached).toBe(true);
    expect(referenceGrep('x\nx\n', 'x', { maxMatches: 2 }).limitReached).toBe(false);
  });

  it('cuts a long line to a window around the first match, within maxLineBytes', () => {
    const match = referenceGrep(`${'a'.repeat(100)}NEEDLE${'b'.repeat(100)}`, 'NEEDLE', { maxLineBytes: 20 }).matches[0];
    expect(match?.truncated).toBe(true);
    expect(match?.text).toContain('NEEDLE');
    expect(utf8ByteLength(match?.text ?? '')).toBeLessThanOrEqual(20);
  });

  it('refuses an invalid pattern with SPILL_INVALID_PATTERN', () => {
    let error: unknown;
    try {
      referenceGrep('a', '(');
    } catch (e) {
      error = e;
    }
    expect(isSpillError(error, 'SPILL_INVALID_PATTERN')).toBe(true);
  });

  it('finds with a literal or an escaped pattern exactly the lines that contain the needle', () => {
    fc.assert(
      fc.property(linesContentArbitrary(), fc.string({ minLength: 1, maxLength: 3, unit: fc.constantFrom('a', '.', '*', '(', '$', '\\', ' ') }), (content, needle) => {
        const expected = splitLines(content)
          .map((line, i) => (line.replace(/\n$/, '').includes(needle) ? i + 1 : 0))
          .filter((n) => n > 0);
        const options = { maxMatches: 1000 };
        expect(referenceGrep(content, needle, { ...options, literal: true }).matches.map((m) => m.line)).toEqual(expected);
        expect(referenceGrep(content, escapeRegExp(needle), options).matches.map((m) => m.line)).toEqual(expected);
      }),
    );
  });
});

describe('checkReadResult', () => {
  it('accepts the reference answer for any content and options', () => {
    fc.assert(
      fc.property(
        contentArbitrary().chain((c) => fc.tuple(fc.constant(c), readOptionsArbitrary(new ReferenceArtifact(c).lineCount))),
        ([content, options]) => {
          expect(checkReadResult(content, options, referenceRead(content, options))).toEqual([]);
        },
      ),
    );
  });

  const base: ReadResult = { text: 'aaaa\nbbbb\n', startLine: 1, endLine: 2, truncated: false, hasMore: true, nextOffset: 3, totalBytes: 15 };
  it.each<[string, Partial<ReadResult>]>([
    ['a wrong text', { text: 'aaaa\nbbbx\n' }],
    ['a wrong endLine', { endLine: 3 }],
    ['a wrong hasMore', { hasMore: false }],
    ['a missing nextOffset', { nextOffset: undefined as unknown as number }],
    ['a wrong totalBytes', { totalBytes: 14 }],
    ['a wrong startLine', { startLine: 2 }],
  ])('reports %s', (_label, change) => {
    expect(checkReadResult('aaaa\nbbbb\ncccc\n', { maxBytes: 12 }, { ...base, ...change })).not.toEqual([]);
  });

  it('reports text over maxBytes', () => {
    const problems = checkReadResult('aaaa\nbbbb\ncccc\n', { maxBytes: 12 }, { ...base, text: 'aaaa\nbbbb\nccc', endLine: 3 });
    expect(problems.some((p) => p.includes('more than maxBytes'))).toBe(true);
  });

  it('reports a nextOffset, a false truncated or a wrong endLine when nothing fits', () => {
    const content = '\u20acabc\nx';
    const right = { text: '', startLine: 1, endLine: 0, truncated: true, hasMore: true, totalBytes: 8 };
    expect(checkReadResult(content, { offset: 1, maxBytes: 2 }, right)).toEqual([]);
    // What @spillway/memory answered before the fix: a client paging by nextOffset looped.
    const looping = { ...right, truncated: false, nextOffset: 1 };
    const problems = checkReadResult(content, { offset: 1, maxBytes: 2 }, looping);
    expect(problems.some((p) => p.startsWith('nextOffset is 1'))).toBe(true);
    expect(problems.some((p) => p.startsWith('truncated is false'))).toBe(true);
    expect(checkReadResult(content, { offset: 1, maxBytes: 2 }, { ...right, endLine: 1 })).not.toEqual([]);
    expect(checkReadResult(content, { offset: 1, maxBytes: 2 }, { ...right, hasMore: false })).not.toEqual([]);
  });

  it('accepts any non-empty, code-point-safe prefix of an over-long line, and nothing else', () => {
    const content = '\u00e9\u{1F600}\u00e9\u00e9\n';
    const cut = { startLine: 1, endLine: 1, truncated: true, hasMore: true, totalBytes: 11 };
    expect(checkReadResult(content, { maxBytes: 8 }, { ...cut, text: '\u00e9\u{1F600}\u00e9' })).toEqual([]);
    expect(checkReadResult(content, { maxBytes: 8 }, { ...cut, text: '\u00e9' })).toEqual([]);
    expect(checkReadResult(content, { maxBytes: 8 }, { ...cut, text: '\u00e9\uD83D' })).not.toEqual([]);
    expect(checkReadResult(content, { maxBytes: 8 }, { ...cut, text: '' })).not.toEqual([]);
    expect(checkReadResult(content, { maxBytes: 8 }, { ...cut, text: 'x' })).not.toEqual([]);
  });
});

describe('checkGrepResult', () => {
  it('accepts the reference answer for any content and query', () => {
    fc.assert(
      fc.property(
        linesContentArbitrary().chain((c) => fc.tuple(fc.constant(c), grepQueryArbitrary(c))),
        ([content, { pattern, options }]) => {
          expect(checkGrepResult(content, pattern, options, referenceGrep(content, pattern, options))).toEqual([]);
        },
      ),
    );
  });

  const line = `${'a'.repeat(50)}NEEDLE${'b'.repeat(50)}`;
  const answer = (text: string, truncated = true): GrepResult => ({ matches: [{ line: 1, text, truncated }], limitReached: false, totalBytes: 106 });

  it('accepts any window of the line within maxLineBytes that holds the match', () => {
    expect(checkGrepResult(line, 'NEEDLE', { maxLineBytes: 20 }, answer('NEEDLE'))).toEqual([]);
    expect(checkGrepResult(line, 'NEEDLE', { maxLineBytes: 20 }, answer('aaaaNEEDLEbbbb'))).toEqual([]);
  });

  it.each<[string, GrepResult]>([
    ['a window without the match', answer('aaaaaaaaaa')],
    ['a window over maxLineBytes', answer('aaaaaaaaaaaaNEEDLEbbbbbbbbbbbb')],
    ['text that is not from the line', answer('xxNEEDLExx')],
    ['a cut line not marked truncated', answer('aaNEEDLEbb', false)],
    ['a wrong line number', { matches: [{ line: 2, text: 'NEEDLE', truncated: true }], limitReached: false, totalBytes: 106 }],
  ])('reports %s', (_label, actual) => {
    expect(checkGrepResult(line, 'NEEDLE', { maxLineBytes: 20 }, actual)).not.toEqual([]);
  });

  it('lets limitReached be either value when exactly maxMatches lines match, and only then', () => {
    const exactly = (limitReached: boolean): GrepResult => ({
      matches: [1, 2].map((n) => ({ line: n, text: 'x', truncated: false })),
      limitReached,
      totalBytes: 4,
    });
    expect(checkGrepResult('x\nx\n', 'x', { maxMatches: 2 }, exactly(true))).toEqual([]);
    expect(checkGrepResult('x\nx\n', 'x', { maxMatches: 2 }, exactly(false))).toEqual([]);
    expect(checkGrepResult('x\nx\n', 'x', { maxMatches: 3 }, exactly(true))).not.toEqual([]);
  });
});
