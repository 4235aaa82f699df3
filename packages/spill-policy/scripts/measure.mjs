// Rough measurements for the report and the README (not a benchmark suite).
// Run after building: node scripts/measure.mjs
import { performance } from 'node:perf_hooks';
import { createMemoryBackend } from '@spillway/memory';
import { createSpillPolicy } from '../dist/index.js';

const exec = { toolName: 'bash', callId: 'c', sessionId: 's' };
const MB = 1024 * 1024;
const ms = (t) => `${(performance.now() - t).toFixed(1)} ms`;

const big = 'a'.repeat(50 * MB);
{
  const policy = createSpillPolicy({ maxInlineBytes: 200 * MB, backend: createMemoryBackend() });
  const t = performance.now();
  await policy.applyToResult(exec, { content: [{ type: 'text', text: big }] });
  console.log(`50 MiB under a 200 MiB cap (decided from the length alone): ${ms(t)}`);
}
{
  const policy = createSpillPolicy({ maxInlineBytes: 60 * MB, backend: createMemoryBackend() });
  const t = performance.now();
  await policy.applyToResult(exec, { content: [{ type: 'text', text: big }] });
  console.log(`50 MiB under a 60 MiB cap (bounds straddle, one scan): ${ms(t)}`);
}
{
  const policy = createSpillPolicy({ maxInlineBytes: 50_000, backend: createMemoryBackend({ maxBytes: 256 * MB }) });
  const t = performance.now();
  await policy.applyToResult(exec, { content: [{ type: 'text', text: big }] });
  console.log(`50 MiB spilled to the memory backend, 50 000-byte cap: ${ms(t)}`);
}

{
  // The policy's own cost: a backend that answers at once without storing anything.
  const instant = {
    name: 'instant',
    saveText: async (input) => ({ locator: 'spill+none://x', bytes: Buffer.byteLength(input.content), retrievalHint: 'h' }),
    saveTextStream: () => Promise.reject(new Error('unused')),
  };
  const policy = createSpillPolicy({ maxInlineBytes: 50_000, backend: instant });
  const t = performance.now();
  await policy.applyToResult(exec, { content: [{ type: 'text', text: big }] });
  console.log(`50 MiB spilled to a backend that answers at once (policy overhead, incl. the backend's byte count): ${ms(t)}`);
}

// A long stream through a backend that only counts what it reads.
{
  let received = 0;
  const draining = {
    name: 'draining',
    saveText: () => Promise.reject(new Error('unused')),
    async saveTextStream(input) {
      for await (const c of input.content) received += Buffer.byteLength(c);
      return { locator: 'spill+count://x', bytes: received, retrievalHint: 'h' };
    },
  };
  const policy = createSpillPolicy({ maxInlineBytes: 50_000, backend: draining });
  const stream = policy.stream(exec);
  const chunk = `${'log line with some text in it '.repeat(2184)}\n`; // ~64 KiB
  const total = 1024 * MB;
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const t = performance.now();
  for (let sent = 0; sent < total; sent += chunk.length) {
    await stream.push(chunk);
    if ((sent / chunk.length) % 256 === 0) peak = Math.max(peak, process.memoryUsage().rss);
  }
  const result = await stream.finish();
  const elapsed = performance.now() - t;
  console.log(
    `1 GiB streamed in ~64 KiB chunks, 50 000-byte cap: ${(elapsed / 1000).toFixed(2)} s ` +
      `(${((received / MB) / (elapsed / 1000)).toFixed(0)} MiB/s), RSS before ${(rssBefore / MB).toFixed(0)} MiB, peak ${(peak / MB).toFixed(0)} MiB, ` +
      `answer ${Buffer.byteLength(result.content[0].text)} bytes`,
  );
}
