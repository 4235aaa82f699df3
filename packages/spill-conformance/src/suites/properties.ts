import { utf8ByteLength, type ReadOptions, type ReadResult, type SpillLocator, type SpillReader } from '@spillway/core';
import fc from 'fast-check';
import { describe } from 'vitest';
import {
  chunkedContentArbitrary,
  contentArbitrary,
  differentialGrepArbitrary,
  differentialReadOptionsArbitrary,
  differentialTextArbitrary,
  grepQueryArbitrary,
  linesContentArbitrary,
  readOptionsArbitrary,
  sessionIdArbitrary,
  suggestedNameArbitrary,
  toChunkSource,
} from '../arbitraries.js';
import { checkRef, fail, readWhole, withHarness } from '../harness.js';
import type { ResolvedConformanceOptions, SpillBackendFixture } from '../options.js';
import { checkGrepResult, checkReadResult, ReferenceArtifact } from '../reference-reader.js';
import { isSpillError, type GrepOptions } from '@spillway/core';
import { testDefiner } from './define-test.js';
import { fcParams } from './fc-params.js';

const anyContent = fc.oneof(contentArbitrary(), linesContentArbitrary());

/** Registers the fast-check properties. Each run gets a fresh fixture. */
export function describeProperties<F extends SpillBackendFixture>(options: ResolvedConformanceOptions<F>): void {
  const test = testDefiner(options);
  const params = fcParams(options, options.numRuns);

  describe('properties', () => {
    test('any content, suggested name and session id round-trips with exact bytes', async (h, ctx) => {
      h.requireReadBack(ctx);
      await fc.assert(
        fc.asyncProperty(contentArbitrary(), suggestedNameArbitrary(), sessionIdArbitrary(), async (content, name, session) => {
          await withHarness(options, async (run) => {
            const ref = await run.save(content, { suggestedName: name, sessionId: session });
            await run.expectStored(ref, content);
          });
        }),
        params,
      );
    });

    test('a stream split anywhere, even inside a surrogate pair, stores the concatenation of its chunks', async (h, ctx) => {
      h.requireReadBack(ctx);
      await fc.assert(
        fc.asyncProperty(chunkedContentArbitrary({ alwaysSplitAPair: true }), async ({ content, chunks, delivery }) => {
          await withHarness(options, async (run) => {
            const ref = await run.backend.saveTextStream(run.streamRequest(toChunkSource(chunks, delivery)));
            checkRef(ref, utf8ByteLength(content), `saveTextStream (${delivery}, ${chunks.length} chunks)`);
            await run.expectStored(ref, content);
          });
        }),
        params,
      );
    });

    test('read answers what the reference reader answers, for any content and options', async (h, ctx) => {
      h.requireReader(ctx);
      const cases = anyContent.chain((content) =>
        fc.tuple(fc.constant(content), fc.array(readOptionsArbitrary(new ReferenceArtifact(content).lineCount), { minLength: 1, maxLength: 6 })),
      );
      await fc.assert(
        fc.asyncProperty(cases, async ([content, reads]) => {
          await withHarness(options, async (run) => {
            const reader = run.requireReader(ctx);
            const ref = await run.save(content);
            const artifact = new ReferenceArtifact(content);
            for (const readOptions of reads) {
              const problems = checkReadResult(artifact, readOptions, await reader.read(ref.locator, readOptions));
              if (problems.length > 0) fail(`read(${JSON.stringify(readOptions)}): ${problems.join('; ')}`);
            }
          });
        }),
        params,
      );
    });

    test('read never returns more than maxBytes, however small maxBytes is', async (h, ctx) => {
      h.requireReader(ctx);
      // Line 1 and a maxBytes below one code point are drawn often: that is the edge where a
      // reader must answer "nothing fits" rather than offer the same line again, and with a
      // few runs a uniform draw missed it about one time in five.
      const small: fc.Arbitrary<ReadOptions> = fc.record({
        offset: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 8 })),
        limit: fc.integer({ min: 0, max: 8 }),
        maxBytes: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 12 })),
      });
      await fc.assert(
        fc.asyncProperty(anyContent, fc.array(small, { minLength: 1, maxLength: 6 }), async (content, reads) => {
          await withHarness(options, async (run) => {
            const reader = run.requireReader(ctx);
            const ref = await run.save(content);
            for (const readOptions of reads) {
              // Core makes every maxBytes >= 0 valid: below one code point the answer is
              // "nothing fits" (empty, truncated, no nextOffset), never an error.
              const problems = checkReadResult(content, readOptions, await reader.read(ref.locator, readOptions));
              if (problems.length > 0) fail(`read(${JSON.stringify(readOptions)}): ${problems.join('; ')}`);
            }
          });
        }),
        params,
      );
    });

    test('reading page by page through nextOffset gives back any content', async (h, ctx) => {
      h.requireReader(ctx);
      const page = fc.record({ lines: fc.integer({ min: 1, max: 5 }), bytes: fc.integer({ min: 4, max: 64 }) });
      await fc.assert(
        fc.asyncProperty(anyContent, page, async (content, size) => {
          await withHarness(options, async (run) => {
            const reader = run.requireReader(ctx);
            const ref = await run.save(content);
            const text = await readWhole(reader, ref.locator, size);
            const expected = new ReferenceArtifact(content).text;
            if (text !== expected) fail(`pages of ${JSON.stringify(size)} gave back ${JSON.stringify(text)}, expected ${JSON.stringify(expected)}`);
          });
        }),
        params,
      );
    });

    test('paging by nextOffset with any maxBytes of at least 4 always ends and gives back the content', async (h, ctx) => {
      h.requireReader(ctx);
      const page = fc.record({ limit: fc.integer({ min: 1, max: 6 }), maxBytes: fc.integer({ min: 4, max: 48 }) });
      await fc.assert(
        fc.asyncProperty(anyContent, page, async (content, { limit, maxBytes }) => {
          await withHarness(options, async (run) => {
            const reader = run.requireReader(ctx);
            const ref = await run.save(content);
            const artifact = new ReferenceArtifact(content);
            const text = await pageByNextOffset(reader, ref.locator, limit, maxBytes, artifact);
            if (text !== artifact.text) {
              fail(`paging with limit ${limit} and maxBytes ${maxBytes} gave back ${JSON.stringify(text)}, expected ${JSON.stringify(artifact.text)}`);
            }
          });
        }),
        // Drawn content has a line longer than maxBytes only most of the time; this one
        // always does, so a backend that stalls on such a line fails on every run.
        { ...(params as fc.Parameters<[string, { limit: number; maxBytes: number }]>), examples: [[`short\n${'x'.repeat(40)}\nend\n`, { limit: 3, maxBytes: 8 }]] },
      );
    });

    test('grep answers what the reference grep answers, for any content and query', async (h, ctx) => {
      h.requireReader(ctx);
      const cases = linesContentArbitrary().chain((content) =>
        fc.tuple(fc.constant(content), fc.array(grepQueryArbitrary(content), { minLength: 1, maxLength: 6 })),
      );
      await fc.assert(
        fc.asyncProperty(cases, async ([content, queries]) => {
          await withHarness(options, async (run) => {
            const reader = run.requireReader(ctx);
            const ref = await run.save(content);
            const artifact = new ReferenceArtifact(content);
            for (const { pattern, options: grepOptions } of queries) {
              const problems = checkGrepResult(artifact, pattern, grepOptions, await reader.grep(ref.locator, pattern, grepOptions));
              if (problems.length > 0) fail(`grep(${JSON.stringify(pattern)}, ${JSON.stringify(grepOptions)}): ${problems.join('; ')}`);
            }
          });
        }),
        params,
      );
    });

    test('differential: every read and grep answers what the reference answers, errors included, for generated texts, patterns and options', async (h, ctx) => {
      h.requireReader(ctx);
      const cases = differentialTextArbitrary().chain((text) =>
        fc.tuple(
          fc.constant(text),
          fc.array(differentialGrepArbitrary(text), { minLength: 1, maxLength: 6 }),
          fc.array(differentialReadOptionsArbitrary(), { minLength: 1, maxLength: 3 }),
        ),
      );
      const outcome = async <T>(run: () => Promise<T> | T): Promise<{ value: T } | { code: string }> => {
        try {
          return { value: await run() };
        } catch (error) {
          return { code: isSpillError(error) ? error.code : `not a SpillError: ${String(error)}` };
        }
      };
      await fc.assert(
        fc.asyncProperty(cases, async ([text, greps, reads]) => {
          await withHarness(options, async (run) => {
            const reader = run.requireReader(ctx);
            const ref = await run.save(text);
            const artifact = new ReferenceArtifact(text);
            for (const { pattern, options: raw } of greps) {
              const grepOptions = raw as GrepOptions;
              const call = `grep(${JSON.stringify(pattern)}, ${JSON.stringify(raw)})`;
              const expected = await outcome(() => artifact.grep(pattern, grepOptions));
              const actual = await outcome(() => reader.grep(ref.locator, pattern, grepOptions));
              if ('code' in expected || 'code' in actual) {
                const want = 'code' in expected ? expected.code : 'an answer';
                const got = 'code' in actual ? actual.code : 'an answer';
                if (want !== got) fail(`${call}: answered ${got}, the reference answers ${want}`);
                continue;
              }
              const problems = checkGrepResult(artifact, pattern, grepOptions, actual.value);
              if (problems.length > 0) fail(`${call}: ${problems.join('; ')}`);
            }
            for (const raw of reads) {
              const readOptions = raw as ReadOptions;
              const call = `read(${JSON.stringify(raw)})`;
              const expected = await outcome(() => artifact.read(readOptions));
              const actual = await outcome(() => reader.read(ref.locator, readOptions));
              if ('code' in expected || 'code' in actual) {
                const want = 'code' in expected ? expected.code : 'an answer';
                const got = 'code' in actual ? actual.code : 'an answer';
                if (want !== got) fail(`${call}: answered ${got}, the reference answers ${want}`);
                continue;
              }
              const problems = checkReadResult(artifact, readOptions, actual.value);
              if (problems.length > 0) fail(`${call}: ${problems.join('; ')}`);
            }
          });
        }),
        params,
      );
    });
  });
}

/**
 * Reads a whole artifact the way a simple client does: it follows `nextOffset` while one is
 * offered, and only when a line is longer than `maxBytes` (no `nextOffset`, `truncated`)
 * re-reads that one line with a doubled cap. With `maxBytes` >= 4 at least one code point
 * always fits, so every read must make progress; the number of reads is bounded by the
 * lines and the doublings, and passing that bound fails instead of looping.
 */
async function pageByNextOffset(
  reader: SpillReader,
  locator: SpillLocator,
  limit: number,
  maxBytes: number,
  artifact: ReferenceArtifact,
): Promise<string> {
  const maxReads = artifact.lineCount * (3 + Math.ceil(Math.log2(artifact.totalBytes + 1))) + 1;
  const parts: string[] = [];
  let reads = 0;
  const read = async (offset: number, lines: number, bytes: number): Promise<ReadResult> => {
    reads++;
    if (reads > maxReads) fail(`paging with limit ${limit} and maxBytes ${maxBytes} did not end after ${maxReads} reads (at offset ${offset})`);
    const r = await reader.read(locator, { offset, limit: lines, maxBytes: bytes });
    if (r.startLine !== offset) fail(`read({ offset: ${offset} }) answered startLine ${r.startLine}`);
    if (r.nextOffset !== undefined && (r.nextOffset <= offset || r.nextOffset !== r.endLine + 1)) {
      fail(`read({ offset: ${offset}, maxBytes: ${bytes} }) offered nextOffset ${r.nextOffset} with endLine ${r.endLine}: no progress`);
    }
    if (r.hasMore && r.nextOffset === undefined && (!r.truncated || r.text === '')) {
      fail(`read({ offset: ${offset}, maxBytes: ${bytes} }) has more but neither a nextOffset nor a non-empty cut of an over-long line`);
    }
    return r;
  };
  let offset = 1;
  for (;;) {
    let r = await read(offset, limit, maxBytes);
    for (let wide = maxBytes * 2; r.truncated; wide *= 2) r = await read(offset, 1, wide);
    parts.push(r.text);
    if (!r.hasMore) return parts.join('');
    if (r.nextOffset === undefined) return fail(`read({ offset: ${offset} }) has more but no nextOffset after a whole line`);
    offset = r.nextOffset;
  }
}
