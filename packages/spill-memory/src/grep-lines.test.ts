import { DEFAULT_GREP_MAX_LINE_BYTES, DEFAULT_GREP_MAX_MATCHES, isSpillError, utf8ByteLength } from '@spillway/core';
import type { GrepOptions } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grepBytes, matchWindow } from './grep-lines.js';
import { createMemoryBackend } from './index.js';
import { planRegex } from './pattern-guard.js';
import { rejection, request, wellFormed } from './test-helpers.js';

async function saved(content: string) {
  const backend = createMemoryBackend();
  const ref = await backend.saveText(request(content));
  return (pattern: string, options?: GrepOptions) => backend.reader.grep(ref.locator, pattern, options);
}

/** The oracle: split the stored text into lines and test each with a fresh RegExp. */
function naiveLines(content: string, pattern: string, flags = ''): number[] {
  const text = wellFormed(content);
  const lines = text.split('\n');
  if (text.endsWith('\n') || text === '') lines.pop();
  return lines.flatMap((line, i) => (new RegExp(pattern, flags).test(line) ? [i + 1] : []));
}

describe('grep: matching', () => {
  it('numbers lines from 1, counting empty and CRLF lines, and keeps CR in the text', async () => {
    const grep = await saved('x\r\n\nfoo\r\nbar\nfoo');
    const result = await grep('foo');
    expect(result.matches).toEqual([
      { line: 3, text: 'foo\r', truncated: false },
      { line: 5, text: 'foo', truncated: false },
    ]);
    expect(result.totalBytes).toBe(16);
  });

  it('treats the pattern as a regular expression, or as text with literal', async () => {
    const grep = await saved('a.c\nabc\n(x)\n');
    expect((await grep('a.c')).matches.map((m) => m.line)).toEqual([1, 2]);
    expect((await grep('a.c', { literal: true })).matches.map((m) => m.line)).toEqual([1]);
    expect((await grep('(x)', { literal: true })).matches.map((m) => m.line)).toEqual([3]);
    expect((await grep('(', { literal: true })).matches.map((m) => m.line)).toEqual([3]);
  });

  it('ignores case when asked, for regexes and literals', async () => {
    const grep = await saved('Error\nerror\nERROR.\nnone\n');
    expect((await grep('error', { ignoreCase: true })).matches.map((m) => m.line)).toEqual([1, 2, 3]);
    expect((await grep('error.', { ignoreCase: true, literal: true })).matches.map((m) => m.line)).toEqual([3]);
    expect((await grep('error')).matches.map((m) => m.line)).toEqual([2]);
  });

  it('finds nothing in an empty artifact, and an empty pattern matches every line', async () => {
    expect((await (await saved(''))('x')).matches).toEqual([]);
    expect((await (await saved('a\n\nb\n'))('')).matches.map((m) => m.line)).toEqual([1, 2, 3]);
  });

  it('matches a leading BOM and U+FFFD as stored', async () => {
    const grep = await saved('\uFEFFhead\nlone \uD800 here\n');
    expect((await grep('^\uFEFF')).matches.map((m) => m.line)).toEqual([1]);
    expect((await grep('\uFFFD', { literal: true })).matches.map((m) => m.line)).toEqual([2]);
  });
});

describe('grep: limits', () => {
  it('stops at maxMatches and reports limitReached only when another match exists', async () => {
    const grep = await saved('a\nb\na\nb\na\n');
    expect(await grep('a', { maxMatches: 2 })).toMatchObject({ limitReached: true });
    expect((await grep('a', { maxMatches: 2 })).matches.map((m) => m.line)).toEqual([1, 3]);
    expect(await grep('a', { maxMatches: 3 })).toMatchObject({ limitReached: false });
    expect(await grep('a', { maxMatches: 0 })).toMatchObject({ matches: [], limitReached: true });
    expect(await grep('z', { maxMatches: 0 })).toMatchObject({ matches: [], limitReached: false });
  });

  it(`returns at most ${DEFAULT_GREP_MAX_MATCHES} matches by default`, async () => {
    const grep = await saved('hit\n'.repeat(DEFAULT_GREP_MAX_MATCHES + 1));
    const result = await grep('hit');
    expect(result.matches).toHaveLength(DEFAULT_GREP_MAX_MATCHES);
    expect(result.limitReached).toBe(true);
  });

  it(`cuts a long line to ${DEFAULT_GREP_MAX_LINE_BYTES} bytes around the first match`, async () => {
    const line = `${'a'.repeat(5000)}NEEDLE${'b'.repeat(5000)}`;
    const [match] = (await (await saved(line))('NEEDLE')).matches;
    expect(match?.truncated).toBe(true);
    expect(match?.text).toContain('NEEDLE');
    expect(utf8ByteLength(match?.text ?? '')).toBeLessThanOrEqual(DEFAULT_GREP_MAX_LINE_BYTES);
    expect(line).toContain(match?.text);
  });

  const bad: readonly [string, GrepOptions][] = [
    ['a negative maxMatches', { maxMatches: -1 }],
    ['a fractional maxMatches', { maxMatches: 1.5 }],
    ['a negative maxLineBytes', { maxLineBytes: -1 }],
    ['a NaN timeoutMs', { timeoutMs: Number.NaN }],
    ['a negative timeoutMs', { timeoutMs: -5 }],
    ['a string ignoreCase', { ignoreCase: 'yes' as never }],
    ['a numeric literal flag', { literal: 1 as never }],
  ];
  for (const [label, options] of bad) {
    it(`rejects ${label} with SPILL_INVALID_INPUT`, async () => {
      const grep = await saved('a\n');
      expect(isSpillError(await rejection(grep('a', options)), 'SPILL_INVALID_INPUT')).toBe(true);
    });
  }

  it('rejects a pattern that is not a string with SPILL_INVALID_INPUT', async () => {
    const grep = await saved('a\n');
    expect(isSpillError(await rejection(grep(42 as never)), 'SPILL_INVALID_INPUT')).toBe(true);
  });

  it('rejects an invalid regex with SPILL_INVALID_PATTERN', async () => {
    const grep = await saved('a\n');
    for (const pattern of ['(', '[', 'a{2,1}', '*', 'a\\', '(?<name']) {
      expect(isSpillError(await rejection(grep(pattern)), 'SPILL_INVALID_PATTERN')).toBe(true);
      await expect(grep(pattern, { literal: true })).resolves.toBeDefined();
    }
  });
});

describe('grep: content spanning many decode blocks', () => {
  it('numbers lines right across block edges and through a line longer than a block', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 60_000; i++) lines.push(i % 997 === 0 ? `marker ${i} é😀` : `filler ${'x'.repeat(i % 80)}`);
    lines.splice(30_000, 0, `${'y'.repeat(1_500_000)} marker in a huge line`);
    const content = `${lines.join('\n')}\n`;
    const grep = await saved(content);
    const expected = lines.flatMap((line, i) => (line.includes('marker') ? [i + 1] : []));
    const options = { maxMatches: 10_000, timeoutMs: 60_000 };
    expect((await grep('marker', { ...options, literal: true })).matches.map((m) => m.line)).toEqual(expected);
    expect((await grep('mark(?:er)', options)).matches.map((m) => m.line)).toEqual(expected);
    expect((await grep('MARKER', { ...options, literal: true, ignoreCase: true })).matches.map((m) => m.line)).toEqual(expected);
  });
});

describe('grep: long lines are searched in windows', () => {
  it('finds a match far beyond the first window of a long line, with ^ and $ only at the true ends', async () => {
    const plan = planRegex('\\d+\\d+x', false);
    const w = plan.window;
    const long = `${'-'.repeat(w * 3)}12x${'-'.repeat(w * 2)}`;
    const grep = await saved(`${long}\n^start ${'y'.repeat(w * 3)} end$\n`);
    expect((await grep('\\d+\\d+x')).matches.map((m) => m.line)).toEqual([1]);
    expect((await grep('^-{3}')).matches.map((m) => m.line)).toEqual([1]);
    expect((await grep('-$')).matches.map((m) => m.line)).toEqual([1]);
    // A window boundary inside line 2 is not a line start or end.
    expect((await grep('^y|y$')).matches).toEqual([]);
    expect((await grep('^\\^start')).matches.map((m) => m.line)).toEqual([2]);
    expect((await grep('end\\$$')).matches.map((m) => m.line)).toEqual([2]);
  });

  it('sees the real neighbour of a window edge for \\b', async () => {
    const plan = planRegex('\\bq\\d+', false);
    const w = plan.window;
    // A run of word characters crosses every window edge: \bq must not match inside it.
    const grep = await saved(`${'aq1'.repeat(w)}\n`);
    expect((await grep('\\bq\\d+')).matches).toEqual([]);
  });
});

describe('grep: the time budget and the event loop', () => {
  it('rejects with SPILL_TIMEOUT when the budget runs out', async () => {
    const grep = await saved('some log line with words in it\n'.repeat(400_000));
    const error = await rejection(grep('words?\\s+in\\s+\\w+z', { timeoutMs: 1 }));
    expect(isSpillError(error, 'SPILL_TIMEOUT')).toBe(true);
  });

  it('reports limitReached instead of a timeout when time runs out while looking past maxMatches', async () => {
    // A clock that moves 1 ms per reading makes the budget run out at a known point. The
    // clock is read once per regex window of text, so filler lines are a window long.
    const pattern = 'hit|q\\d+\\d+z';
    const filler = `${'-'.repeat(planRegex(pattern, false).window)}\n`;
    const bytes = new TextEncoder().encode(`hit\n${filler.repeat(100)}hit\n`);
    let t = 0;
    const params = { pattern, literal: false, ignoreCase: false, maxLineBytes: 512, signal: undefined, clock: () => (t += 1) };
    const result = await grepBytes(bytes, { ...params, maxMatches: 1, timeoutMs: 20 });
    expect(result.matches.map((m) => m.line)).toEqual([1]);
    expect(result.limitReached).toBe(true);
    t = 0;
    const error = await rejection(grepBytes(bytes, { ...params, maxMatches: 5, timeoutMs: 20 }));
    expect(isSpillError(error, 'SPILL_TIMEOUT')).toBe(true);
    t = 0;
    const roomy = await grepBytes(bytes, { ...params, maxMatches: 5, timeoutMs: 10_000 });
    expect(roomy).toMatchObject({ limitReached: false });
    expect(roomy.matches.map((m) => m.line)).toEqual([1, 102]);
  });

  it('checks the budget between the hits of a literal search too', async () => {
    let t = 0;
    const bytes = new TextEncoder().encode('hit\n'.repeat(1000));
    const params = { pattern: 'hit', literal: true, ignoreCase: false, maxLineBytes: 512, signal: undefined, clock: () => (t += 1) };
    const error = await rejection(grepBytes(bytes, { ...params, maxMatches: 10_000, timeoutMs: 50 }));
    expect(isSpillError(error, 'SPILL_TIMEOUT')).toBe(true);
  });

  it('gives the event loop a turn during a long grep, and stops on abort', async () => {
    const grep = await saved('some log line with words in it\n'.repeat(1_000_000));
    const controller = new AbortController();
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
      if (ticks === 2) controller.abort(new Error('enough'));
    }, 1);
    const error = await rejection(grep('nothing matches this', { signal: controller.signal, timeoutMs: 60_000 }));
    clearInterval(timer);
    expect(ticks).toBeGreaterThanOrEqual(2);
    expect(isSpillError(error, 'SPILL_ABORTED')).toBe(true);
  });
});

describe('grep: properties', () => {
  const unit = fc.constantFrom('a', 'b', 'A', ' ', '1', '.', '\n', '\r', 'é', '😀', '\uD800', '-');
  const safePattern = fc.constantFrom(
    'a',
    'ab',
    'a.b',
    '^a',
    'b$',
    'a+',
    'a*b',
    '\\d',
    '[ab]+1',
    '\\s',
    '^$',
    '\\ba',
    '(?:ab|1)+',
    'a|b',
    '\\.',
    '[^a]',
    'é',
    '\\uFFFD',
    'a.*1',
  );

  it('finds exactly the lines a naive split and RegExp find, for safe patterns', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit, maxLength: 200 }), safePattern, fc.boolean(), async (content, pattern, ignoreCase) => {
        const grep = await saved(content);
        const result = await grep(pattern, { ignoreCase, maxMatches: 1000 });
        expect(result.matches.map((m) => m.line)).toEqual(naiveLines(content, pattern, ignoreCase ? 'i' : ''));
        expect(result.limitReached).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('finds exactly the lines that contain a literal needle', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit, maxLength: 200 }), fc.string({ unit, minLength: 1, maxLength: 3 }), async (content, needle) => {
        fc.pre(!needle.includes('\n'));
        const grep = await saved(content);
        const result = await grep(needle, { literal: true, maxMatches: 1000 });
        // The needle is searched as given: a lone surrogate in it never matches the stored U+FFFD.
        expect(result.matches.map((m) => m.line)).toEqual(naiveLines(content, needle.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')));
      }),
      { numRuns: 300 },
    );
  });
});

describe('matchWindow', () => {
  it('keeps a fitting line whole, and otherwise cuts a code-point-safe window that holds the match', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\uD800', 'x'), minLength: 1, maxLength: 120 }),
        fc.nat(),
        fc.nat({ max: 8 }),
        fc.integer({ min: 0, max: 80 }),
        (line, at, len, maxBytes) => {
          const index = at % line.length;
          const length = Math.min(len, line.length - index);
          const { text, truncated } = matchWindow(line, { index, length }, maxBytes);
          expect(utf8ByteLength(text) <= maxBytes || !truncated).toBe(true);
          if (!truncated) {
            expect(text).toBe(line);
            return;
          }
          expect(utf8ByteLength(text)).toBeLessThanOrEqual(maxBytes);
          expect(line.includes(text)).toBe(true);
          // No half of a surrogate pair at either edge.
          expect(wellFormed(text)).toBe(wellFormed(text.normalize()));
          const match = line.slice(index, index + length);
          if (utf8ByteLength(match) + 4 <= maxBytes && text.length > 0) expect(text).toContain(match);
        },
      ),
      { numRuns: 500 },
    );
  });
});
