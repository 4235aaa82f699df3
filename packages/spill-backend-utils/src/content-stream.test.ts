import { isSpillError } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { ContentStream, forEachChunk } from './content-stream.js';

async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('forEachChunk', () => {
  it('hands over every chunk of a sync or async iterable, in order', async () => {
    async function* gen(): AsyncGenerator<string> {
      yield await Promise.resolve('a');
      yield 'b';
    }
    for (const content of [['a', 'b'], gen()]) {
      const seen: string[] = [];
      await forEachChunk(content, undefined, (c) => {
        seen.push(c);
      });
      expect(seen).toEqual(['a', 'b']);
    }
  });

  it('turns a throwing producer into SPILL_STREAM_FAILED with the throw as cause', async () => {
    const boom = new Error('source broke');
    async function* gen(): AsyncGenerator<string> {
      yield await Promise.resolve('a');
      throw boom;
    }
    const error = await failureOf(() => forEachChunk(gen(), undefined, () => undefined));
    expect(isSpillError(error, 'SPILL_STREAM_FAILED')).toBe(true);
    expect((error as Error).cause).toBe(boom);
  });

  it('refuses a chunk that is not a string, and tells the producer to stop', async () => {
    let returned = false;
    const content: Iterable<unknown> = {
      [Symbol.iterator]: () => ({
        next: () => ({ done: false, value: 42 }),
        return: () => {
          returned = true;
          return { done: true, value: undefined };
        },
      }),
    };
    const error = await failureOf(() => forEachChunk(content, undefined, () => undefined));
    expect(isSpillError(error, 'SPILL_STREAM_FAILED')).toBe(true);
    expect(returned).toBe(true);
  });

  it('answers SPILL_ABORTED, not a stream failure, when the signal fires while a chunk is awaited', async () => {
    const controller = new AbortController();
    const never: AsyncIterable<string> = { [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<string>>(() => undefined) }) };
    const pending = failureOf(() => forEachChunk(never, controller.signal, () => undefined));
    controller.abort();
    expect(isSpillError(await pending, 'SPILL_ABORTED')).toBe(true);
  });

  it('passes on what the sink throws, unchanged', async () => {
    const mine = new Error('sink full');
    const error = await failureOf(() =>
      forEachChunk(['a'], undefined, () => {
        throw mine;
      }),
    );
    expect(error).toBe(mine);
  });

  it('refuses content that gives no iterator with SPILL_STREAM_FAILED', () => {
    const broken = {
      [Symbol.iterator]: () => {
        throw new Error('no iterator');
      },
    } as Iterable<unknown>;
    expect(() => new ContentStream(broken)).toThrow(expect.objectContaining({ code: 'SPILL_STREAM_FAILED' }) as Error);
  });
});
