import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SinkScan } from './file-sink-route.js';
import { outputScan } from './shared.js';

/** Output with lines a preview keeps, multi-byte characters and long runs, as bytes. */
const output = fc
  .array(
    fc.oneof(
      fc.constantFrom('error: the build broke\n', 'FATAL: out of cheese\n', 'ok step\n', 'é€😀\n', '\n'),
      fc.nat({ max: 200_000 }).map((n) => `line ${String(n)} ${'x'.repeat(n % 300)}\n`),
    ),
    { maxLength: 400 },
  )
  .map((lines) => Buffer.from(lines.join('')));

describe('SinkScan', () => {
  it('scans what a file holds as one push of the whole would, however short its reads and wherever it is followed', async () => {
    await fc.assert(
      fc.asyncProperty(output, fc.array(fc.nat(), { maxLength: 6 }), fc.integer({ min: 1, max: 70_000 }), async (bytes, stops, longestRead) => {
        // A reader whose every read is cut short, as a file still being written may answer.
        const reader = {
          read: (buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> => {
            const n = Math.max(0, Math.min(length, longestRead, bytes.length - position));
            buffer.set(bytes.subarray(position, position + n), offset);
            return Promise.resolve(n);
          },
        };
        const cap = 512;
        const scan = new SinkScan(reader, cap);
        for (const stop of stops.map((s) => (bytes.length === 0 ? 0 : s % (bytes.length + 1))).sort((a, b) => a - b)) scan.follow(stop);
        const followed = (await scan.finish(bytes.length)).finish();
        const whole = await outputScan(cap);
        whole.push(bytes);
        expect(followed).toEqual(whole.finish());
      }),
      { numRuns: 60 },
    );
  });
});
