import { callId, isSpillError, sessionId, spillLocator } from '@spillway/core';
import type { SpillRef } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { bufferedSaves } from './buffered-saves.js';

const envelope = { owner: { sessionId: sessionId('s') }, source: { toolName: 't', callId: callId('c') }, suggestedName: 'x.txt' };

function recorder(maxBytes: number): { saves: ReturnType<typeof bufferedSaves>; puts: Uint8Array[] } {
  const puts: Uint8Array[] = [];
  const saves = bufferedSaves({
    maxBytes,
    put: (_input, bytes): SpillRef => {
      puts.push(bytes);
      return { locator: spillLocator(`kv://${String(puts.length)}`), bytes: bytes.length, retrievalHint: 'h' };
    },
  });
  return { saves, puts };
}

async function codeOf(run: () => Promise<unknown>): Promise<string | undefined> {
  return run().then(
    () => undefined,
    (error: unknown) => (isSpillError(error) ? error.code : 'other'),
  );
}

describe('bufferedSaves', () => {
  it('puts the exact UTF-8 bytes once, for text and for a stream that splits a surrogate pair', async () => {
    const { saves, puts } = recorder(1024);
    await saves.saveText({ ...envelope, content: 'héllo 😀' });
    await saves.saveTextStream({ ...envelope, content: ['héllo \uD83D', '\uDE00'] });
    expect(puts.map((b) => new TextDecoder().decode(b))).toEqual(['héllo 😀', 'héllo 😀']);
  });

  it('refuses what the contract refuses without calling put', async () => {
    const { saves, puts } = recorder(4);
    expect(await codeOf(() => saves.saveText({ ...envelope, content: 'é'.repeat(3) }))).toBe('SPILL_TOO_LARGE');
    expect(await codeOf(() => saves.saveTextStream({ ...envelope, content: ['ab', 'cde'] }))).toBe('SPILL_TOO_LARGE');
    expect(await codeOf(() => saves.saveTextStream({ ...envelope, content: [1] as unknown as string[] }))).toBe('SPILL_STREAM_FAILED');
    expect(await codeOf(() => saves.saveText({ ...envelope, content: 3 as unknown as string }))).toBe('SPILL_INVALID_INPUT');
    expect(await codeOf(() => saves.saveText({ ...envelope, content: 'a' }, { signal: AbortSignal.abort() }))).toBe('SPILL_ABORTED');
    expect(puts).toEqual([]);
  });
});
