// Every path of grep stops within timeoutMs plus a small constant: here the linear engine
// (re2js), whose cost is the text times the pattern's size, on one long line it cannot be
// interrupted inside in process. With workers it runs in one, stopped at the deadline.
import { describe, expect, it } from 'vitest';
import { isSpillError, spillLocator } from '@spillway/core';
import { readerOverText } from './test-reader.js';

const L = spillLocator('mem://deadline');

function readerOver(text: string): ReturnType<typeof readerOverText> {
  return readerOverText(L, text);
}

describe('grep on the linear engine, with workers', () => {
  it('answers a large pattern over one 6 MiB line with a correct answer or SPILL_TIMEOUT', { timeout: 60_000 }, async () => {
    // Inline flags have no native equivalent: this runs on re2js, about 2,000 states per character.
    const text = `${'a'.repeat(6 * 1024 * 1024)}\nend`;
    const answer = await readerOver(text)
      .grep(L, '(?i)a{1000}b', { timeoutMs: 500 })
      .catch((error: unknown) => error);
    if (isSpillError(answer)) expect(answer.code).toBe('SPILL_TIMEOUT');
    else expect(answer).toMatchObject({ matches: [] });
  });

  it('still answers ordinary patterns on the linear engine correctly across blocks', { timeout: 60_000 }, async () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => (i % 50_000 === 7 ? `Needle ${String(i)}` : `hay ${String(i)}`));
    const result = await readerOver(lines.join('\n')).grep(L, '(?i)needle \\d+', { maxMatches: 10, timeoutMs: 30_000 });
    expect(result.matches.map((m) => [m.line, m.text])).toEqual(
      [7, 50_007, 100_007, 150_007].map((i) => [i + 1, `Needle ${String(i)}`]),
    );
  });
});
