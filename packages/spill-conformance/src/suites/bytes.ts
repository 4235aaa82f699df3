import { type SpillLocator, type SpillReader, type SpillRef } from '@spillway/core';
import fc from 'fast-check';
import { describe, type TestContext } from 'vitest';
import { checkRef, expectSpillRejection, fail, withHarness, type Harness } from '../harness.js';
import type { ResolvedConformanceOptions, SpillBackendFixture } from '../options.js';
import { describeBytesDifference } from '../text.js';
import { testDefiner } from './define-test.js';
import { fcParams } from './fc-params.js';
import { FORGED_LOCATORS, NON_STRING_LOCATORS } from './reader.js';

type ReadBytes = NonNullable<SpillReader['readBytes']>;
type SaveBytes = NonNullable<Harness<SpillBackendFixture>['backend']['saveBytesStream']>;

/** Bytes no text save could store: invalid UTF-8, NULs, a lone continuation byte, a cut sequence. */
export const AWKWARD_BYTES = Uint8Array.from([0x00, 0xff, 0xfe, 0x0a, 0x80, 0x00, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x0d, 0x0a, 0xf0, 0x9f, 0x98]);

export function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export async function collect(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) {
    if (!(chunk instanceof Uint8Array)) fail(`readBytes yielded ${typeof chunk}, not a Uint8Array`);
    chunks.push(chunk);
  }
  return concat(chunks);
}

function readBytesOf<F extends SpillBackendFixture>(h: Harness<F>, ctx: TestContext): ReadBytes {
  const reader = h.requireReader(ctx);
  if (reader.readBytes === undefined) return ctx.skip(`${h.backend.name}'s reader has no readBytes`);
  return (locator, callOptions) => (reader.readBytes as ReadBytes).call(reader, locator, callOptions);
}

function saveBytesOf<F extends SpillBackendFixture>(h: Harness<F>, ctx: TestContext): SaveBytes {
  const backend = h.backend;
  if (backend.saveBytesStream === undefined) return ctx.skip(`${backend.name} has no saveBytesStream`);
  return (input, callOptions) => (backend.saveBytesStream as SaveBytes).call(backend, input, callOptions);
}

/** The stored bytes of `ref`, through `readBytes` or a `hooks.readBack` that answers bytes; `undefined` when neither can tell. */
export async function storedBytes<F extends SpillBackendFixture>(h: Harness<F>, ref: SpillRef): Promise<Uint8Array | undefined> {
  const reader = h.backend.reader;
  if (reader?.readBytes !== undefined) return collect(reader.readBytes(ref.locator));
  const readBack = h.options.hooks.readBack;
  const stored = readBack === undefined ? undefined : await readBack(ref, h.fixture);
  return stored instanceof Uint8Array ? stored : undefined;
}

async function expectBytes<F extends SpillBackendFixture>(h: Harness<F>, ctx: TestContext, ref: SpillRef, expected: Uint8Array, what: string): Promise<void> {
  const stored = await storedBytes(h, ref);
  if (stored === undefined) return ctx.skip(`${h.backend.name} has no readBytes and no hooks.readBack answering bytes, so stored bytes cannot be checked`);
  const difference = describeBytesDifference(stored, expected);
  if (difference !== undefined) fail(`${what} read back differs from what was saved: ${difference}`);
}

function* syncChunks(chunks: readonly Uint8Array[]): Generator<Uint8Array> {
  yield* chunks;
}

async function* asyncChunks(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) {
    await Promise.resolve();
    yield chunk;
  }
}

/**
 * Registers the byte-exact tests: `saveBytesStream` (skipped when the backend has none) and
 * `reader.readBytes` (skipped when its reader has none).
 */
export function describeBytes<F extends SpillBackendFixture>(options: ResolvedConformanceOptions<F>): void {
  const test = testDefiner(options);
  const params = fcParams(options, options.numRuns);

  describe('saveBytesStream', () => {
    test('stores invalid UTF-8, NUL bytes and cut sequences byte for byte', async (h, ctx) => {
      const save = saveBytesOf(h, ctx);
      const chunks = [AWKWARD_BYTES.subarray(0, 3), new Uint8Array(0), AWKWARD_BYTES.subarray(3, 9), AWKWARD_BYTES.subarray(9)];
      for (const [content, how] of [[chunks, 'an array'], [syncChunks(chunks), 'a generator'], [asyncChunks(chunks), 'an async generator']] as const) {
        const ref = await save({ ...h.request(''), content });
        checkRef(ref, AWKWARD_BYTES.length, `saveBytesStream (${how})`);
        await expectBytes(h, ctx, ref, AWKWARD_BYTES, `bytes delivered as ${how}`);
      }
    });

    test('stores an empty artifact for a stream with no chunks', async (h, ctx) => {
      const save = saveBytesOf(h, ctx);
      const ref = await save({ ...h.request(''), content: [] });
      checkRef(ref, 0, 'saveBytesStream of no chunks');
      await expectBytes(h, ctx, ref, new Uint8Array(0), 'the empty artifact');
    });

    test(`stores ${options.largeContentBytes} bytes of every value delivered in 64 KiB chunks`, async (h, ctx) => {
      const save = saveBytesOf(h, ctx);
      const content = new Uint8Array(options.largeContentBytes);
      for (let i = 0; i < content.length; i++) content[i] = (i * 131 + (i >>> 11)) & 0xff;
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < content.length; i += 65_536) chunks.push(content.subarray(i, i + 65_536));
      const ref = await save({ ...h.request(''), content: asyncChunks(chunks) });
      checkRef(ref, content.length, 'saveBytesStream of the large content');
      await expectBytes(h, ctx, ref, content, 'the large byte artifact');
    });

    test('a stream that throws, or yields a string, rejects with SPILL_STREAM_FAILED and publishes nothing', async (h, ctx) => {
      const save = saveBytesOf(h, ctx);
      const before = await h.snapshot();
      async function* throwing(): AsyncGenerator<Uint8Array> {
        yield await Promise.resolve(Uint8Array.of(1, 2, 3));
        throw new Error('the producer broke');
      }
      await expectSpillRejection('a throwing byte stream', 'SPILL_STREAM_FAILED', () => save({ ...h.request(''), content: throwing() }));
      const strings = ['text, not bytes'] as unknown as Uint8Array[];
      await expectSpillRejection('a byte stream yielding a string', 'SPILL_STREAM_FAILED', () => save({ ...h.request(''), content: strings }));
      await h.expectNothingPublished(before, 'the failed byte saves', ctx);
    });

    test('an aborted signal rejects with SPILL_ABORTED and publishes nothing', async (h, ctx) => {
      const save = saveBytesOf(h, ctx);
      const before = await h.snapshot();
      await expectSpillRejection('saveBytesStream with an aborted signal', 'SPILL_ABORTED', () =>
        save({ ...h.request(''), content: [Uint8Array.of(0)] }, { signal: AbortSignal.abort() }),
      );
      await h.expectNothingPublished(before, 'the aborted byte save', ctx);
    });

    test('content that is not iterable rejects with SPILL_INVALID_INPUT', async (h, ctx) => {
      const save = saveBytesOf(h, ctx);
      await expectSpillRejection('saveBytesStream of a number', 'SPILL_INVALID_INPUT', () => save({ ...h.request(''), content: 42 as unknown as Uint8Array[] }));
    });

    test('any bytes, cut into any chunks, round-trip exactly', async (h, ctx) => {
      saveBytesOf(h, ctx);
      if (h.backend.reader?.readBytes === undefined && h.options.hooks.readBack === undefined) return ctx.skip('no way to read bytes back');
      const chunked = fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 12 });
      await fc.assert(
        fc.asyncProperty(chunked, fc.boolean(), async (chunks, useAsync) => {
          await withHarness(options, async (run) => {
            const content = concat(chunks);
            if (run.backend.saveBytesStream === undefined) fail('saveBytesStream disappeared between fixtures');
            const ref = await run.backend.saveBytesStream({ ...run.request(''), content: useAsync ? asyncChunks(chunks) : chunks });
            checkRef(ref, content.length, 'saveBytesStream');
            const stored = await storedBytes(run, ref);
            if (stored === undefined) return;
            const difference = describeBytesDifference(stored, content);
            if (difference !== undefined) fail(`bytes read back differ from what was saved: ${difference}`);
          });
        }),
        params,
      );
    });
  });

  describe('reader.readBytes', () => {
    test('answers the UTF-8 bytes of a saved text, whole', async (h, ctx) => {
      const readBytes = readBytesOf(h, ctx);
      const text = 'line one\ncaf\u00e9 \u{1F600}\r\n\u0000end';
      const ref = await h.save(text);
      const difference = describeBytesDifference(await collect(readBytes(ref.locator)), new TextEncoder().encode(text));
      if (difference !== undefined) fail(`readBytes differs from the UTF-8 of the saved text: ${difference}`);
    });

    test('answers a large artifact in several chunks, each at most a few MiB', async (h, ctx) => {
      const readBytes = readBytesOf(h, ctx);
      const text = 'abcdefghij\n'.repeat(Math.floor(options.largeContentBytes / 11));
      const ref = await h.save(text);
      let total = 0;
      let chunks = 0;
      for await (const chunk of readBytes(ref.locator)) {
        chunks++;
        total += chunk.length;
        if (chunk.length > 16 * 1024 * 1024) fail(`readBytes yielded one chunk of ${chunk.length} bytes: memory is not bounded`);
      }
      if (total !== ref.bytes) fail(`readBytes yielded ${total} bytes of ${ref.bytes}`);
      if (ref.bytes > 16 * 1024 * 1024 && chunks < 2) fail('readBytes yielded a large artifact in one chunk');
    });

    test('stopping early releases the artifact: it can be read again and deleted', async (h, ctx) => {
      const readBytes = readBytesOf(h, ctx);
      const ref = await h.save('x'.repeat(Math.min(300_000, options.largeContentBytes)));
      for await (const chunk of readBytes(ref.locator)) {
        if (chunk.length === 0) fail('readBytes yielded an empty chunk');
        break;
      }
      const again = await collect(readBytes(ref.locator));
      if (again.length !== ref.bytes) fail(`the second readBytes yielded ${again.length} of ${ref.bytes} bytes`);
      if (h.backend.catalog !== undefined && !(await h.backend.catalog.delete(ref.locator))) fail('the artifact could not be deleted after an early stop');
    });

    for (const [label, make] of FORGED_LOCATORS) {
      test(`readBytes of ${label} is refused with SPILL_INVALID_LOCATOR or SPILL_NOT_FOUND`, async (h, ctx) => {
        const readBytes = readBytesOf(h, ctx);
        const real = await h.save('the real artifact\n');
        let foreign = '';
        await withHarness(options, async (other) => {
          foreign = (await other.save('an artifact of another instance\n')).locator;
        });
        const stream = readBytes(make(real.locator, foreign) as SpillLocator);
        await expectSpillRejection(`readBytes of ${label}`, ['SPILL_INVALID_LOCATOR', 'SPILL_NOT_FOUND'], () => collect(stream));
      });
    }

    for (const [label, value] of NON_STRING_LOCATORS) {
      test(`readBytes of ${label} as a locator is refused with SPILL_INVALID_LOCATOR`, async (h, ctx) => {
        const readBytes = readBytesOf(h, ctx);
        const stream = readBytes(value as SpillLocator);
        await expectSpillRejection(`readBytes of ${label}`, 'SPILL_INVALID_LOCATOR', () => collect(stream));
      });
    }

    test('bad options reject with SPILL_INVALID_INPUT and an aborted signal with SPILL_ABORTED', async (h, ctx) => {
      const readBytes = readBytesOf(h, ctx);
      const ref = await h.save('a\n');
      await expectSpillRejection('readBytes with a signal that is not one', 'SPILL_INVALID_INPUT', () => collect(readBytes(ref.locator, { signal: 'stop' as unknown as AbortSignal })));
      await expectSpillRejection('readBytes with options that are not an object', 'SPILL_INVALID_INPUT', () => collect(readBytes(ref.locator, 7 as unknown as object)));
      await expectSpillRejection('readBytes with an aborted signal', 'SPILL_ABORTED', () => collect(readBytes(ref.locator, { signal: AbortSignal.abort() })));
    });
  });
}
