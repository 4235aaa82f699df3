import { utf8ByteLength } from '@spillway/core';
import type { SpillLocator } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryBackend } from './index.js';
import { collect, locators, request, streamRequest, wellFormed } from './test-helpers.js';

/** Text rich in what breaks encoders and line splitters. */
const tricky = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uFEFF', '\uFFFD', '\n', '\r', '\r\n', '\u2028', '\u0000'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 300,
});

/** Cuts `text` into chunks at arbitrary code-unit positions (splitting pairs too). */
const chunked = tricky.chain((text) =>
  fc.uniqueArray(fc.integer({ min: 0, max: text.length }), { maxLength: 8 }).map((cuts) => {
    const points = [0, ...cuts.sort((a, b) => a - b), text.length];
    return { text, chunks: points.slice(1).map((end, i) => text.slice(points[i], end)) };
  }),
);

describe('properties of storage', () => {
  it('stores exactly the UTF-8 encoding of any string, with an exact byte count', async () => {
    const backend = createMemoryBackend();
    await fc.assert(
      fc.asyncProperty(tricky, async (content) => {
        const ref = await backend.saveText(request(content));
        expect(ref.bytes).toBe(utf8ByteLength(content));
        expect(ref.bytes).toBe(new TextEncoder().encode(content).length);
        const all = await backend.reader.read(ref.locator, { maxBytes: 1 << 20, limit: 1 << 20 });
        expect(all.text).toBe(wellFormed(content));
        expect(all.totalBytes).toBe(ref.bytes);
      }),
      { numRuns: 300 },
    );
  });

  it('stores a stream as the concatenation of its chunks, however it is split', async () => {
    const backend = createMemoryBackend();
    await fc.assert(
      fc.asyncProperty(chunked, fc.boolean(), async ({ text, chunks }, asAsync) => {
        async function* delivered() {
          for (const chunk of chunks) {
            await Promise.resolve();
            yield chunk;
          }
        }
        const ref = await backend.saveTextStream(streamRequest(asAsync ? delivered() : chunks));
        expect(ref.bytes).toBe(utf8ByteLength(text));
        const all = await backend.reader.read(ref.locator, { maxBytes: 1 << 20, limit: 1 << 20 });
        expect(all.text).toBe(wellFormed(text));
      }),
      { numRuns: 300 },
    );
  });

  it('reads back the content line by line', async () => {
    const backend = createMemoryBackend();
    await fc.assert(
      fc.asyncProperty(tricky, async (content) => {
        const ref = await backend.saveText(request(content));
        let text = '';
        for (let offset = 1; ; offset++) {
          const line = await backend.reader.read(ref.locator, { offset, limit: 1, maxBytes: 1 << 20 });
          text += line.text;
          if (!line.hasMore) break;
        }
        expect(text).toBe(wellFormed(content));
      }),
      { numRuns: 200 },
    );
  });
});

type Op = { kind: 'save'; size: number; session: number } | { kind: 'delete'; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('save' as const), size: fc.nat({ max: 60 }), session: fc.nat({ max: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
);

describe('properties of eviction', () => {
  it('never holds more than maxBytes or maxArtifacts, and evicts oldest first, like a queue', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(op, { maxLength: 40 }),
        async (maxBytes, maxArtifacts, ops) => {
          const backend = createMemoryBackend({ maxBytes, maxArtifacts });
          // The model: live artifacts in save order, and the removed ones (evicted or deleted).
          let live: { locator: SpillLocator; size: number; session: string }[] = [];
          const removed = new Set<string>();
          for (const step of ops) {
            if (step.kind === 'delete') {
              const victim = live[step.pick % Math.max(1, live.length)];
              if (victim === undefined) continue;
              expect(await backend.catalog.delete(victim.locator)).toBe(true);
              live = live.filter((a) => a !== victim);
              removed.add(victim.locator);
              continue;
            }
            const session = `s${step.session}`;
            const content = 'é'.repeat(Math.floor(step.size / 2)) + 'x'.repeat(step.size % 2);
            if (step.size > maxBytes) {
              await expect(backend.saveText(request(content, session))).rejects.toMatchObject({ code: 'SPILL_TOO_LARGE' });
              continue;
            }
            while (live.length > 0 && (live.reduce((n, a) => n + a.size, 0) + step.size > maxBytes || live.length + 1 > maxArtifacts)) {
              const oldest = live.shift();
              if (oldest !== undefined) removed.add(oldest.locator);
            }
            const ref = await backend.saveText(request(content, session));
            expect(ref.bytes).toBe(step.size);
            live.push({ locator: ref.locator, size: step.size, session });
            const stats = backend.stats();
            expect(stats.bytes).toBeLessThanOrEqual(maxBytes);
            expect(stats.artifacts).toBeLessThanOrEqual(maxArtifacts);
          }
          expect(locators(await collect(backend.catalog.list()))).toEqual(live.map((a) => a.locator));
          for (const session of ['s0', 's1', 's2']) {
            const listed = await collect(backend.catalog.list({ sessionId: request('', session).owner.sessionId }));
            expect(locators(listed)).toEqual(live.filter((a) => a.session === session).map((a) => a.locator));
          }
          expect(backend.stats().bytes).toBe(live.reduce((n, a) => n + a.size, 0));
          // Far fewer removals than maxTombstones: every one is remembered and answers SPILL_EXPIRED.
          for (const locator of removed) {
            await expect(backend.reader.read(locator as SpillLocator)).rejects.toMatchObject({ code: 'SPILL_EXPIRED' });
            expect(await backend.catalog.delete(locator as SpillLocator)).toBe(false);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
