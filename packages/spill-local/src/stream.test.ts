import fs from 'node:fs';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileWriter } from './file-writer.js';
import type { FsOps } from './fs-ops.js';
import { nodeFsOps } from './fs-ops.js';
import { createLocalBackend } from './index.js';
import { makeRoot, streamRequest } from './test-helpers.js';

/** FsOps whose `write` appends into memory, taking at most `step` bytes per call. */
function memoryOps(step: number): { ops: FsOps; bytes: () => Buffer } {
  const parts: Buffer[] = [];
  let size = 0;
  return {
    ops: {
      ...nodeFsOps,
      write: (_fd, buf, off, len, pos) => {
        expect(pos).toBe(size); // positioned writes continue exactly where the last ended
        const n = Math.min(len, step);
        parts.push(Buffer.from(buf.subarray(off, off + n)));
        size += n;
        return Promise.resolve(n);
      },
    },
    bytes: () => Buffer.concat(parts),
  };
}

const anyUtf16 = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 200 }).map((u) => String.fromCharCode(...u));

describe('incremental UTF-8 encoding', () => {
  it('any chunking of any UTF-16 text, lone surrogates included, writes exactly the bytes of the whole (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(anyUtf16, fc.constantFrom('\uD83D', '\uDE00', '\uD800', '\uDFFF', '😀', '')), { maxLength: 30 }),
        fc.integer({ min: 16, max: 64 }),
        fc.integer({ min: 1, max: 50 }),
        async (chunks, bufferBytes, step) => {
          const mem = memoryOps(step);
          const writer = new FileWriter(mem.ops, -1, bufferBytes);
          for (const c of chunks) await writer.writeChunk(c);
          const total = await writer.end();
          const expected = Buffer.from(chunks.join(''), 'utf8');
          expect(mem.bytes().equals(expected)).toBe(true);
          expect(total).toBe(expected.length);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a whole string larger than the buffer is encoded in slices without splitting a pair', async () => {
    const mem = memoryOps(1 << 20);
    const writer = new FileWriter(mem.ops, -1, 16);
    const text = '😀a'.repeat(100) + '\uD800';
    await writer.writeText(text);
    await writer.end();
    expect(mem.bytes().equals(Buffer.from(text))).toBe(true);
  });
});

describe('large streams', () => {
  let root: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ root, cleanup } = makeRoot('spill-stream-test-'));
  });
  afterEach(() => {
    cleanup();
  });

  it('a 256 MiB stream is stored with its exact byte count while memory stays bounded', async () => {
    const backend = createLocalBackend({ root });
    const chunk = `${'stream line with some text é 😀 '.repeat(32)}\n`;
    const chunkBytes = Buffer.byteLength(chunk);
    const count = Math.ceil((256 * 1024 * 1024) / chunkBytes);
    let peakRss = 0;
    const startRss = process.memoryUsage().rss;
    async function* produce(): AsyncGenerator<string> {
      for (let i = 0; i < count; i++) {
        // A fresh string each time, as a real producer would hand over.
        yield chunk.slice(0, -1) + '\n';
        if (i % 4096 === 0) {
          peakRss = Math.max(peakRss, process.memoryUsage().rss);
          await Promise.resolve();
        }
      }
    }
    const ref = await backend.saveTextStream(streamRequest(produce()));
    expect(ref.bytes).toBe(count * chunkBytes);
    expect(fs.statSync(ref.locator).size).toBe(count * chunkBytes);
    // Growth stays far below the stream's size (256 MiB): the writer holds one buffer.
    expect(peakRss - startRss).toBeLessThan(96 * 1024 * 1024);
    const tail = await backend.reader.read(ref.locator, { offset: count, limit: 5 });
    expect(tail.text).toBe(chunk);
    expect(tail.hasMore).toBe(false);
  }, 120_000);
});
