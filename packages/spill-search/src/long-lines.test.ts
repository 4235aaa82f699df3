// Every word of a line is findable, however long the line (minified code, a one-line JSON
// report), up to LONG_LINE_READ_BYTES; the snippet shows the words found, not the line's start.
import { sessionId } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHUNK_MAX_CHARS, LONG_LINE_READ_BYTES, segmentsOf } from './indexer.js';
import { createSpillSearch } from './index.js';
import { saveText as save } from '@spillway/test-support/save-text';

/** One line of JSON of about `bytes`, with `needle` as a value at about `at` bytes in. */
function oneLineJson(bytes: number, at: number, needle: string): string {
  const records: string[] = [];
  let length = 0;
  let placed = false;
  for (let i = 0; length < bytes; i++) {
    const record = !placed && length >= at ? `{"id":${String(i)},"message":"${needle}"}` : `{"id":${String(i)},"name":"item-${String(i)}","ok":true}`;
    if (record.includes(needle)) placed = true;
    records.push(record);
    length += record.length + 1;
  }
  return `[${records.join(',')}]`;
}

describe('long lines', () => {
  for (const [label, bytes, at] of [
    ['80 KB into a 100 KB line', 100_000, 80_000],
    ['3 MB into a 4 MB line (longer than an index page)', 4_000_000, 3_000_000],
  ] as const) {
    it(`finds a word ${label}, and shows it in the snippet`, async () => {
      const backend = createMemoryBackend({ maxBytes: 64 * 1024 * 1024 });
      const s = sessionId('s');
      await save(backend, s, 'a short line before\n');
      const locator = await save(backend, s, `header line\n${oneLineJson(bytes, at, 'quokkaDeadlineExceeded in shard seven')}\ntrailer line\n`);
      const searcher = createSpillSearch({ reader: backend.reader, catalog: backend.catalog });
      const answer = await searcher.search({ query: 'quokkaDeadlineExceeded', sessionId: s, maxResults: 5, maxBytes: 4096 });
      const hit = answer.hits[0];
      expect(hit?.locator).toBe(locator);
      expect(hit?.startLine).toBe(2);
      expect(hit?.text).toContain('quokkaDeadlineExceeded in shard seven');
      expect(hit?.truncated).toBe(true);
      // Verbatim: a part of the line it names.
      const line = await backend.reader.read(locator, { offset: 2, limit: 1, maxBytes: LONG_LINE_READ_BYTES });
      expect(line.text).toContain(hit?.text ?? '\0');
      // A word on either side of the long line is found too.
      expect((await searcher.search({ query: 'trailer', sessionId: s, maxResults: 5, maxBytes: 4096 })).hits[0]?.startLine).toBe(3);
      await searcher.close();
    });
  }

  it('cuts a long line into chunks that give the line back whole, no chunk too long, no word split when a break is near', () => {
    const word = fc.stringMatching(/^[a-zA-Z0-9_]{1,40}$/);
    const sep = fc.constantFrom(' ', ',', '":"', '/', '-', '😀');
    fc.assert(
      fc.property(fc.array(fc.tuple(word, sep), { minLength: 1, maxLength: 3000 }), (parts) => {
        const line = parts.map(([w, s]) => w + s).join('');
        const segments = segmentsOf(line);
        expect(segments.join('')).toBe(line);
        for (const [i, segment] of segments.entries()) {
          expect(segment.length).toBeLessThanOrEqual(CHUNK_MAX_CHARS);
          expect(segment.length).toBeGreaterThan(0);
          // Words are at most 40 characters, so a break is always near: no segment but the last ends inside a word.
          if (i < segments.length - 1) expect(/[a-zA-Z0-9_]$/.test(segment) && /^[a-zA-Z0-9_]/.test(segments[i + 1] ?? '')).toBe(false);
        }
      }),
    );
  });
});
