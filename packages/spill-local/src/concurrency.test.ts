import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSpillError } from '@spillway/core';
import { createLocalBackendWith } from './backend.js';
import { nodeFsOps } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';
import { createLocalBackend } from './index.js';
import { Semaphore } from './semaphore.js';
import { DIST_INDEX, filesUnder, freshRootEachTest, request, runChild, streamRequest } from './test-helpers.js';

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

  it('several processes saving the same name into the same session all succeed with distinct files', async () => {
    const child = `
      const { createLocalBackend } = await import(${JSON.stringify(DIST_INDEX)});
      const b = createLocalBackend({ root: ${JSON.stringify(root)} });
      const refs = await Promise.all(Array.from({ length: 300 }, (_, i) =>
        b.saveText({ owner: { sessionId: 'shared' }, source: { toolName: 't', callId: 'c' }, suggestedName: 'same.txt', content: process.pid + ':' + i })));
      console.log(JSON.stringify(refs.map((r) => r.locator)));
    `;
    const outs = await Promise.all(Array.from({ length: 4 }, () => runChild(child)));
    const locators = outs.flatMap((o) => {
      expect(o.stderr).toBe('');
      return JSON.parse(o.stdout) as string[];
    });
    expect(locators).toHaveLength(1200);
    expect(new Set(locators).size).toBe(1200);
    expect(filesUnder(root)).toHaveLength(1200);
  });
});

describe('a low file-descriptor limit (ulimit -n 64 in a child process)', () => {
  const limited = ['sh', '-c', 'ulimit -n 64 && exec "$@"', 'sh'];
  const body = (maxOpenFiles: number): string => `
    const { createLocalBackend } = await import(${JSON.stringify(DIST_INDEX)});
    const b = createLocalBackend({ root: ${JSON.stringify(root)}, maxOpenFiles: ${maxOpenFiles} });
    const results = await Promise.allSettled(Array.from({ length: 2000 }, (_, i) =>
      b.saveText({ owner: { sessionId: 's' }, source: { toolName: 't', callId: 'c' }, suggestedName: 'x', content: 'n' + i })));
    const codes = {};
    for (const r of results) {
      const k = r.status === 'fulfilled' ? 'ok' : (r.reason && r.reason.code) + ':' + (r.reason && r.reason.cause && r.reason.cause.code);
      codes[k] = (codes[k] || 0) + 1;
    }
    console.log(JSON.stringify(codes));
  `;

  it('with maxOpenFiles under the limit, 2000 concurrent saves all succeed', async () => {
    const out = await runChild(body(24), { wrapper: limited });
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual({ ok: 2000 });
  });

  it('with maxOpenFiles above the limit, EMFILE surfaces as a clean SPILL_STORAGE_FAILED and leaves no temp file', async () => {
    const out = await runChild(body(2000), { wrapper: limited });
    expect(out.stderr).toBe('');
    const codes = JSON.parse(out.stdout) as Record<string, number>;
    const total = Object.values(codes).reduce((a, b) => a + b, 0);
    expect(total).toBe(2000);
    for (const key of Object.keys(codes)) expect(['ok', 'SPILL_STORAGE_FAILED:EMFILE']).toContain(key);
    expect(codes['SPILL_STORAGE_FAILED:EMFILE']).toBeGreaterThan(0);
    const files = filesUnder(root);
    expect(files.filter((f) => path.basename(f).startsWith('.tmp-'))).toEqual([]);
    expect(files).toHaveLength(codes.ok ?? 0);
  });

  it('100 regex greps alongside 300 saves under ulimit -n 88 all succeed: worker threads count against maxOpenFiles', async () => {
    // Each grep's time counts from its call, queueing included; 100 of them queued on a
    // loaded machine need more than the default 5 s.
    const script = `
      const { createLocalBackend } = await import(${JSON.stringify(DIST_INDEX)});
      const b = createLocalBackend({ root: ${JSON.stringify(root)}, maxOpenFiles: 64 });
      const ref = await b.saveText({ owner: { sessionId: 'g' }, source: { toolName: 't', callId: 'c' }, suggestedName: 'log', content: 'alpha 1\\nbeta 22\\n'.repeat(5000) });
      const work = [
        ...Array.from({ length: 100 }, (_, i) => b.reader.grep(ref.locator, 'beta [0-9]{2}|gamma' + i, { maxMatches: 3, timeoutMs: 50_000 }).then((r) => r.matches.length === 3 ? 'grep' : 'bad grep')),
        ...Array.from({ length: 300 }, (_, i) => b.saveText({ owner: { sessionId: 's' }, source: { toolName: 't', callId: 'c' }, suggestedName: 'x', content: 'n' + i }).then(() => 'save')),
      ];
      const results = await Promise.allSettled(work);
      const codes = {};
      for (const r of results) {
        const k = r.status === 'fulfilled' ? r.value : String(r.reason && r.reason.code) + ':' + String(r.reason && r.reason.cause && r.reason.cause.code);
        codes[k] = (codes[k] || 0) + 1;
      }
      console.log(JSON.stringify(codes));
    `;
    const out = await runChild(script, { wrapper: ['sh', '-c', 'ulimit -n 88 && exec "$@"', 'sh'] });
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual({ grep: 100, save: 300 });
  });

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
