import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isSpillError } from '@spillway/core';
import { createLocalBackendWith } from './backend.js';
import { nodeFsOps } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';
import { createLocalBackend } from './index.js';
import { Semaphore } from './semaphore.js';
import { freshRootEachTest, request, streamRequest } from './test-helpers.js';

let root: string;
freshRootEachTest('spill-concurrency-test-', (dir) => {
  root = dir;
}, { realpath: true });

describe('the descriptor semaphore', () => {
  it('never lets more than its capacity be held, and serves waiters in order', async () => {
    const sem = new Semaphore(4);
    let held = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        sem.use(i % 3 === 0 ? 2 : 1, async () => {
          held += i % 3 === 0 ? 2 : 1;
          peak = Math.max(peak, held);
          order.push(i);
          await new Promise((r) => setTimeout(r, 1));
          held -= i % 3 === 0 ? 2 : 1;
        }),
      ),
    );
    expect(peak).toBeLessThanOrEqual(4);
    expect(order).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(sem.available).toBe(4);
  });
});

describe('many concurrent saves', () => {
  it('10,000 concurrent saves with the same name all succeed, with distinct locators and their own content, never over maxOpenFiles', async () => {
    let open = 0;
    let peak = 0;
    const counting: FsOps = {
      ...nodeFsOps,
      open: async (p, flags, mode) => {
        const fd = await nodeFsOps.open(p, flags, mode);
        open++;
        peak = Math.max(peak, open);
        return fd;
      },
      close: (fd) => {
        open--;
        return nodeFsOps.close(fd);
      },
      opendir: async (p) => {
        const dir = await nodeFsOps.opendir(p);
        open++;
        peak = Math.max(peak, open);
        const close = dir.close.bind(dir);
        return Object.assign(dir, { close: () => { open--; return close(); } });
      },
    };
    const backend = createLocalBackendWith({ root, maxOpenFiles: 64 }, { ops: counting });
    const n = 10_000;
    const refs = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        i % 2 === 0
          ? backend.saveText(request(`content ${i}\n`, 'same.txt'))
          : backend.saveTextStream(streamRequest([`content `, `${i}\n`], 'same.txt')),
      ),
    );
    expect(new Set(refs.map((r) => r.locator)).size).toBe(n);
    expect(peak).toBeLessThanOrEqual(64);
    for (let i = 0; i < n; i += 97) expect(fs.readFileSync(refs[i]?.locator ?? '', 'utf8')).toBe(`content ${i}\n`);
    let listed = 0;
    for await (const _ of backend.catalog.list()) listed++;
    expect(listed).toBe(n);
    expect(open).toBe(0);
  }, 120_000);
});

describe('a save that cannot get a descriptor', () => {
  it('rejects a save that cannot get a descriptor with a SpillError, never a crash', async () => {
    const backend = createLocalBackendWith({ root }, { ops: { ...nodeFsOps, open: () => Promise.reject(Object.assign(new Error('EMFILE'), { code: 'EMFILE' })) } });
    const err: unknown = await backend.saveText(request('x')).catch((e: unknown) => e);
    expect(isSpillError(err, 'SPILL_STORAGE_FAILED')).toBe(true);
  });
});

describe('maxOpenFiles as configured', () => {
  it('the default backend bounds descriptors too (64)', async () => {
    const backend = createLocalBackend({ root });
    const refs = await Promise.all(Array.from({ length: 500 }, (_, i) => backend.saveText(request(`x${i}`))));
    expect(new Set(refs.map((r) => r.locator)).size).toBe(500);
  });
});
