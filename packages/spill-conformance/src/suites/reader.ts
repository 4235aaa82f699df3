import {
  MAX_GREP_PATTERN_LENGTH,
  type SpillErrorCode,
  type GrepOptions,
  type GrepResult,
  type ReadOptions,
  type ReadResult,
  type SpillLocator,
  type SpillReader,
  type SpillRef,
  utf8ByteLength,
} from '@spillway/core';
import { describe } from 'vitest';
import { expectSpillErrorCode, expectSpillRejection, fail, readWhole, withHarness, type Harness } from '../harness.js';
import type { ResolvedConformanceOptions, SpillBackendFixture } from '../options.js';
import { checkGrepResult, checkReadResult, escapeRegExp } from '../reference-reader.js';
import { testDefiner } from './define-test.js';

function show(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
}

function preview(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

/** Hand-written expectations; `nextOffset: undefined` means "absent". */
type ExpectedRead = { readonly [K in keyof ReadResult]?: ReadResult[K] | undefined };

/** Reads and compares with the reference reader and, when given, hand-written expectations. */
async function expectRead(
  reader: SpillReader,
  ref: SpillRef,
  content: string,
  options: ReadOptions,
  expected: ExpectedRead = {},
): Promise<ReadResult> {
  const result = await reader.read(ref.locator, options);
  const problems = checkReadResult(content, options, result);
  for (const [key, value] of Object.entries(expected)) {
    const actual = result[key as keyof ReadResult];
    if (actual !== value) problems.push(`${key} is ${show(actual)}, expected ${show(value)}`);
  }
  if (problems.length > 0) fail(`read(${show(options)}) of ${preview(content)}: ${problems.join('; ')}`);
  return result;
}

/** Greps and compares with the reference grep and, when given, the expected line numbers. */
async function expectGrep(
  reader: SpillReader,
  ref: SpillRef,
  content: string,
  pattern: string,
  options: GrepOptions,
  lines?: readonly number[],
): Promise<GrepResult> {
  const result = await reader.grep(ref.locator, pattern, options);
  const problems = checkGrepResult(content, pattern, options, result);
  const got = result.matches.map((m) => m.line);
  if (lines !== undefined && show(got) !== show(lines)) problems.push(`matched lines ${show(got)}, expected ${show(lines)}`);
  if (problems.length > 0) fail(`grep(${show(pattern)}, ${show(options)}) of ${preview(content)}: ${problems.join('; ')}`);
  return result;
}

/** Where each line of `content` starts, in UTF-8 bytes (what a search index records for `offsetByte`). */
function lineStarts(content: string): number[] {
  const starts: number[] = [];
  let at = 0;
  for (const line of content.split(/(?<=\n)/)) {
    if (line === '') continue;
    starts.push(at);
    at += utf8ByteLength(line);
  }
  return starts;
}

function linesContaining(content: string, needle: string): number[] {
  return content
    .split('\n')
    .slice(0, content.endsWith('\n') ? -1 : undefined)
    .flatMap((line, i) => (line.includes(needle) ? [i + 1] : []));
}

function parentOf(locator: string): string {
  const slash = locator.lastIndexOf('/');
  return slash === -1 ? locator : locator.slice(0, slash);
}

function lastSegment(locator: string): string {
  return locator.slice(locator.lastIndexOf('/') + 1);
}

/**
 * Locators a model could make up, derived from a real one (`real`) and one issued by
 * another instance (`foreign`). Spellings that a path-based backend may legitimately
 * normalise to the same artifact (a trailing slash) are left out: only locators that name
 * something else, or nothing, must be refused.
 */
export const FORGED_LOCATORS: readonly (readonly [label: string, make: (real: string, foreign: string) => string])[] = [
  ['the empty string', () => ''],
  ['a space', () => ' '],
  ['a bare word', () => 'artifact'],
  ['/etc/passwd', () => '/etc/passwd'],
  ['a relative traversal', () => '../../../../../../etc/passwd'],
  ['a Windows path', () => 'C:\\Windows\\win.ini'],
  ['a file URL', () => 'file:///etc/passwd'],
  ['a NUL byte', () => '\u0000'],
  ['a traversal appended to the real locator', (real) => `${real}/../../../../../../etc/passwd`],
  ["a traversal from the real locator's parent", (real) => `${parentOf(real)}/../../../../../../etc/passwd`],
  ["a sibling of the real locator's parent that shares its prefix", (real) => `${parentOf(real)}-evil/${lastSegment(real)}`],
  ["the real locator's parent", (real) => parentOf(real)],
  ["the real locator's last segment alone", (real) => lastSegment(real)],
  ['the real locator with a character appended', (real) => `${real}x`],
  ['the real locator without its last character', (real) => real.slice(0, -1)],
  ['the real locator with its last character changed', (real) => real.slice(0, -1) + (real.endsWith('a') ? 'b' : 'a')],
  ['the real locator with a NUL appended', (real) => `${real}\u0000`],
  ['a locator issued by another instance of the backend', (_real, foreign) => foreign],
];

export const NON_STRING_LOCATORS: readonly (readonly [label: string, value: unknown])[] = [
  ['a number', 42],
  ['null', null],
  ['undefined', undefined],
  ['an object', { locator: 'x' }],
];

/** Registers the reader tests (skipped when the backend declares no reader). */
export function describeReader<F extends SpillBackendFixture>(options: ResolvedConformanceOptions<F>): void {
  const test = testDefiner(options);

  describe('reader.read', () => {
    test('returns a small artifact whole with default options', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'first\nsecond\n';
      await expectRead(reader, await h.save(content), content, {}, {
        text: content,
        startLine: 1,
        endLine: 2,
        truncated: false,
        hasMore: false,
        nextOffset: undefined,
        totalBytes: 13,
      });
    });

    test('counts a final line without a newline, and a trailing newline starts no new line', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const open = 'a\nb';
      await expectRead(reader, await h.save(open), open, { offset: 2 }, { text: 'b', endLine: 2, hasMore: false });
      const closed = 'a\nb\n';
      const ref = await h.save(closed);
      await expectRead(reader, ref, closed, { offset: 2 }, { text: 'b\n', endLine: 2, hasMore: false });
      await expectRead(reader, ref, closed, { offset: 3 }, { text: '', startLine: 3, endLine: 2, hasMore: false });
    });

    test('answers empty text, not an error, for an offset past the end', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'a\nb\n';
      await expectRead(reader, await h.save(content), content, { offset: 10 }, {
        text: '',
        startLine: 10,
        endLine: 9,
        truncated: false,
        hasMore: false,
        nextOffset: undefined,
        totalBytes: 4,
      });
    });

    test('answers empty text for an empty artifact', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      await expectRead(reader, await h.save(''), '', {}, { text: '', startLine: 1, endLine: 0, hasMore: false, totalBytes: 0 });
    });

    test('returns no line for limit 0 and points at the offset to continue', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'a\nb\nc\n';
      await expectRead(reader, await h.save(content), content, { offset: 2, limit: 0 }, {
        text: '',
        startLine: 2,
        endLine: 1,
        hasMore: true,
        nextOffset: 2,
      });
    });

    test('keeps CRLF and a bare CR inside the lines it returns', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'a\r\nb\r\nc\rd\n';
      const ref = await h.save(content);
      await expectRead(reader, ref, content, { offset: 2, limit: 1 }, { text: 'b\r\n', endLine: 2, hasMore: true, nextOffset: 3 });
      await expectRead(reader, ref, content, { offset: 3 }, { text: 'c\rd\n', endLine: 3, hasMore: false });
    });

    test('answers from offsetByte as from offset when it is where line offset starts', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'first\n\u00e9t\u00e9\r\n\u{1F600} x\n\nlast line\nno newline';
      const ref = await h.save(content);
      const starts = lineStarts(content);
      for (let offset = 1; offset <= starts.length; offset++) {
        for (const limit of [1, 3]) {
          const plain = await expectRead(reader, ref, content, { offset, limit });
          const hinted = await expectRead(reader, ref, content, { offset, limit, offsetByte: starts[offset - 1] ?? 0 });
          if (show(hinted) !== show(plain)) fail(`read at line ${String(offset)} with its offsetByte answered ${show(hinted)}, without it ${show(plain)}`);
        }
        await expectRead(reader, ref, content, { offset, maxBytes: 3, offsetByte: starts[offset - 1] ?? 0 });
      }
    });

    test('ignores an offsetByte inside a line, at 0 for a later line, or at or past the end', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'alpha\nbeta\ngamma';
      const ref = await h.save(content);
      for (const offsetByte of [1, 7, 10, 0, 16, 17, 1000]) {
        await expectRead(reader, ref, content, { offset: 3, limit: 1, offsetByte }, { text: 'gamma', startLine: 3, endLine: 3 });
      }
    });

    test('answers the lines from an offsetByte that starts another line, numbered from offset, and later reads as before', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'one\ntwo\nthree\nfour\n';
      const ref = await h.save(content);
      await expectRead(reader, ref, content, { offset: 2, limit: 2, offsetByte: 8 }, { text: 'three\nfour\n', startLine: 2, endLine: 3, hasMore: false });
      await expectRead(reader, ref, content, { offset: 3, limit: 1, offsetByte: 4 }, { text: 'two\n', startLine: 3, endLine: 3, hasMore: true, nextOffset: 4 });
      // What one read was told about a position must not change what later reads answer.
      await expectRead(reader, ref, content, { offset: 4 }, { text: 'four\n', startLine: 4, endLine: 4 });
      await expectRead(reader, ref, content, { offset: 2, limit: 1, offsetByte: 8 }, { text: 'three\n' });
      for (let offset = 5; offset >= 1; offset--) await expectRead(reader, ref, content, { offset, limit: 1 });
    });

    test('stops at a line end when whole lines fit in maxBytes', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'aaaa\nbbbb\ncccc\n';
      const ref = await h.save(content);
      await expectRead(reader, ref, content, { maxBytes: 12 }, { text: 'aaaa\nbbbb\n', endLine: 2, truncated: false, hasMore: true, nextOffset: 3 });
      await expectRead(reader, ref, content, { maxBytes: 15 }, { text: content, endLine: 3, hasMore: false });
    });

    const longLines: readonly (readonly [label: string, line: string, maxBytes: number])[] = [
      ['ASCII', `${'x'.repeat(100)}\n`, 10],
      ['two-byte characters', `${'\u00e9'.repeat(50)}\n`, 7],
      ['emoji', `${'\u{1F600}'.repeat(10)}\n`, 6],
      ['mixed widths', `ab\u{1F600}\u4e2d\u00e9\n`, 5],
      ['its own newline (only the newline does not fit)', 'abcd\n', 4],
    ];
    for (const [label, line, maxBytes] of longLines) {
      test(`cuts a single line of ${label} longer than maxBytes without splitting a code point`, async (h, ctx) => {
        const reader = h.requireReader(ctx);
        const content = `${line}next line\n`;
        const result = await expectRead(reader, await h.save(content), content, { maxBytes }, {
          startLine: 1,
          endLine: 1,
          truncated: true,
          hasMore: true,
          nextOffset: undefined,
        });
        if (!line.startsWith(result.text)) fail(`the cut ${preview(result.text)} is not a prefix of the line`);
      });
    }

    test('answers nothing-fits when maxBytes is smaller than the first character: empty, truncated, no nextOffset', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      // "€" is 3 bytes: with maxBytes 0, 1 or 2 not even it fits. Offering nextOffset here
      // (the line just read) would make a client paging by nextOffset loop forever.
      const content = '\u20acabc\nx';
      const ref = await h.save(content);
      for (const maxBytes of [0, 1, 2]) {
        await expectRead(reader, ref, content, { offset: 1, maxBytes }, {
          text: '',
          startLine: 1,
          endLine: 0,
          truncated: true,
          hasMore: true,
          nextOffset: undefined,
          totalBytes: 8,
        });
      }
      await expectRead(reader, ref, content, { offset: 1, maxBytes: 3 }, { text: '\u20ac', endLine: 1, truncated: true, nextOffset: undefined });
      const blank = 'a\n\nb\n';
      await expectRead(reader, await h.save(blank), blank, { offset: 2, maxBytes: 0 }, {
        text: '',
        startLine: 2,
        endLine: 1,
        truncated: true,
        hasMore: true,
        nextOffset: undefined,
      });
    });

    test('returns the stored text: lone surrogates come back as U+FFFD', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'a\uD800\nb\uDFFF\uD83D\n';
      await expectRead(reader, await h.save(content), content, {}, { text: 'a\uFFFD\nb\uFFFD\uFFFD\n', totalBytes: 13 });
    });

    test('stops at 2000 lines by default', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}\n`).join('');
      await expectRead(reader, await h.save(content), content, {}, { endLine: 2000, hasMore: true, nextOffset: 2001 });
    });

    test('stops at 32 KiB by default, at a line end', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = `${'y'.repeat(99)}\n`.repeat(1000);
      await expectRead(reader, await h.save(content), content, {}, { endLine: 327, truncated: false, hasMore: true, nextOffset: 328 });
    });

    test('gives back the whole artifact when read in pages through nextOffset', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = `short\n\n${'long line '.repeat(30)}\r\n\u00e9\u{1F600}\u4e2d\nlast without newline`;
      const ref = await h.save(content);
      for (const page of [{ lines: 1, bytes: 8 }, { lines: 2, bytes: 50 }, { lines: 3, bytes: 1000 }]) {
        const text = await readWhole(reader, ref.locator, page);
        if (text !== content) fail(`reading in pages of ${show(page)} gave back ${preview(text)}`);
      }
    });

    test('reports the exact totalBytes at every offset', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'a\n\u00e9\n\u{1F600}\n\uD800\n';
      const ref = await h.save(content);
      for (let offset = 1; offset <= 6; offset++) await expectRead(reader, ref, content, { offset, limit: 1 }, { totalBytes: 14 });
    });

    const badOptions: readonly (readonly [label: string, options: ReadOptions])[] = [
      ['offset 0', { offset: 0 }],
      ['a negative offset', { offset: -1 }],
      ['a fractional offset', { offset: 1.5 }],
      ['a NaN offset', { offset: Number.NaN }],
      ['a negative limit', { limit: -1 }],
      ['a fractional limit', { limit: 2.5 }],
      ['a negative maxBytes', { maxBytes: -1 }],
      ['a NaN maxBytes', { maxBytes: Number.NaN }],
      ['a negative offsetByte', { offset: 2, offsetByte: -1 }],
      ['a fractional offsetByte', { offset: 2, offsetByte: 2.5 }],
      ['a string offsetByte', { offset: 2, offsetByte: '2' as unknown as number }],
    ];
    for (const [label, readOptions] of badOptions) {
      test(`rejects ${label} with SPILL_INVALID_INPUT`, async (h, ctx) => {
        const reader = h.requireReader(ctx);
        const ref = await h.save('a\nb\n');
        await expectSpillRejection(`read with ${label}`, 'SPILL_INVALID_INPUT', () => reader.read(ref.locator, readOptions));
      });
    }

    test('rejects with SPILL_ABORTED when the signal has already fired', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const ref = await h.save('a\nb\n');
      const signal = AbortSignal.abort();
      await expectSpillRejection('read with an aborted signal', 'SPILL_ABORTED', () => reader.read(ref.locator, { signal }));
      await expectSpillRejection('grep with an aborted signal', 'SPILL_ABORTED', () => reader.grep(ref.locator, 'a', { signal }));
    });
  });

  describe('reader.grep', () => {
    const special = [
      'price: $100 (approx.)',
      'regex: a.b a*b a+b?',
      'brackets [x] {1,2} (y)',
      'pipe a|b and caret ^up',
      'path C:\\dir\\file',
      'axb plain',
      'slash /x/ end$',
    ].join('\n') + '\n';
    const needles = ['$100', '(approx.)', 'a.b', 'a*b', 'a+b?', '[x]', '{1,2}', '(y)', 'a|b', '^up', 'C:\\dir\\file', '/x/', 'end$', '.', '\\'];

    test('finds regular-expression syntax characters literally with literal: true', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const ref = await h.save(special);
      for (const needle of needles) await expectGrep(reader, ref, special, needle, { literal: true }, linesContaining(special, needle));
    });

    test('finds the same lines with an escaped regular expression', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const ref = await h.save(special);
      for (const needle of needles) await expectGrep(reader, ref, special, escapeRegExp(needle), {}, linesContaining(special, needle));
    });

    test('treats the pattern as a regular expression by default', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const ref = await h.save(special);
      await expectGrep(reader, ref, special, 'a.b', {}, [2, 4, 6]);
      await expectGrep(reader, ref, special, '^(path|axb)', {}, [5, 6]);
      await expectGrep(reader, ref, special, '\\$$', {}, [7]);
      await expectGrep(reader, ref, special, '\\d+', {}, [1, 3]);
    });

    test('matches regardless of case with ignoreCase', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'Hello\nhello\nHELLO\nhelp\n';
      const ref = await h.save(content);
      await expectGrep(reader, ref, content, 'hello', {}, [2]);
      await expectGrep(reader, ref, content, 'hello', { ignoreCase: true }, [1, 2, 3]);
      await expectGrep(reader, ref, content, 'HeLLo', { ignoreCase: true, literal: true }, [1, 2, 3]);
    });

    test('numbers lines from 1, counting empty and CRLF lines, with no phantom line after the final newline', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'x\n\nx\r\n\nlast x';
      const ref = await h.save(content);
      await expectGrep(reader, ref, content, 'x', {}, [1, 3, 5]);
      await expectGrep(reader, ref, content, '^$', {}, [2, 4]);
      await expectGrep(reader, ref, content, '\\r$', {}, [3]);
      const closed = 'a\nb\n';
      await expectGrep(reader, await h.save(closed), closed, '^', {}, [1, 2]);
    });

    test('stops at maxMatches and says so with limitReached', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = Array.from({ length: 10 }, (_, i) => `hit ${i}\nmiss\n`).join('');
      const ref = await h.save(content);
      const three = await expectGrep(reader, ref, content, 'hit', { maxMatches: 3 }, [1, 3, 5]);
      if (!three.limitReached) fail('limitReached is false although 10 lines match and maxMatches is 3');
      const all = await expectGrep(reader, ref, content, 'hit', { maxMatches: 11 });
      if (all.limitReached) fail('limitReached is true although all 10 matches fit in maxMatches 11');
      await expectGrep(reader, ref, content, 'hit', { maxMatches: 0 }, []);
    });

    test('returns at most 100 matches by default', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'match\n'.repeat(150);
      const result = await expectGrep(reader, await h.save(content), content, 'match', {});
      if (result.matches.length !== 100 || !result.limitReached) fail(`got ${result.matches.length} matches, limitReached ${String(result.limitReached)}`);
    });

    test('cuts a long matching line to a window that holds the first match', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = `${'a'.repeat(5000)}NEEDLE${'b'.repeat(5000)}\nshort NEEDLE\n${'\u00e9'.repeat(100)}\u{1F600}NEEDLE\u{1F600}${'\u4e2d'.repeat(100)}\n`;
      const ref = await h.save(content);
      const wide = await expectGrep(reader, ref, content, 'NEEDLE', {}, [1, 2, 3]);
      if (!wide.matches.every((m) => m.text.includes('NEEDLE'))) fail('a window does not show the match');
      await expectGrep(reader, ref, content, 'NEEDLE', { maxLineBytes: 21 }, [1, 2, 3]);
      await expectGrep(reader, ref, content, 'b+', { maxLineBytes: 40 }, [1]);
    });

    test('finds nothing in an empty artifact', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const ref = await h.save('');
      await expectGrep(reader, ref, '', 'x', {}, []);
      await expectGrep(reader, ref, '', '^', {}, []);
    });

    for (const pattern of ['(', '[', 'a{2,1}', '*', 'a\\', '(?<name']) {
      test(`rejects the invalid pattern ${show(pattern)} with SPILL_INVALID_PATTERN, and accepts it with literal: true`, async (h, ctx) => {
        const reader = h.requireReader(ctx);
        const content = `text with ${pattern} inside\nother\n`;
        const ref = await h.save(content);
        await expectSpillRejection(`grep(${show(pattern)})`, 'SPILL_INVALID_PATTERN', () => reader.grep(ref.locator, pattern));
        await expectGrep(reader, ref, content, pattern, { literal: true }, [1]);
      });
    }

    test('answers a catastrophic-backtracking pattern instead of refusing it or timing out', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      // A backtracking engine needs about 2^29 steps on the first line; RE2 needs a linear pass.
      const content = `${'a'.repeat(29)}!\n${`${'a'.repeat(20)}!\n`.repeat(200)}${'a'.repeat(40)}\n`;
      const ref = await h.save(content);
      await expectGrep(reader, ref, content, '(a+)+$', { timeoutMs: 60_000 }, [202]);
      await expectGrep(reader, ref, content, '(\\w+\\s?)+!', { timeoutMs: 60_000, maxMatches: 2 }, [1, 2]);
    });

    test('speaks RE2 syntax: inline flags, Unicode and POSIX classes, quoting, \\z', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'Error: disk\nerror 42\n\u00c9t\u00e9 caf\u00e9\na.b literal\nTAB\there\r\nend\n';
      const ref = await h.save(content);
      await expectGrep(reader, ref, content, '(?i)^error', {}, [1, 2]);
      await expectGrep(reader, ref, content, '^\\pL+\\s', {}, [2, 3, 5]);
      await expectGrep(reader, ref, content, '[[:digit:]]{2}', {}, [2]);
      await expectGrep(reader, ref, content, '\\Qa.b\\E', {}, [4]);
      await expectGrep(reader, ref, content, '\u00e9\\z', {}, [3]);
      await expectGrep(reader, ref, content, '(?P<w>here).$', {}, [5]);
      await expectGrep(reader, ref, content, 'e.$', {}, [5]);
      await expectGrep(reader, ref, content, '\\x{e9}', {}, [3]);
    });

    for (const pattern of ['(?=a)', '(?!a)b', '(?<=a)b', '(a)\\1', '\\k<x>', 'a++', 'a{1001}']) {
      test(`rejects ${show(pattern)}, which RE2 does not speak, with SPILL_INVALID_PATTERN, and finds it with literal: true`, async (h, ctx) => {
        const reader = h.requireReader(ctx);
        const content = `x ${pattern} y\nother\n`;
        const ref = await h.save(content);
        await expectSpillRejection(`grep(${show(pattern)})`, 'SPILL_INVALID_PATTERN', () => reader.grep(ref.locator, pattern));
        await expectGrep(reader, ref, content, pattern, { literal: true }, [1]);
      });
    }

    test('finds a case-insensitive literal as text, whatever its regex syntax', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = 'A.B*(C)\nabc\na.b*(c) again\n';
      const ref = await h.save(content);
      await expectGrep(reader, ref, content, 'a.b*(c)', { literal: true, ignoreCase: true }, [1, 3]);
    });
  });

  describe('the error table: one code per kind of bad input', () => {
    const grepCases: readonly (readonly [label: string, pattern: unknown, options: unknown, code: SpillErrorCode])[] = [
      ['timeoutMs 0', 'a', { timeoutMs: 0 }, 'SPILL_INVALID_INPUT'],
      ['a negative timeoutMs', 'a', { timeoutMs: -5 }, 'SPILL_INVALID_INPUT'],
      ['a NaN timeoutMs', 'a', { timeoutMs: Number.NaN }, 'SPILL_INVALID_INPUT'],
      ['an infinite timeoutMs', 'a', { timeoutMs: Number.POSITIVE_INFINITY }, 'SPILL_INVALID_INPUT'],
      ['a string timeoutMs', 'a', { timeoutMs: '100' }, 'SPILL_INVALID_INPUT'],
      ['ignoreCase "yes"', 'a', { ignoreCase: 'yes' }, 'SPILL_INVALID_INPUT'],
      ['literal 1', 'a', { literal: 1 }, 'SPILL_INVALID_INPUT'],
      ['a negative maxMatches', 'a', { maxMatches: -1 }, 'SPILL_INVALID_INPUT'],
      ['a fractional maxLineBytes', 'a', { maxLineBytes: 1.5 }, 'SPILL_INVALID_INPUT'],
      ['a signal that is not an AbortSignal', 'a', { signal: {} }, 'SPILL_INVALID_INPUT'],
      ['null options', 'a', null, 'SPILL_INVALID_INPUT'],
      ['a number as options', 'a', 5, 'SPILL_INVALID_INPUT'],
      ['a number as the pattern', 42, {}, 'SPILL_INVALID_PATTERN'],
      ['undefined as the pattern', undefined, {}, 'SPILL_INVALID_PATTERN'],
      ['a pattern one code unit over the limit', 'a'.repeat(MAX_GREP_PATTERN_LENGTH + 1), {}, 'SPILL_INVALID_PATTERN'],
      ['a literal pattern one code unit over the limit', 'a'.repeat(MAX_GREP_PATTERN_LENGTH + 1), { literal: true }, 'SPILL_INVALID_PATTERN'],
      ['a pattern with a lone surrogate', 'a\uD800', { literal: true }, 'SPILL_INVALID_PATTERN'],
      ['a pattern that is not RE2 syntax', '(?=a)', {}, 'SPILL_INVALID_PATTERN'],
    ];
    for (const [label, pattern, grepOptions, code] of grepCases) {
      test(`grep with ${label} rejects with ${code}`, async (h, ctx) => {
        const reader = h.requireReader(ctx);
        const ref = await h.save('a\nb\n');
        await expectSpillRejection(`grep with ${label}`, code, () => reader.grep(ref.locator, pattern as string, grepOptions as GrepOptions));
      });
    }

    test(`a pattern of exactly ${MAX_GREP_PATTERN_LENGTH} code units is accepted`, async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const content = `${'a'.repeat(MAX_GREP_PATTERN_LENGTH)}\nb\n`;
      await expectGrep(reader, await h.save(content), content, 'a'.repeat(MAX_GREP_PATTERN_LENGTH), {}, [1]);
    });

    const readCases: readonly (readonly [label: string, options: unknown])[] = [
      ['null options', null],
      ['a string as options', 'offset=2'],
      ['a string offset', { offset: '2' }],
      ['a signal that is not an AbortSignal', { signal: 'stop' }],
    ];
    for (const [label, readOptions] of readCases) {
      test(`read with ${label} rejects with SPILL_INVALID_INPUT`, async (h, ctx) => {
        const reader = h.requireReader(ctx);
        const ref = await h.save('a\nb\n');
        await expectSpillRejection(`read with ${label}`, 'SPILL_INVALID_INPUT', () => reader.read(ref.locator, readOptions as ReadOptions));
      });
    }

    for (const [label, value] of NON_STRING_LOCATORS) {
      test(`${label} as a locator rejects read and grep with SPILL_INVALID_LOCATOR`, async (h, ctx) => {
        const reader = h.requireReader(ctx);
        await h.save('a\n');
        await expectSpillRejection(`read of ${label}`, 'SPILL_INVALID_LOCATOR', () => reader.read(value as SpillLocator));
        await expectSpillRejection(`grep of ${label}`, 'SPILL_INVALID_LOCATOR', () => reader.grep(value as SpillLocator, 'a'));
      });
    }

    test('checks the options, then the pattern, then the signal, then the locator', async (h, ctx) => {
      const reader = h.requireReader(ctx);
      const ref = await h.save('a\n');
      const forged = `${ref.locator}x` as SpillLocator;
      const signal = AbortSignal.abort();
      await expectSpillRejection('read: bad option and forged locator', 'SPILL_INVALID_INPUT', () => reader.read(forged, { offset: 0 }));
      await expectSpillRejection('grep: bad option, bad pattern, forged locator', 'SPILL_INVALID_INPUT', () => reader.grep(forged, '(', { timeoutMs: 0 }));
      await expectSpillRejection('grep: bad pattern, aborted, forged locator', 'SPILL_INVALID_PATTERN', () => reader.grep(forged, '(', { signal }));
      await expectSpillRejection('grep: aborted, forged locator', 'SPILL_ABORTED', () => reader.grep(forged, 'a', { signal }));
      await expectSpillRejection('read: aborted, forged locator', 'SPILL_ABORTED', () => reader.read(forged, { signal }));
    });
  });

  describe('forged locators', () => {
    for (const [label, make] of FORGED_LOCATORS) {
      test(`${label} is refused with SPILL_INVALID_LOCATOR or SPILL_NOT_FOUND and reaches nothing`, async (h, ctx) => {
        if (h.backend.reader === undefined && h.backend.catalog === undefined) return ctx.skip(`${h.backend.name} has neither reader nor catalog`);
        const content = 'the real artifact\n';
        const real = await h.save(content);
        let foreign = '';
        await withHarness(options, async (other) => {
          foreign = (await other.save('an artifact of another instance\n')).locator;
        });
        await expectForgedRefused(h, make(real.locator, foreign) as SpillLocator, label);
        await expectIntact(h, real, content);
      });
    }
    for (const [label, value] of NON_STRING_LOCATORS) {
      test(`${label} as a locator is refused with SPILL_INVALID_LOCATOR, SPILL_NOT_FOUND or SPILL_INVALID_INPUT`, async (h, ctx) => {
        if (h.backend.reader === undefined && h.backend.catalog === undefined) return ctx.skip(`${h.backend.name} has neither reader nor catalog`);
        const content = 'the real artifact\n';
        const real = await h.save(content);
        await expectForgedRefused(h, value as SpillLocator, label, ['SPILL_INVALID_LOCATOR', 'SPILL_NOT_FOUND', 'SPILL_INVALID_INPUT']);
        await expectIntact(h, real, content);
      });
    }
  });
}

async function expectForgedRefused<F extends SpillBackendFixture>(
  h: Harness<F>,
  locator: SpillLocator,
  label: string,
  codes: Parameters<typeof expectSpillRejection>[1] = ['SPILL_INVALID_LOCATOR', 'SPILL_NOT_FOUND'],
): Promise<void> {
  const { reader, catalog } = h.backend;
  if (reader !== undefined) {
    await expectSpillRejection(`read of ${label}`, codes, () => reader.read(locator));
    await expectSpillRejection(`grep of ${label}`, codes, () => reader.grep(locator, 'a'));
  }
  if (catalog !== undefined) {
    let promise: Promise<boolean>;
    try {
      promise = catalog.delete(locator);
    } catch (error) {
      fail(`delete of ${label} threw synchronously: ${String(error)}`);
    }
    const removed = await promise.catch((error: unknown) => {
      expectSpillErrorCode(`delete of ${label}`, error, codes);
      return false;
    });
    if (removed) fail(`delete of ${label} answered true: it removed something`);
  }
}

async function expectIntact<F extends SpillBackendFixture>(h: Harness<F>, ref: SpillRef, content: string): Promise<void> {
  if (h.canReadBack) await h.expectStored(ref, content, 'the real artifact after the forged calls');
  if (h.backend.catalog !== undefined) {
    const listed = (await h.list()).map((e) => e.locator);
    if (!listed.includes(ref.locator)) fail('the real artifact left the catalog after calls with a forged locator');
  }
}

