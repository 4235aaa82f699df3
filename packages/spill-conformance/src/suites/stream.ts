import { utf8ByteLength, type SpillRef } from '@spillway/core';
import { describe } from 'vitest';
import { toChunkSource, type ChunkDelivery } from '../arbitraries.js';
import { checkRef, fail, type Harness } from '../harness.js';
import type { ResolvedConformanceOptions, SpillBackendFixture } from '../options.js';
import { makeLargeContent } from '../samples.js';
import { testDefiner } from './define-test.js';

const DELIVERIES: readonly (readonly [ChunkDelivery, string])[] = [
  ['array', 'an array'],
  ['generator', 'a generator'],
  ['async-generator', 'an async generator'],
];

async function saveChunks<F extends SpillBackendFixture>(
  h: Harness<F>,
  chunks: readonly string[],
  delivery: ChunkDelivery,
): Promise<SpillRef> {
  const ref = await h.backend.saveTextStream(h.streamRequest(toChunkSource(chunks, delivery)));
  checkRef(ref, utf8ByteLength(chunks.join('')), `saveTextStream (${delivery})`);
  return ref;
}

/** Registers the `saveTextStream` tests: the stored artifact is the concatenation of the chunks. */
export function describeSaveTextStream<F extends SpillBackendFixture>(options: ResolvedConformanceOptions<F>): void {
  const test = testDefiner(options);
  describe('saveTextStream', () => {
    for (const [delivery, as] of DELIVERIES) {
      test(`stores the concatenation of chunks delivered as ${as}`, async (h, ctx) => {
        const chunks = ['first line\n', 'second ', 'line\n', '', 'caf\u00e9 \u{1F600}\n', 'no final newline'];
        const ref = await saveChunks(h, chunks, delivery);
        h.requireReadBack(ctx);
        await h.expectStored(ref, chunks.join(''));
      });

      test(`joins a surrogate pair split across chunks delivered as ${as}`, async (h, ctx) => {
        // U+1F600 is \uD83D\uDE00: split, it must still be stored as one 4-byte character.
        const chunks = ['a\uD83D', '\uDE00b', '\uD83D', '', '\uDE00'];
        const ref = await saveChunks(h, chunks, delivery);
        h.requireReadBack(ctx);
        await h.expectStored(ref, 'a\u{1F600}b\u{1F600}');
      });
    }

    test('stores a lone surrogate at the very end of a stream as U+FFFD', async (h, ctx) => {
      const ref = await saveChunks(h, ['ab', '\uD83D'], 'async-generator');
      h.requireReadBack(ctx);
      await h.expectStored(ref, 'ab\uFFFD');
    });

    test('stores an empty artifact for a stream with no chunks or only empty ones', async (h, ctx) => {
      const none = await saveChunks(h, [], 'async-generator');
      const empties = await saveChunks(h, ['', '', ''], 'generator');
      h.requireReadBack(ctx);
      await h.expectStored(none, '', 'the artifact of a stream with no chunks');
      await h.expectStored(empties, '', 'the artifact of a stream of empty chunks');
    });

    test('stores the same artifact as saveText for the same text, one character per chunk', async (h, ctx) => {
      const text = 'x\u00e9\u{1F600}\r\n\uD800\u0000end';
      const whole = await h.save(text);
      const streamed = await saveChunks(h, text.split(''), 'async-generator');
      if (streamed.bytes !== whole.bytes) fail(`saveTextStream reported ${streamed.bytes} bytes, saveText ${whole.bytes}`);
      h.requireReadBack(ctx);
      await h.expectStored(streamed, text);
    });

    test(`stores several megabytes delivered in 64 KiB chunks (${options.largeContentBytes} bytes)`, async (h, ctx) => {
      const content = makeLargeContent(options.largeContentBytes);
      const chunks: string[] = [];
      // Cut every 65536 UTF-16 units, wherever that falls (inside pairs too).
      for (let i = 0; i < content.length; i += 65_536) chunks.push(content.slice(i, i + 65_536));
      const ref = await saveChunks(h, chunks, 'async-generator');
      h.requireReadBack(ctx);
      await h.expectStored(ref, content, 'the large streamed artifact');
    });
  });
}
