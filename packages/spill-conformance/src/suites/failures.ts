import type { SaveTextStreamSpill, SpillErrorCode } from '@spillway/core';
import { describe, type TestContext } from 'vitest';
import { expectAnySpillRejection, expectSpillRejection, fail, type Harness } from '../harness.js';
import type { ResolvedConformanceOptions, SpillBackendFixture } from '../options.js';
import { testDefiner } from './define-test.js';

const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

/** Streams that fail part-way, after some chunks were delivered. */
const FAILING_STREAMS: readonly (readonly [label: string, make: () => Iterable<string> | AsyncIterable<string>])[] = [
  [
    'a generator that throws after two chunks',
    () =>
      (function* () {
        yield 'partial line\n';
        yield 'more partial text\n';
        throw new Error('source failed');
      })(),
  ],
  [
    'an async generator that throws after awaiting',
    () =>
      (async function* () {
        yield 'partial line\n';
        await pause();
        yield 'x'.repeat(10_000);
        await pause();
        throw new Error('connection reset');
      })(),
  ],
  [
    'an async iterator whose next() rejects',
    () => {
      let step = 0;
      return {
        [Symbol.asyncIterator]() {
          return {
            next: (): Promise<IteratorResult<string>> =>
              step++ < 2 ? Promise.resolve({ done: false, value: `chunk ${step}\n` }) : Promise.reject(new Error('read failed')),
          };
        },
      };
    },
  ],
  [
    'an iterator whose next() throws synchronously',
    () => {
      let step = 0;
      return {
        [Symbol.iterator]() {
          return {
            next: (): IteratorResult<string> => {
              if (step++ < 1) return { done: false, value: 'chunk\n' };
              throw new Error('sync failure');
            },
          };
        },
      };
    },
  ],
];

/** Values that are not strings, yielded after a valid chunk. */
const NON_STRING_CHUNKS: readonly (readonly [label: string, value: unknown])[] = [
  ['a number', 42],
  ['null', null],
  ['undefined', undefined],
  ['a Uint8Array', new TextEncoder().encode('bytes')],
  ['an object with toString', { toString: () => 'sneaky' }],
  ['an array of strings', ['a', 'b']],
];

function streamOf(chunks: readonly unknown[]): AsyncIterable<string> {
  return (async function* () {
    for (const chunk of chunks) {
      await pause();
      yield chunk as string;
    }
  })();
}

type Request = Record<string, unknown>;

/** Malformed save requests, each made from a valid request (of either method). */
export const MALFORMED_REQUESTS: readonly (readonly [label: string, make: (valid: Request) => unknown])[] = [
  ['null instead of a request', () => null],
  ['a number instead of a request', () => 42],
  ['a string instead of a request', () => 'request'],
  ['no owner', (v) => ({ ...v, owner: undefined })],
  ['a null owner', (v) => ({ ...v, owner: null })],
  ['an empty session id', (v) => ({ ...v, owner: { sessionId: '' } })],
  ['a numeric session id', (v) => ({ ...v, owner: { sessionId: 7 } })],
  ['no source', (v) => ({ ...v, source: undefined })],
  ['a numeric tool name', (v) => ({ ...v, source: { ...(v.source as Request), toolName: 1 } })],
  ['no call id', (v) => ({ ...v, source: { toolName: 'tool' } })],
  ['an empty call id', (v) => ({ ...v, source: { ...(v.source as Request), callId: '' } })],
  ['no suggested name', (v) => ({ ...v, suggestedName: undefined })],
  ['a numeric suggested name', (v) => ({ ...v, suggestedName: 3 })],
];

async function expectFailedSave<F extends SpillBackendFixture>(
  h: Harness<F>,
  ctx: TestContext,
  what: string,
  codes: SpillErrorCode | readonly SpillErrorCode[],
  call: () => Promise<unknown>,
): Promise<void> {
  const before = await h.snapshot();
  await expectSpillRejection(what, codes, call);
  await h.expectNothingPublished(before, what, ctx);
}

/** Registers the failure tests: every failed save rejects with the right code and publishes nothing. */
export function describeFailedSaves<F extends SpillBackendFixture>(options: ResolvedConformanceOptions<F>): void {
  const test = testDefiner(options);
  const { hooks } = options;

  describe('failed saves publish nothing', () => {
    for (const [label, make] of FAILING_STREAMS) {
      test(`${label} makes saveTextStream reject with SPILL_STREAM_FAILED`, async (h, ctx) => {
        await expectFailedSave(h, ctx, `saveTextStream of ${label}`, 'SPILL_STREAM_FAILED', () =>
          h.backend.saveTextStream(h.streamRequest(make())),
        );
      });
    }

    for (const [label, value] of NON_STRING_CHUNKS) {
      test(`a stream yielding ${label} makes saveTextStream reject with SPILL_STREAM_FAILED`, async (h, ctx) => {
        await expectFailedSave(h, ctx, `saveTextStream of a stream yielding ${label}`, 'SPILL_STREAM_FAILED', () =>
          h.backend.saveTextStream(h.streamRequest(streamOf(['valid first chunk\n', value, 'after\n']))),
        );
      });
    }

    test('an already-aborted signal makes saveText reject with SPILL_ABORTED', async (h, ctx) => {
      const signal = AbortSignal.abort(new Error('stopped by the user'));
      await expectFailedSave(h, ctx, 'saveText with an aborted signal', 'SPILL_ABORTED', () =>
        h.backend.saveText(h.request('never stored\n'), { signal }),
      );
    });

    test('an already-aborted signal makes saveTextStream reject with SPILL_ABORTED', async (h, ctx) => {
      const signal = AbortSignal.abort(new Error('stopped by the user'));
      await expectFailedSave(h, ctx, 'saveTextStream with an aborted signal', 'SPILL_ABORTED', () =>
        h.backend.saveTextStream(h.streamRequest(streamOf(['never ', 'stored\n'])), { signal }),
      );
    });

    test('aborting while a stream is still delivering makes saveTextStream reject with SPILL_ABORTED', async (h, ctx) => {
      const controller = new AbortController();
      let reachGate: () => void = () => undefined;
      const reached = new Promise<void>((resolve) => (reachGate = resolve));
      let openGate: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (openGate = resolve));
      const chunks = (async function* () {
        yield 'first chunk\n';
        reachGate();
        await gate;
        yield 'second chunk, delivered after the abort\n';
      })();
      const before = await h.snapshot();
      const saving = expectSpillRejection('saveTextStream aborted mid-stream', 'SPILL_ABORTED', () =>
        h.backend.saveTextStream(h.streamRequest(chunks), { signal: controller.signal }),
      );
      // Abort once the backend has consumed the first chunk and asked for the next.
      await Promise.race([reached, saving.then(() => undefined, () => undefined)]);
      controller.abort(new Error('stopped mid-stream'));
      openGate();
      await saving;
      await h.expectNothingPublished(before, 'a save aborted mid-stream', ctx);
    });

    test('aborting while the stream waits for its next chunk rejects with SPILL_ABORTED at once and tells the producer to stop', async (h, ctx) => {
      const controller = new AbortController();
      let asked = (): void => undefined;
      const waiting = new Promise<void>((resolve) => (asked = resolve));
      const producer = { stopped: false };
      let release = (): void => undefined;
      const stalled: AsyncIterable<string> = {
        [Symbol.asyncIterator]: () => {
          let first = true;
          return {
            next: () => {
              if (first) {
                first = false;
                return Promise.resolve({ done: false, value: 'the only chunk\n' });
              }
              asked();
              // Answered only after the abort: a backend that waits for the producer instead
              // of the signal sees the stream end, and fails here rather than hanging.
              return new Promise<IteratorResult<string>>((resolve) => {
                release = () => {
                  resolve({ done: true, value: undefined });
                };
              });
            },
            return: () => {
              producer.stopped = true;
              return Promise.resolve({ done: true, value: undefined });
            },
          };
        },
      };
      const before = await h.snapshot();
      const saving = expectSpillRejection('saveTextStream aborted while waiting', 'SPILL_ABORTED', () =>
        h.backend.saveTextStream(h.streamRequest(stalled), { signal: controller.signal }),
      );
      await Promise.race([waiting, saving.then(() => undefined, () => undefined)]);
      controller.abort(new Error('gave up waiting'));
      release();
      await saving;
      if (!producer.stopped) fail('the save gave up on a stalled stream without calling its iterator\'s return(): the producer was never told to stop');
      await h.expectNothingPublished(before, 'a save aborted while its stream stalled', ctx);
    });

    for (const [label, make] of MALFORMED_REQUESTS) {
      test(`saveText rejects a request with ${label} with SPILL_INVALID_INPUT`, async (h, ctx) => {
        const request = make({ ...h.request('text\n') });
        await expectFailedSave(h, ctx, `saveText of a request with ${label}`, 'SPILL_INVALID_INPUT', () =>
          h.backend.saveText(request as never),
        );
      });
      test(`saveTextStream rejects a request with ${label} with SPILL_INVALID_INPUT`, async (h, ctx) => {
        const request = make({ ...h.streamRequest(['text\n']) });
        await expectFailedSave(h, ctx, `saveTextStream of a request with ${label}`, 'SPILL_INVALID_INPUT', () =>
          h.backend.saveTextStream(request as never),
        );
      });
    }

    const badTexts: readonly (readonly [string, unknown])[] = [
      ['a number', 42],
      ['null', null],
      ['undefined', undefined],
      ['a Uint8Array', new TextEncoder().encode('bytes')],
      ['an array of strings', ['a', 'b']],
    ];
    for (const [label, content] of badTexts) {
      test(`saveText rejects ${label} as content with SPILL_INVALID_INPUT`, async (h, ctx) => {
        await expectFailedSave(h, ctx, `saveText of ${label}`, 'SPILL_INVALID_INPUT', () =>
          h.backend.saveText({ ...h.request(''), content } as never),
        );
      });
    }

    const badStreams: readonly (readonly [string, unknown])[] = [
      ['a number', 42],
      ['null', null],
      ['undefined', undefined],
      ['a plain object', { chunk: 'a' }],
    ];
    for (const [label, content] of badStreams) {
      test(`saveTextStream rejects ${label} as content with SPILL_INVALID_INPUT`, async (h, ctx) => {
        await expectFailedSave(h, ctx, `saveTextStream of ${label}`, 'SPILL_INVALID_INPUT', () =>
          h.backend.saveTextStream({ ...h.request(''), content } as unknown as SaveTextStreamSpill),
        );
      });
    }

    const breakStorage = hooks.breakStorage;
    for (const method of ['saveText', 'saveTextStream'] as const) {
      test(`a storage failure makes ${method} reject with a SpillError, and saving works again once repaired`, async (h, ctx) => {
        if (breakStorage === undefined) return ctx.skip('no hooks.breakStorage, so a storage failure cannot be provoked');
        const earlier = await h.save('saved before the failure\n');
        // Snapshot while storage works: a broken store may not even be listable.
        const before = await h.snapshot();
        const restore = await breakStorage(h.fixture);
        try {
          const content = 'lost to a storage failure\n'.repeat(100);
          await expectAnySpillRejection(`${method} on broken storage`, () =>
            method === 'saveText'
              ? h.backend.saveText(h.request(content))
              : h.backend.saveTextStream(h.streamRequest(streamOf([content, content]))),
          );
        } finally {
          await restore();
        }
        await h.expectNothingPublished(before, `${method} on broken storage`, ctx);
        const after = await h.save('saved after the repair\n');
        if (h.canReadBack) {
          await h.expectStored(earlier, 'saved before the failure\n', 'the artifact saved before the failure');
          await h.expectStored(after, 'saved after the repair\n', 'the artifact saved after the repair');
        }
      });
    }

    const max = hooks.maxArtifactBytes;
    test('accepts an artifact of exactly hooks.maxArtifactBytes', async (h, ctx) => {
      if (max === undefined) return ctx.skip('no hooks.maxArtifactBytes declared');
      const content = 'm'.repeat(max);
      const ref = await h.save(content);
      if (h.canReadBack) await h.expectStored(ref, content, 'the largest accepted artifact');
    });

    const tooLarge: readonly (readonly [string, (h: Harness<F>, max: number) => Promise<unknown>])[] = [
      ['saveText of hooks.maxArtifactBytes + 1 bytes', (h, m) => h.backend.saveText(h.request('m'.repeat(m + 1)))],
      [
        // Fewer UTF-16 units than the limit, more bytes: catches a size check on `.length`.
        'saveText of two-byte characters over the limit in bytes but not in UTF-16 units',
        (h, m) => h.backend.saveText(h.request('\u00e9'.repeat(Math.floor(m / 2) + 1))),
      ],
      [
        'saveTextStream of hooks.maxArtifactBytes + 1 bytes in four chunks',
        (h, m) => {
          const content = 'm'.repeat(m + 1);
          const size = Math.ceil(content.length / 4);
          const chunks: string[] = [];
          for (let i = 0; i < content.length; i += size) chunks.push(content.slice(i, i + size));
          return h.backend.saveTextStream(h.streamRequest(streamOf(chunks)));
        },
      ],
    ];
    for (const [label, call] of tooLarge) {
      test(`refuses ${label} with SPILL_TOO_LARGE, keeping what was stored`, async (h, ctx) => {
        if (max === undefined) return ctx.skip('no hooks.maxArtifactBytes declared');
        const small = 'a small artifact that must survive\n';
        const kept = await h.save(small);
        await expectFailedSave(h, ctx, label, 'SPILL_TOO_LARGE', () => call(h, max));
        if (h.canReadBack) await h.expectStored(kept, small, 'the artifact saved before the refused one');
      });
    }
  });
}
