// A chunk is read back from the byte position the index recorded for it, with no count of
// the lines before it: the answers must be those of a reader that counts, and every
// position handed to the reader must be where that line really starts.
import { callId, sessionId, type ReadOptions, type SpillLocator, type SpillReader, type SpillSearchHit } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSpillSearch } from './index.js';

const WORDS = ['alpha', 'beta', 'gamma', 'TypeError', 'json_max_depth', 'Package: zlib', 'diff --git a/x b/x', 'error', 'é', '日本語', '😀', '\r', 'x'.repeat(300)];
const line = fc.array(fc.constantFrom(...WORDS), { maxLength: 8 }).map((w) => w.join(' '));
const text = fc
  .tuple(fc.array(line, { minLength: 1, maxLength: 400 }), fc.boolean(), fc.boolean())
  .map(([lines, bom, final]) => `${bom ? '\uFEFF' : ''}${lines.join('\n')}${final ? '\n' : ''}`);
const query = fc.array(fc.constantFrom('alpha', 'beta', 'gamma', 'TypeError', 'json_max_depth', 'zlib', 'diff', 'error', '日本語'), { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));

const NEWLINE = 0x0a;

/** Where each line starts in `bytes`, by line number (index 0 unused). */
function lineStarts(bytes: Uint8Array): number[] {
  const starts = [0, 0];
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === NEWLINE && i + 1 < bytes.length) starts.push(i + 1);
  return starts;
}

/**
 * The backend's reader, checking every `offsetByte` it is handed against the stored bytes,
 * or dropping it (`strip`), so that the search counts lines as it did before positions.
 */
function watchedReader(reader: SpillReader, stored: ReadonlyMap<string, Uint8Array>, strip: boolean, seen: { hinted: number; wrong: number }): SpillReader {
  return {
    read: (locator: SpillLocator, options?: ReadOptions) => {
      if (options?.offsetByte === undefined) return reader.read(locator, options);
      seen.hinted += 1;
      const bytes = stored.get(locator);
      if (bytes === undefined || lineStarts(bytes)[options.offset ?? 1] !== options.offsetByte) seen.wrong += 1;
      if (!strip) return reader.read(locator, options);
      const { offsetByte: _dropped, ...rest } = options;
      return reader.read(locator, rest);
    },
    grep: (locator, pattern, options) => reader.grep(locator, pattern, options),
  };
}

function comparable(hits: readonly SpillSearchHit[], locators: readonly string[]): unknown[] {
  return hits.map((h) => ({ ...h, locator: locators.indexOf(h.locator) }));
}

describe('read-back from recorded positions', () => {
  it('answers what counting lines answers, from positions where those lines start', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 3 }), fc.array(query, { minLength: 1, maxLength: 4 }), async (texts, queries) => {
        const s = sessionId('offsets');
        const backend = createMemoryBackend();
        const stored = new Map<string, Uint8Array>();
        const locators: string[] = [];
        for (const [k, t] of texts.entries()) {
          const ref = await backend.saveText({ owner: { sessionId: s }, source: { toolName: 'bash', callId: callId(`c${String(k)}`) }, suggestedName: 'out.txt', content: t });
          stored.set(ref.locator, new TextEncoder().encode(t));
          locators.push(ref.locator);
        }
        const seen = { hinted: 0, wrong: 0 };
        const counted = { hinted: 0, wrong: 0 };
        const a = createSpillSearch({ reader: watchedReader(backend.reader, stored, false, seen), catalog: backend.catalog });
        const b = createSpillSearch({ reader: watchedReader(backend.reader, stored, true, counted), catalog: backend.catalog });
        try {
          for (const q of queries) {
            const x = await a.search({ query: q, sessionId: s, maxResults: 10 });
            const y = await b.search({ query: q, sessionId: s, maxResults: 10 });
            expect(comparable(x.hits, locators)).toEqual(comparable(y.hits, locators));
            expect(x.more).toBe(y.more);
            if (x.hits.length > 0) expect(seen.hinted).toBeGreaterThan(0);
          }
          expect(seen.wrong + counted.wrong).toBe(0);
        } finally {
          await a.close();
          await b.close();
        }
      }),
      { numRuns: 30 },
    );
  });

  it('hands the reader no position in an artifact whose text is not well-formed UTF-8', async () => {
    const s = sessionId('bytes');
    const backend = createMemoryBackend();
    // A lone byte decodes to U+FFFD, three bytes of UTF-8: counting decoded text would put
    // every later line two bytes too far.
    const lines = Array.from({ length: 200 }, (_, i) => `line ${String(i)} ${i === 3 ? '\xff' : ''} needle${String(i)}`);
    const bytes = Uint8Array.from(lines.join('\n'), (c) => c.charCodeAt(0));
    const ref = await backend.saveBytesStream({ owner: { sessionId: s }, source: { toolName: 'bash', callId: callId('b') }, suggestedName: 'out.txt', content: [bytes] });
    const seen = { hinted: 0, wrong: 0 };
    const search = createSpillSearch({ reader: watchedReader(backend.reader, new Map([[ref.locator, bytes]]), false, seen), catalog: backend.catalog });
    try {
      const found = await search.search({ query: 'needle150', sessionId: s });
      expect(found.hits[0]?.text).toContain('needle150');
      expect(seen.hinted).toBe(0);
    } finally {
      await search.close();
    }
  });
});
