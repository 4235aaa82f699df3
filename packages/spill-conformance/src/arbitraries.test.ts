import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chunkedContentArbitrary,
  contentArbitrary,
  grepQueryArbitrary,
  linesContentArbitrary,
  sessionIdArbitrary,
  splitAt,
  suggestedNameArbitrary,
  toChunkSource,
} from './arbitraries.js';
import { HOSTILE_SUGGESTED_NAMES } from './hostile-inputs.js';
import { isCodePointBoundary, isWellFormed } from './text.js';

const sample = <T>(arb: fc.Arbitrary<T>, n = 500): T[] => fc.sample(arb, { numRuns: n, seed: 7 });

describe('arbitraries', () => {
  it('contentArbitrary yields lone surrogates, astral characters, CRLF and the empty string', () => {
    const contents = sample(contentArbitrary());
    expect(contents.some((c) => !isWellFormed(c))).toBe(true);
    expect(contents.some((c) => /[\uD800-\uDBFF][\uDC00-\uDFFF]/.test(c))).toBe(true);
    expect(contents.some((c) => c.includes('\r\n'))).toBe(true);
    expect(contents).toContain('');
  });

  it('linesContentArbitrary stays well-formed', () => {
    expect(sample(linesContentArbitrary()).every(isWellFormed)).toBe(true);
  });

  it('chunkedContentArbitrary chunks join to the content and sometimes split a surrogate pair', () => {
    const cases = sample(chunkedContentArbitrary());
    for (const { content, chunks } of cases) expect(chunks.join('')).toBe(content);
    const splitsPair = ({ chunks }: { chunks: readonly string[] }): boolean => {
      let at = 0;
      const text = chunks.join('');
      return chunks.slice(0, -1).some((chunk) => {
        at += chunk.length;
        return !isCodePointBoundary(text, at);
      });
    };
    expect(cases.some(splitsPair)).toBe(true);
    const always = sample(chunkedContentArbitrary({ alwaysSplitAPair: true }));
    for (const { content, chunks } of always) expect(chunks.join('')).toBe(content);
    expect(always.every(splitsPair)).toBe(true);
  });

  it('toChunkSource delivers the chunks in order, sync and async', async () => {
    const chunks = ['a', '', '\uD83D', '\uDE00'];
    expect([...(toChunkSource(chunks, 'array') as Iterable<string>)]).toEqual(chunks);
    expect([...(toChunkSource(chunks, 'generator') as Iterable<string>)]).toEqual(chunks);
    const got: string[] = [];
    for await (const chunk of toChunkSource(chunks, 'async-generator')) got.push(chunk);
    expect(got).toEqual(chunks);
  });

  it('splitAt ignores out-of-range and repeated cuts', () => {
    expect(splitAt('abcd', [2, 2, 0, 9, 1])).toEqual(['a', 'b', 'cd']);
    expect(splitAt('', [1])).toEqual(['']);
  });

  it('suggestedNameArbitrary includes the hostile names; sessionIdArbitrary is never empty', () => {
    const names = new Set(sample(suggestedNameArbitrary(), 2000));
    expect(HOSTILE_SUGGESTED_NAMES.filter(([, name]) => names.has(name)).length).toBeGreaterThan(10);
    expect(sample(sessionIdArbitrary()).every((id) => id.length > 0)).toBe(true);
  });

  it('grepQueryArbitrary yields patterns that compile', () => {
    const queries = sample(linesContentArbitrary().chain(grepQueryArbitrary));
    for (const { pattern, options } of queries) {
      if (options.literal !== true) expect(() => new RegExp(pattern)).not.toThrow();
    }
  });
});
