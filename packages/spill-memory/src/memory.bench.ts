/**
 * Benchmarks for the memory backend (`pnpm --filter @spillway/memory bench:micro`): saving with
 * eviction, paging, grep, streaming, and a catastrophic-backtracking pattern. They
 * measure; nothing here asserts a speed.
 */
import { bench, describe } from 'vitest';
import { createMemoryBackend } from './index.js';
import { request, streamRequest } from './test-helpers.js';

const MB = 1024 * 1024;
const LINES = 1_000_000;
const content = Array.from({ length: LINES }, (_, i) => `line ${i} ${'x'.repeat(40)}\n`).join('');
const big = createMemoryBackend({ maxBytes: 128 * MB });
const bigRef = await big.saveText(request(content));

describe('save', () => {
  const full = createMemoryBackend({ maxArtifacts: 10_000 });
  bench('save 4 KiB into a full backend (one eviction each)', async () => {
    await full.saveText(request('x'.repeat(4096)));
  });
});

describe(`read a ${(bigRef.bytes / MB).toFixed(0)} MB, ${LINES}-line artifact`, () => {
  let offset = 1;
  bench('100-line page at a moving offset (line index warm)', async () => {
    offset = (offset + 7919) % (LINES - 100) + 1;
    await big.reader.read(bigRef.locator, { offset, limit: 100 });
  });
  bench('first read near the end (builds the line index)', async () => {
    const fresh = createMemoryBackend({ maxBytes: 128 * MB });
    const ref = await fresh.saveText(request(content));
    await fresh.reader.read(ref.locator, { offset: LINES - 10, limit: 10 });
  }, { iterations: 3 });
});

describe(`grep a ${(bigRef.bytes / MB).toFixed(0)} MB artifact`, () => {
  const options = { timeoutMs: 60_000 };
  bench('literal', async () => {
    await big.reader.grep(bigRef.locator, 'line 99999 ', { ...options, literal: true });
  }, { iterations: 3 });
  bench('literal, ignoreCase', async () => {
    await big.reader.grep(bigRef.locator, 'LINE 99999 ', { ...options, literal: true, ignoreCase: true });
  }, { iterations: 3 });
  bench('regex', async () => {
    await big.reader.grep(bigRef.locator, 'line 9+ x{3}', options);
  }, { iterations: 3 });
});

describe('stream', () => {
  const chunk = `${'y'.repeat(64 * 1024 - 1)}\n`;
  bench('64 MB in 64 KiB chunks', async () => {
    const backend = createMemoryBackend({ maxBytes: 128 * MB });
    await backend.saveTextStream(streamRequest(Array.from({ length: 1024 }, () => chunk)));
  }, { iterations: 3 });
});

const hostile = createMemoryBackend();
const hostileRef = await hostile.saveText(request(`${'a'.repeat(100_000)}!\n`));

describe('hostile pattern', () => {
  bench('(a+)+$ on a 100 KB line (native budget, then the linear engine)', async () => {
    await hostile.reader.grep(hostileRef.locator, '(a+)+$');
  }, { iterations: 3 });
});
