import { describe, expect, it } from 'vitest';
import { assertSaveBytesStreamRequest, byteChunks } from './bytes.js';
import { isSpillError } from './errors.js';

async function drain(chunks: AsyncIterable<Uint8Array>): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of chunks) out.push(...chunk);
  return out;
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return isSpillError(error) ? error.code : 'not a SpillError';
  }
}

describe('byteChunks', () => {
  it('passes byte chunks through as they are, from sync and async iterables', async () => {
    const chunks = [Uint8Array.of(0, 0xff), Buffer.from([0x80, 0])];
    expect(await drain(byteChunks(chunks, undefined))).toEqual([0, 0xff, 0x80, 0]);
    async function* gen(): AsyncGenerator<Uint8Array> {
      yield await Promise.resolve(Uint8Array.of(1));
    }
    expect(await drain(byteChunks(gen(), undefined))).toEqual([1]);
  });

  it('refuses a string chunk and a throwing stream with SPILL_STREAM_FAILED', async () => {
    expect(await codeOf(drain(byteChunks(['text'] as unknown as Uint8Array[], undefined)))).toBe('SPILL_STREAM_FAILED');
    function* broken(): Generator<Uint8Array> {
      yield Uint8Array.of(1);
      throw new Error('boom');
    }
    expect(await codeOf(drain(byteChunks(broken(), undefined)))).toBe('SPILL_STREAM_FAILED');
  });

  it('ends a hanging stream with SPILL_ABORTED and tells the producer to stop', async () => {
    const controller = new AbortController();
    let returned = false;
    const hanging: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise<IteratorResult<Uint8Array>>(() => undefined),
        return: () => {
          returned = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      }),
    };
    const pending = codeOf(drain(byteChunks(hanging, controller.signal)));
    controller.abort();
    expect(await pending).toBe('SPILL_ABORTED');
    expect(returned).toBe(true);
  });

  it('checks the request envelope and that content is iterable', () => {
    const base = { owner: { sessionId: 's' }, source: { toolName: 't', callId: 'c' }, suggestedName: 'n' };
    expect(() => { assertSaveBytesStreamRequest({ ...base, content: [] }); }).not.toThrow();
    expect(() => { assertSaveBytesStreamRequest({ ...base, content: 5 }); }).toThrow(expect.objectContaining({ code: 'SPILL_INVALID_INPUT' }));
  });
});
