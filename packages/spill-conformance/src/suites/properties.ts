import { utf8ByteLength, type ReadOptions } from '@spillway/core';
import fc from 'fast-check';
import { describe } from 'vitest';
import {
  chunkedContentArbitrary,
  contentArbitrary,
  grepQueryArbitrary,
  linesContentArbitrary,
  readOptionsArbitrary,
  sessionIdArbitrary,
  suggestedNameArbitrary,
  toChunkSource,
} from '../arbitraries.js';
import { checkRef, expectSpillErrorCode, fail, readWhole, withHarness } from '../harness.js';
import type { ResolvedOptions, SpillBackendFixture } from '../options.js';
import { checkGrepResult, checkReadResult, ReferenceArtifact } from '../reference-reader.js';
import { testDefiner } from './define-test.js';
import { fcParams } from './fc-params.js';

const anyContent = fc.oneof(contentArbitrary(), linesContentArbitrary());

/** Registers the fast-check properties. Each run gets a fresh fixture. */
export function describeProperties<F extends SpillBackendFixture>(options: ResolvedOptions<F>): void {
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
        fc.asyncProperty(chunkedContentArbitrary(), async ({ content, chunks, delivery }) => {
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
      const small: fc.Arbitrary<ReadOptions> = fc.record({ offset: fc.integer({ min: 1, max: 8 }), limit: fc.integer({ min: 0, max: 8 }), maxBytes: fc.integer({ min: 0, max: 12 }) });
      await fc.assert(
        fc.asyncProperty(anyContent, fc.array(small, { minLength: 1, maxLength: 6 }), async (content, reads) => {
          await withHarness(options, async (run) => {
            const reader = run.requireReader(ctx);
            const ref = await run.save(content);
            for (const readOptions of reads) {
              const maxBytes = readOptions.maxBytes ?? 0;
              if (maxBytes < 4) {
                // Below one code point a backend may refuse the request instead.
                const answer = await reader.read(ref.locator, readOptions).catch((error: unknown) => {
                  expectSpillErrorCode(`read(${JSON.stringify(readOptions)})`, error, 'SPILL_INVALID_INPUT');
                  return undefined;
                });
                if (answer === undefined) continue;
                const problems = checkReadResult(content, readOptions, answer);
                if (problems.length > 0) fail(`read(${JSON.stringify(readOptions)}): ${problems.join('; ')}`);
                continue;
              }
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
  });
}
