import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { spillLocator } from '@spillway/core';
import { FileWriter, WRITE_BUFFER_BYTES } from './file-writer.js';
import type { FsOps } from './fs-ops.js';
import { nodeFsOps } from './fs-ops.js';
import { createLocalBackend } from './index.js';
import { DIST_INDEX, DIST_NAMES, freshRootEachTest, runChild } from './test-helpers.js';

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
  freshRootEachTest('spill-stream-test-', (dir) => {
    root = dir;
  });

  // Memory is measured in a child of its own, not in the shared vitest worker: the child's
  // V8 heap is capped well below the stream's size, so buffering the stream's strings
  // would crash it (heap out of memory), and what it retains is read right after a forced
  // full GC, so the figure does not depend on when the collector happens to run. The
  // producer also checks, before each chunk, that the file on disk trails what it handed
  // over by at most the writer's buffer: the stream is written as it arrives.
  it('a 256 MiB stream is written as it arrives, with its exact byte count, in a child whose heap is capped at 32 MiB', async () => {
    const chunk = `${'stream line with some text é 😀 '.repeat(32)}\n`;
    const chunkBytes = Buffer.byteLength(chunk);
    const count = Math.ceil((256 * 1024 * 1024) / chunkBytes);
    const out = await runChild(
      `import fs from 'node:fs';
       import path from 'node:path';
       const { createLocalBackend } = await import(${JSON.stringify(DIST_INDEX)});
       const { sessionDirName } = await import(${JSON.stringify(DIST_NAMES)});
       const root = ${JSON.stringify(root)};
       const chunk = ${JSON.stringify(chunk)};
       const chunkBytes = Buffer.byteLength(chunk);
       const count = ${count};
       const sessionDir = path.join(root, sessionDirName('session-a'));
       const onDisk = () => {
         const tmp = fs.readdirSync(sessionDir).filter((n) => n.startsWith('.tmp-'));
         return tmp.length === 1 ? fs.statSync(path.join(sessionDir, tmp[0])).size : 0;
       };
       let maxLag = 0;
       let peakRetained = 0;
       async function* produce() {
         for (let i = 0; i < count; i++) {
           if (i % 4096 === 0 && i > 0) {
             maxLag = Math.max(maxLag, i * chunkBytes - onDisk());
             globalThis.gc();
             const m = process.memoryUsage();
             peakRetained = Math.max(peakRetained, m.heapUsed + m.arrayBuffers);
             await Promise.resolve();
           }
           // A fresh string each time, as a real producer would hand over.
           yield chunk.slice(0, -1) + '\\n';
         }
       }
       const backend = createLocalBackend({ root });
       const ref = await backend.saveTextStream({
         owner: { sessionId: 'session-a' }, source: { toolName: 't', callId: 'c' }, suggestedName: 'big.log', content: produce(),
       });
       console.log(JSON.stringify({ locator: ref.locator, bytes: ref.bytes, maxLag, peakRetained }));`,
      { nodeArgs: ['--max-old-space-size=32', '--expose-gc'], timeoutMs: 110_000 },
    );
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout) as { locator: string; bytes: number; maxLag: number; peakRetained: number };
    expect(result.bytes).toBe(count * chunkBytes);
    expect(fs.statSync(result.locator).size).toBe(count * chunkBytes);
    // The writer holds one 1 MiB buffer: the file never trails the producer by more.
    expect(result.maxLag).toBeLessThanOrEqual(WRITE_BUFFER_BYTES);
    // What survives a full GC is a few MiB, against a 256 MiB stream.
    expect(result.peakRetained).toBeLessThan(32 * 1024 * 1024);
    const tail = await createLocalBackend({ root }).reader.read(spillLocator(result.locator), { offset: count, limit: 5 });
    expect(tail.text).toBe(chunk);
    expect(tail.hasMore).toBe(false);
  }, 120_000);
});
