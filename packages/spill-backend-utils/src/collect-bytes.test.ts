import { describe, expect, it } from 'vitest';
import { callId, isSpillError, sessionId } from '@spillway/core';
import { bufferedSaves } from './buffered-saves.js';

const envelope = { owner: { sessionId: sessionId('s') }, source: { toolName: 't', callId: callId('c') }, suggestedName: 'out.bin' };

function store(maxBytes: number) {
  const kept: Uint8Array[] = [];
  const saves = bufferedSaves({
    maxBytes,
    put: (_input, bytes) => {
      kept.push(bytes);
      return { locator: `k${String(kept.length)}` as never, bytes: bytes.length, retrievalHint: 'read it' };
    },
  });
  return { saves, kept };
}

async function* pieces(...chunks: Uint8Array[]): AsyncIterable<Uint8Array> {
  for (const chunk of chunks) yield await Promise.resolve(chunk);
}

describe('bufferedSaves().saveBytesStream', () => {
  it('stores the bytes exactly, invalid UTF-8 and NUL included, copied from a reused buffer', async () => {
    const { saves, kept } = store(1024);
    const reused = new Uint8Array([0xff, 0x00, 0xc3]);
    async function* reusing(): AsyncIterable<Uint8Array> {
      yield await Promise.resolve(reused);
      reused.set([0x28, 0x29, 0x0a]);
      yield reused;
    }
    const ref = await saves.saveBytesStream({ ...envelope, content: reusing() });
    expect(ref.bytes).toBe(6);
    expect([...(kept[0] ?? [])]).toEqual([0xff, 0x00, 0xc3, 0x28, 0x29, 0x0a]);
  });

  it('refuses more than maxBytes with SPILL_TOO_LARGE and stores nothing', async () => {
    const { saves, kept } = store(4);
    const error: unknown = await saves.saveBytesStream({ ...envelope, content: pieces(new Uint8Array(3), new Uint8Array(3)) }).catch((e: unknown) => e);
    expect(isSpillError(error, 'SPILL_TOO_LARGE')).toBe(true);
    expect(kept).toEqual([]);
  });

  it('refuses a chunk that is not bytes with SPILL_STREAM_FAILED, and a bad request with SPILL_INVALID_INPUT', async () => {
    const { saves, kept } = store(1024);
    async function* text(): AsyncIterable<unknown> {
      yield await Promise.resolve('not bytes');
    }
    const streamError: unknown = await saves.saveBytesStream({ ...envelope, content: text() as AsyncIterable<Uint8Array> }).catch((e: unknown) => e);
    expect(isSpillError(streamError, 'SPILL_STREAM_FAILED')).toBe(true);
    const inputError: unknown = await saves.saveBytesStream({ ...envelope, owner: {} } as never).catch((e: unknown) => e);
    expect(isSpillError(inputError, 'SPILL_INVALID_INPUT')).toBe(true);
    expect(kept).toEqual([]);
  });
});
