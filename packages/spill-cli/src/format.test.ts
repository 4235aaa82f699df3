import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GrepResult, ReadResult } from '@spillway/core';
import { makeStyle } from './color.js';
import {
  formatBytes,
  formatGrepMatches,
  formatReadLines,
  formatTimestamp,
  grepTrailer,
  readTrailer,
  splitLines,
} from './format.js';

const plain = makeStyle(false);

function readResult(partial: Partial<ReadResult> & Pick<ReadResult, 'text'>): ReadResult {
  const lines = splitLines(partial.text).length;
  return {
    startLine: 1,
    endLine: (partial.startLine ?? 1) + lines - 1,
    truncated: false,
    hasMore: false,
    totalBytes: Buffer.byteLength(partial.text),
    ...partial,
  };
}

describe('splitLines', () => {
  it('counts lines the way the reader does', () => {
    expect(splitLines('')).toEqual([]);
    expect(splitLines('a')).toEqual(['a']);
    expect(splitLines('a\n')).toEqual(['a']);
    expect(splitLines('a\nb')).toEqual(['a', 'b']);
    expect(splitLines('a\n\n')).toEqual(['a', '']);
    expect(splitLines('a\r\nb\r\n')).toEqual(['a\r', 'b\r']);
  });
});

describe('formatReadLines', () => {
  it('numbers lines from startLine like cat -n', () => {
    const out = formatReadLines(readResult({ text: 'alpha\nbeta\n', startLine: 41 }), plain);
    expect(out).toBe('    41\talpha\n    42\tbeta\n');
  });

  it('ends a last line without a terminator with one', () => {
    expect(formatReadLines(readResult({ text: 'x' }), plain)).toBe('     1\tx\n');
  });

  it('widens the number column past six digits', () => {
    expect(formatReadLines(readResult({ text: 'z\n', startLine: 1234567 }), plain)).toBe('1234567\tz\n');
  });

  it('loses nothing: removing the numbers gives back the lines', () => {
    fc.assert(
      fc.property(fc.array(fc.string().map((s) => s.replace(/\n/g, ''))), fc.integer({ min: 1, max: 10_000_000 }), (lines, start) => {
        const text = lines.map((l) => `${l}\n`).join('');
        const out = formatReadLines(readResult({ text, startLine: start }), plain);
        const rows = splitLines(out);
        expect(rows).toHaveLength(lines.length);
        rows.forEach((row, i) => {
          const tab = row.indexOf('\t');
          expect(Number(row.slice(0, tab).trim())).toBe(start + i);
          expect(row.slice(tab + 1)).toBe(lines[i]);
        });
      }),
    );
  });

  it('dims the numbers when colour is on and leaves the text alone', () => {
    const out = formatReadLines(readResult({ text: 'a\n' }), makeStyle(true));
    expect(out).toBe('\u001b[2m     1\u001b[22m\ta\n');
  });
});

describe('readTrailer', () => {
  it('says which offset continues when more lines follow', () => {
    const t = readTrailer(readResult({ text: 'a\nb\n', hasMore: true, nextOffset: 3, totalBytes: 100 }), 32768);
    expect(t).toContain('--offset 3');
    expect(t).toContain('100 bytes');
  });

  it('says to raise --max-bytes when one line is longer than the cap', () => {
    const t = readTrailer(readResult({ text: 'aaaa', hasMore: true, truncated: true, endLine: 7, totalBytes: 100 }), 4);
    expect(t).toContain('line 7');
    expect(t).toContain('--max-bytes');
  });

  it('says the offset is past the end when nothing is left', () => {
    expect(readTrailer(readResult({ text: '', startLine: 9, endLine: 8, totalBytes: 5 }), 10)).toContain('--offset 9');
  });

  it('says the artifact is empty when it is', () => {
    expect(readTrailer(readResult({ text: '', totalBytes: 0, endLine: 0 }), 10)).toContain('empty');
  });

  it('is silent when the answer reached the end', () => {
    expect(readTrailer(readResult({ text: 'a\n' }), 10)).toBeUndefined();
  });
});

describe('grep formatting', () => {
  const result: GrepResult = {
    matches: [
      { line: 3, text: 'error: one', truncated: false },
      { line: 120, text: 'a window of a long line', truncated: true },
    ],
    limitReached: true,
    totalBytes: 999,
  };

  it('prints LINE:TEXT and marks windows of long lines', () => {
    expect(formatGrepMatches(result, plain)).toBe('3:error: one\n120:a window of a long line […]\n');
  });

  it('says when the match limit stopped the search, and when nothing matched', () => {
    expect(grepTrailer(result, 2)).toContain('--max');
    expect(grepTrailer({ matches: [], limitReached: false, totalBytes: 1 }, 2)).toContain('no lines match');
    expect(grepTrailer({ ...result, limitReached: false }, 2)).toBeUndefined();
  });
});

describe('formatBytes and formatTimestamp', () => {
  it('uses binary units with one decimal', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KiB');
    expect(formatBytes(4_817_233)).toBe('4.6 MiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GiB');
  });

  it('prints UTC to the second', () => {
    expect(formatTimestamp(new Date('2025-01-31T09:30:12.345Z'))).toBe('2025-01-31T09:30:12Z');
  });
});
