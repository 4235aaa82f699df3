// The concurrency cases that need processes of their own: several processes saving into
// one session, and a low descriptor limit set with ulimit in a child.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIST_INDEX, filesUnder, freshRootEachTest, runChild } from './test-helpers.js';

let root: string;
freshRootEachTest('spill-concurrency-e2e-', (dir) => {
  root = dir;
}, { realpath: true });

describe('several processes', () => {
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
});
