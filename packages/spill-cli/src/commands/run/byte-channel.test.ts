import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteChannel } from './byte-channel.js';

describe('ByteChannel', () => {
  it('hands over every chunk in order, and a push resolves only once the consumer took its chunk', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ minLength: 1, maxLength: 8 }), { maxLength: 20 }), async (chunks) => {
        const channel = new ByteChannel();
        const taken: Uint8Array[] = [];
        let waiting = 0;
        const consumer = (async () => {
          for await (const chunk of channel) {
            taken.push(chunk);
            // The producer has not gone past this chunk: at most one push is pending.
            expect(waiting).toBeLessThanOrEqual(1);
            await new Promise((resolve) => setImmediate(resolve));
          }
        })();
        for (const [i, chunk] of chunks.entries()) {
          waiting++;
          await channel.push(chunk);
          waiting--;
          // The consumer took this chunk off the channel, so it is done with every earlier one.
          expect(taken.length).toBeGreaterThanOrEqual(i);
          expect(taken.length).toBeLessThanOrEqual(i + 1);
        }
        channel.close();
        await consumer;
        expect(taken).toEqual(chunks);
      }),
      { numRuns: 30 },
    );
  });

  it('lets the producer go on at once when the consumer stops', async () => {
    const channel = new ByteChannel();
    const consumer = (async () => {
      for await (const _chunk of channel) break;
    })();
    await channel.push(Uint8Array.of(1));
    await consumer;
    expect(channel.stopped).toBe(true);
    // Nobody takes this one: it must not hang.
    await channel.push(Uint8Array.of(2));
    channel.stop();
    await channel.push(Uint8Array.of(3));
  });
});
