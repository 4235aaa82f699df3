// The model-facing retrieval tools over a real backend: every argument the model can get
// wrong answers a readable error, and good calls answer what the reader answers.
import { spillLocator } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import {
  SPILL_GREP_TOOL,
  SPILL_READ_TOOL,
  checkSpillToolOptions,
  formatGrepAnswer,
  formatReadAnswer,
  formatSearchAnswer,
  runSpillGrep,
  runSpillRead,
  runSpillTool,
  spillToolSpecs,
} from './index.js';
import { stored } from './test-stored.js';


const lines = Array.from({ length: 50 }, (_, i) => `line ${String(i + 1)}${i === 41 ? ' needle' : ''}`).join('\n');

describe('spill_read', () => {
  it('reads a page and says where to continue', async () => {
    const { reader, locator } = await stored(lines);
    const answer = await runSpillRead(reader, { locator, offset: 2, limit: 3 });
    expect(answer.isError).toBe(false);
    expect(answer.text).toBe('line 2\nline 3\nline 4\n' + `(Lines 2-4 of a ${String(lines.length)}-byte result. More follows: continue with spill_read offset 5.)`);
  });

  it('says when the end is reached', async () => {
    const { reader, locator } = await stored(lines);
    const answer = await runSpillRead(reader, { locator, offset: 50 });
    expect(answer.text).toBe(`line 50\n(Line 50; end of the stored result, ${String(lines.length)} bytes in all.)`);
  });

  it('says when the offset is past the end', async () => {
    const { reader, locator } = await stored(lines);
    const answer = await runSpillRead(reader, { locator, offset: 99 });
    expect(answer.isError).toBe(false);
    expect(answer.text).toMatch(/^\(No line 99: the stored result ends before it/);
  });

  it('caps the answer at maxReadBytes', async () => {
    const { reader, locator } = await stored(lines);
    const answer = await runSpillRead(reader, { locator }, { maxReadBytes: 20 });
    expect(answer.isError).toBe(false);
    if (answer.isError) return;
    expect(answer.data).toMatchObject({ startLine: 1, hasMore: true });
    expect(new TextEncoder().encode((answer.data as { text: string }).text).length).toBeLessThanOrEqual(20);
  });

  it.each([
    [undefined, 'SPILL_INVALID_INPUT'],
    ['locator', 'SPILL_INVALID_INPUT'],
    [{}, 'SPILL_INVALID_INPUT'],
    [{ locator: '' }, 'SPILL_INVALID_INPUT'],
    [{ locator: 42 }, 'SPILL_INVALID_INPUT'],
    [{ locator: '/etc/passwd' }, 'SPILL_INVALID_LOCATOR'],
  ])('refuses %j with %s, never throwing', async (args, code) => {
    const { reader } = await stored(lines);
    const answer = await runSpillRead(reader, args);
    expect(answer).toMatchObject({ isError: true, code });
    expect(answer.text.length).toBeGreaterThan(10);
  });

  it('passes a bad offset to the reader, which refuses it', async () => {
    const { reader, locator } = await stored(lines);
    const answer = await runSpillRead(reader, { locator, offset: 0 });
    expect(answer).toMatchObject({ isError: true, code: 'SPILL_INVALID_INPUT' });
    expect(answer.text).toContain('SPILL_INVALID_INPUT');
  });
});

describe('spill_grep', () => {
  it('answers matching lines with their numbers', async () => {
    const { reader, locator } = await stored(lines);
    const answer = await runSpillGrep(reader, { locator, pattern: 'NEEDLE', ignoreCase: true });
    expect(answer.text).toBe('42: line 42 needle\n(1 matching line for "NEEDLE".)');
  });

  it('says when there are more matches than shown', async () => {
    const { reader, locator } = await stored(lines);
    const answer = await runSpillGrep(reader, { locator, pattern: 'line', literal: true, maxMatches: 2 });
    expect(answer.text).toBe('1: line 1\n2: line 2\n(2 matching lines shown for "line"; more exist after line 2. Raise maxMatches (up to 200), or narrow the pattern, or read on from line 3 with spill_read.)');
  });

  it('says when nothing matches', async () => {
    const { reader, locator } = await stored(lines);
    expect((await runSpillGrep(reader, { locator, pattern: 'absent' })).text).toBe('(No line matches "absent".)');
  });

  it.each([
    [{ pattern: 'x' }, 'SPILL_INVALID_INPUT'],
    [{ locator: 'spill+memory://nope/nope', pattern: 'x' }, undefined],
  ])('refuses %j as a readable error', async (args, code) => {
    const { reader } = await stored(lines);
    const answer = await runSpillGrep(reader, args);
    expect(answer.isError).toBe(true);
    if (code !== undefined) expect(answer).toMatchObject({ code });
  });

  it('refuses a missing pattern and an invalid regex', async () => {
    const { reader, locator } = await stored(lines);
    expect(await runSpillGrep(reader, { locator })).toMatchObject({ isError: true, code: 'SPILL_INVALID_INPUT' });
    expect(await runSpillGrep(reader, { locator, pattern: '(' })).toMatchObject({ isError: true, code: 'SPILL_INVALID_PATTERN' });
  });
});

describe('error texts', () => {
  it('every error of the three tools names its tool and code the one way', async () => {
    const { reader, locator } = await stored('a\nb\n');
    const searcher = { search: () => Promise.resolve({ hits: [], more: false }) };
    const services = { reader, searcher };
    const calls: [string, unknown, string][] = [
      ['spill_read', 'nope', 'the arguments must be a JSON object'],
      ['spill_read', {}, '`locator` is missing'],
      ['spill_read', { locator, offset: 0 }, 'read: offset'],
      ['spill_read', { locator: 'forged' }, ''],
      ['spill_grep', [], 'the arguments must be a JSON object'],
      ['spill_grep', { locator }, '`pattern` is missing'],
      ['spill_search', 7, 'the arguments must be a JSON object'],
      ['spill_search', { query: ' ' }, '`query` is missing'],
      ['spill_search', { query: 'x', maxResults: 0 }, '`maxResults` must be a whole number'],
    ];
    for (const [tool, args, says] of calls) {
      const answer = await runSpillTool(services, tool, args, { sessionId: 's' as never });
      expect(answer.isError).toBe(true);
      if (!answer.isError) continue;
      expect(answer.text.startsWith(`${tool} failed (${String(answer.code)}): ${says}`), answer.text).toBe(true);
    }
    const noSession = await runSpillTool(services, 'spill_search', { query: 'x' });
    expect(noSession.text).toBe('spill_search failed (SPILL_INVALID_INPUT): there is no session to search for this call.');
    const noReader = await runSpillTool({ searcher }, 'spill_read', { locator });
    expect(noReader.text).toBe('spill_read failed (SPILL_INVALID_INPUT): not available here: the store has no reader.');
  });
});

describe('checkSpillToolOptions', () => {
  it('names the caller and refuses an option it does not accept', () => {
    const from = { caller: 'makeTools', accepted: ['backend', 'maxReadBytes'] };
    expect(() => { checkSpillToolOptions({ maxReadByte: 1 } as never, from); }).toThrow(
      new TypeError('makeTools does not know the option "maxReadByte"; the options are backend, maxReadBytes.'),
    );
    expect(() => { checkSpillToolOptions({ maxReadBytes: 0 }, from); }).toThrow(new TypeError('makeTools: maxReadBytes must be a whole number, at least 1; got 0.'));
    expect(() => { checkSpillToolOptions(null as never, from); }).toThrow(new TypeError('makeTools needs an options object, such as { backend }.'));
    expect(() => { checkSpillToolOptions({ backend: {}, maxReadBytes: 1 } as never, from); }).not.toThrow();
    // Without a caller, as before: the bare option's problem.
    expect(() => { checkSpillToolOptions({ defaultMaxMatches: 0 }); }).toThrow(new TypeError('defaultMaxMatches must be a whole number, at least 1; got 0.'));
  });
});

describe('definitions and dispatch', () => {
  it('names the reader tools with schemas that require the locator', () => {
    const readerTools = spillToolSpecs.filter((d) => d.requires.includes('reader'));
    expect(readerTools.map((d) => d.name)).toEqual([SPILL_READ_TOOL, SPILL_GREP_TOOL]);
    for (const d of readerTools) expect(d.inputSchema.required).toContain('locator');
  });

  it('dispatches by name and refuses unknown names', async () => {
    const { reader, locator } = await stored(lines);
    expect((await runSpillTool({ reader }, 'spill_read', { locator, limit: 1 })).text).toMatch(/^line 1\n/);
    expect((await runSpillTool({ reader }, 'spill_grep', { locator, pattern: 'needle' })).text).toMatch(/^42: /);
    expect(await runSpillTool({ reader }, 'spill_delete', { locator })).toMatchObject({ isError: true });
  });

  it('words a line cut by the byte cap and a line that does not fit', () => {
    const base = { totalBytes: 100, truncated: true, hasMore: true } as const;
    expect(formatReadAnswer({ ...base, text: 'abc', startLine: 3, endLine: 3 })).toBe(
      'abc\n(Line 3; line 3 was cut because it is too long to show whole. Search within it with spill_grep, or continue with spill_read offset 4.)',
    );
    expect(formatReadAnswer({ ...base, text: '', startLine: 3, endLine: 2 })).toBe(
      '(Line 3 does not fit in one answer. Search within it with spill_grep.)',
    );
    expect(formatGrepAnswer({ matches: [{ line: 7, text: 'ab', truncated: true }], limitReached: false, totalBytes: 9 }, 'a')).toBe(
      '7: ab [line cut]\n(1 matching line for "a".)',
    );
  });
});

describe('spill_search answers', () => {
  it('names where the best snippet starts when none fits in the cap, never "no match"', () => {
    const locator = `/state/spillway/session-1/${'a'.repeat(40)}-seq.txt`;
    const hit = { locator: spillLocator(locator), startLine: 99979, endLine: 100000, text: '99999\n'.repeat(40), truncated: false, score: 1 };
    const answer = formatSearchAnswer({ hits: [hit], more: false }, '99999', 400);
    expect(answer.shown).toEqual({ hits: [], more: true });
    expect(answer.text).toBe(
      `(Snippets match "99999" but none fits in 400 bytes. The best is ${locator} lines 99979-100000: read it with spill_read { locator, offset: 99979 }.)`,
    );
    // Tighter caps keep the place as long as it fits, then at least say that snippets matched.
    expect(formatSearchAnswer({ hits: [hit], more: false }, 'x'.repeat(150), 200).text).toBe(`(Snippets match but none fits in 200 bytes. The best is ${locator} line 99979; use spill_read.)`);
    expect(formatSearchAnswer({ hits: [hit], more: false }, '99999', 64).text).toBe('(Snippets match but none fits in 64 bytes.)');
    // The searcher found no room for any: no hit, but more set. Not "no match".
    expect(formatSearchAnswer({ hits: [], more: true }, '99999', 400)).toEqual({
      text: '(Snippets match "99999" but none fits in 400 bytes; ask again with maxResults: 1.)',
      shown: { hits: [], more: true },
    });
  });
});
