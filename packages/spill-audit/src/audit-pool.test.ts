import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { auditWith, runAudit, type AuditOptions, type AuditReport } from './audit.js';
import { auditInPool, type PoolProgress } from './audit-pool.js';
import type { FileAudit, FileJob } from './audit-file.js';
import { isAuditError } from './errors.js';
import { MAX_JSON_DEPTH, TOO_DEEP } from './nesting.js';
import { MAX_SEARCH_CHECKS, type SearchOutput } from './search-check.js';
import { MAX_NAMED_SKIPS, type TranscriptFormat } from './transcript.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, 'fixtures');
// Workers run compiled code: the pool is tested with the built entry (the package is built before its tests).
const WORKER = new URL('../dist/audit-worker.js', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'audit-pool-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let made = 0;
function folder(): string {
  const d = join(dir, `d${String(made++)}`);
  mkdirSync(d);
  return d;
}

/** The pooled report as JSON, failing when the pool did not start (a fallback would compare the single path with itself). */
async function pooled(options: AuditOptions, threads: number): Promise<string> {
  let workers = 0;
  const report = await auditWith({ ...options, threads }, { url: WORKER, minBytes: 0, onStart: (n) => { workers = n; } });
  expect(workers).toBe(threads);
  return JSON.stringify(report);
}

/** {@link auditInPool} with one job for every file, its audits collected in order; `undefined` when the pool did not start. */
async function inPool(files: readonly string[], job: FileJob, size: number, progress: PoolProgress | undefined, url: URL): Promise<FileAudit[] | undefined> {
  const taken: FileAudit[] = [];
  const take = (index: number, audit: FileAudit): void => {
    expect(index).toBe(taken.length);
    taken.push(audit);
  };
  return (await auditInPool(files, size, progress, { take, jobFor: () => job }, url)) ? taken : undefined;
}

async function single(options: AuditOptions): Promise<string> {
  return JSON.stringify(await runAudit({ ...options, threads: 1 }));
}

describe('a pooled audit', () => {
  it('has its worker entry built', () => {
    expect(existsSync(WORKER), 'run `pnpm build` first').toBe(true);
  });

  // Named as each host names its files, so the directory walk finds them.
  for (const [name, format, prefix] of [['claude-code.jsonl', 'claude-code', ''], ['codex-rollout.jsonl', 'codex', 'rollout-'], ['gemini-session.jsonl', 'gemini', 'session-']] as const) {
    it(`reports the same as one thread over copies of ${name}, with broken lines between`, async () => {
      const d = folder();
      for (let i = 0; i < 5; i++) copyFileSync(join(fixtures, name), join(d, `${prefix}${String(i)}.jsonl`));
      // Enough skipped lines across two files that the named ones are cut at the limit, in file order.
      writeFileSync(join(d, `${prefix}2.jsonl`), 'not json\n'.repeat(MAX_NAMED_SKIPS - 3), { flag: 'a' });
      writeFileSync(join(d, `${prefix}4.jsonl`), 'not json either\n'.repeat(MAX_NAMED_SKIPS), { flag: 'a' });
      const options: AuditOptions = { format, paths: [d], env: {}, home: d, cap: 40 };
      const one = await single(options);
      expect(JSON.parse(one)).toMatchObject({ files: 5 });
      expect((JSON.parse(one) as AuditReport).skipped).toHaveLength(MAX_NAMED_SKIPS);
      expect(await pooled(options, 2)).toBe(one);
      expect(await pooled(options, 3)).toBe(one);
    });
  }

  it('reports the same as one thread over generated files whose sessions interleave and share strings', async () => {
    const line = fc.record({
      session: fc.constantFrom('s1', 's2', 's3'),
      kind: fc.constantFrom('call', 'result', 'text', 'junk'),
      id: fc.integer({ min: 0, max: 6 }),
      key: fc.integer({ min: 0, max: 30 }),
      rows: fc.integer({ min: 0, max: 400 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(line, { maxLength: 30 }), { minLength: 2, maxLength: 5 }), fc.constantFrom<TranscriptFormat>('generic', 'claude-code'), async (files, format) => {
        const d = folder();
        for (const [f, lines] of files.entries()) {
          const text = lines.map((l) => {
            const key = `key_${String(l.key)}x.bin`;
            if (l.kind === 'junk') return '{broken';
            if (format === 'generic') {
              // One line a call with its output: a later call's command names what an earlier output held.
              if (l.kind === 'text') return JSON.stringify({ session: l.session, tool: 'note', input: { text: `see ${key}` }, output: 'ok' });
              return JSON.stringify({ session: l.session, tool: 'Bash', input: { command: `cat ${key}` }, output: Array.from({ length: l.rows }, (_, i) => `row ${String(i)} ${i === l.rows >> 1 ? key : 'ok'}`).join('\n') });
            }
            if (l.kind === 'call') return JSON.stringify({ type: 'assistant', sessionId: l.session, message: { content: [{ type: 'tool_use', id: `c${String(l.id)}`, name: 'Bash', input: { command: `cat ${key}` } }] } });
            if (l.kind === 'result') return JSON.stringify({ type: 'user', sessionId: l.session, message: { content: [{ type: 'tool_result', tool_use_id: `c${String(l.id)}`, content: Array.from({ length: l.rows }, (_, i) => `row ${String(i)} ${i === l.rows >> 1 ? key : 'ok'}`).join('\n') }] } });
            return JSON.stringify({ type: 'user', sessionId: l.session, message: { role: 'user', content: `see ${key}` } });
          });
          writeFileSync(join(d, `f${String(f)}.jsonl`), `${text.join('\n')}\n`);
        }
        const options: AuditOptions = { format, paths: [d], env: {}, home: d, cap: 256 };
        const one = await single(options);
        if (format === 'generic') expect((JSON.parse(one) as AuditReport).total.calls).toBeGreaterThanOrEqual(files.flat().filter((l) => l.kind !== 'junk').length);
        expect(await pooled(options, 2)).toBe(one);
        // With a search: the same outputs searched with the same words.
        const search = (seen: string[]): SearchOutput => (output, query) => {
          seen.push(`${String(output.length)} ${query}`);
          return Promise.resolve(output.split('\n').filter((x) => x.includes('key_')));
        };
        const seenOne: string[] = [];
        const seenMany: string[] = [];
        expect(await pooled({ ...options, searchOutput: search(seenMany) }, 2)).toBe(JSON.stringify(await runAudit({ ...options, threads: 1, searchOutput: search(seenOne) })));
        expect(seenMany).toEqual(seenOne);
      }),
      { numRuns: 12 },
    );
  });

  it(`searches the same outputs with the same words as one thread, the first ${String(MAX_SEARCH_CHECKS)} across files in order`, async () => {
    // Three files of 70 outputs each, every one needed later in reverse order: 210 checks, past the limit in the third file.
    const d = folder();
    const per = 70;
    for (let f = 0; f < 3; f++) {
      const id = (i: number): string => `blob_${String(f)}_${String(i).padStart(6, '0')}`;
      const rows = (i: number, where: string): string => Array.from({ length: 20 }, (_, k) => `out${String(i)} ${where} ${String(k).padStart(5, '0')} ok`).join('\n');
      const lines: string[] = [];
      for (let i = 0; i < per; i++) lines.push(JSON.stringify({ session: `s${String(f)}`, tool: 'bash', input: { command: `job ${String(i)}` }, output: `${rows(i, 'head')}\nkept as ${id(i)}\n${rows(i, 'tail')}` }));
      for (let i = per - 1; i >= 0; i--) lines.push(JSON.stringify({ session: `s${String(f)}`, tool: 'bash', input: { command: `fetch kept ${id(i)}` }, output: 'ok' }));
      writeFileSync(join(d, `f${String(f)}.jsonl`), `${lines.join('\n')}\n`);
    }
    const searcher = (): { search: SearchOutput; seen: string[] } => {
      const seen: string[] = [];
      const search: SearchOutput = (output, query) => {
        seen.push(`${/blob_\w+/.exec(output)?.[0] ?? ''} ${query}`);
        // Found only for outputs of the second file, so the figures tell which were searched.
        return Promise.resolve(output.includes('blob_1_') ? output.split('\n').filter((l) => l.includes('blob_')) : []);
      };
      return { search, seen };
    };
    const one = searcher();
    const options: AuditOptions = { format: 'generic', paths: [d], env: {}, home: d, cap: 256 };
    const single = JSON.stringify(await runAudit({ ...options, threads: 1, searchOutput: one.search }));
    const many = searcher();
    expect(await pooled({ ...options, searchOutput: many.search }, 2)).toBe(single);
    expect(many.seen).toEqual(one.seen);
    expect(JSON.parse(single)).toMatchObject({ search: { checked: MAX_SEARCH_CHECKS, found: per, unchecked: 3 * per - MAX_SEARCH_CHECKS } });
  });

  it('reports its progress: every byte and every file', async () => {
    const d = folder();
    for (let i = 0; i < 3; i++) copyFileSync(join(fixtures, 'claude-code.jsonl'), join(d, `f${String(i)}.jsonl`));
    const seen: { filesDone: number; bytesDone: number; bytes: number }[] = [];
    let workers = 0;
    await auditWith({ format: 'claude-code', paths: [d], env: {}, home: d, threads: 2, onProgress: (p) => seen.push(p) }, { url: WORKER, minBytes: 0, onStart: (n) => { workers = n; } });
    expect(workers).toBe(2);
    const last = seen.at(-1);
    expect(last?.filesDone).toBe(3);
    expect(last?.bytesDone).toBe(last?.bytes);
    expect(seen.length).toBeGreaterThan(4);
  });

  it("fails as one thread does when the caller's progress callback throws, and never waits", async () => {
    const d = folder();
    for (let i = 0; i < 3; i++) copyFileSync(join(fixtures, 'claude-code.jsonl'), join(d, `f${String(i)}.jsonl`));
    // When a file is done, or as soon as any bytes are read (told from a stream's listener on one thread).
    const cases: [string, (p: { filesDone: number; bytesDone: number }) => boolean][] = [
      ['file 1', (p) => p.filesDone === 1],
      ['file 3', (p) => p.filesDone === 3],
      ['bytes', (p) => p.bytesDone > 0],
    ];
    for (const [name, when] of cases) {
      const onProgress = (p: { filesDone: number; bytesDone: number }): void => {
        if (when(p)) throw new Error(`progress ${name}`);
      };
      let workers = 0;
      await expect(auditWith({ format: 'claude-code', paths: [d], env: {}, home: d, threads: 2, onProgress }, { url: WORKER, minBytes: 0, onStart: (n) => { workers = n; } })).rejects.toThrow(`progress ${name}`);
      expect(workers).toBe(2);
      await expect(runAudit({ format: 'claude-code', paths: [d], env: {}, home: d, threads: 1, onProgress })).rejects.toThrow(`progress ${name}`);
    }
  });

  it(`holds no more outputs to search than files begun before the first ${String(MAX_SEARCH_CHECKS)} were taken, and reports as one thread`, async () => {
    const d = folder();
    // 40 files of 250 outputs each, every one needed later by a call that names its id.
    for (let f = 0; f < 40; f++) {
      const id = (i: number): string => `blob_${String(f)}_${String(i).padStart(6, '0')}`;
      const rows = (i: number, w: string): string => Array.from({ length: 20 }, (_, k) => `out${String(i)} ${w} ${String(k).padStart(5, '0')} ok`).join('\n');
      const lines: string[] = [];
      for (let i = 0; i < 250; i++) lines.push(JSON.stringify({ session: `s${String(f)}`, tool: 'bash', input: { command: `job ${String(i)}` }, output: `${rows(i, 'head')}\nkept as ${id(i)}\n${rows(i, 'tail')}` }));
      for (let i = 0; i < 250; i++) lines.push(JSON.stringify({ session: `s${String(f)}`, tool: 'bash', input: { command: `fetch ${id(i)}` }, output: 'ok' }));
      writeFileSync(join(d, `f${String(f).padStart(2, '0')}.jsonl`), `${lines.join('\n')}\n`);
    }
    const held: number[] = [];
    const jobs: number[] = [];
    const options: AuditOptions = { format: 'generic', paths: [d], env: {}, home: d, cap: 256, searchOutput: () => Promise.resolve([]) };
    let workers = 0;
    const report = await auditWith({ ...options, threads: 2 }, {
      url: WORKER,
      minBytes: 0,
      onStart: (n) => { workers = n; },
      onTake: (audit) => held.push(audit.checks.length),
      onJob: (job) => jobs.push(job.maxChecks ?? -1),
    });
    expect(workers).toBe(2);
    expect(held).toHaveLength(40);
    // Unbounded, every file would bring its own 200 (8,000 in all).
    expect(held.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5 * MAX_SEARCH_CHECKS);
    expect(jobs.filter((m) => m === 0).length).toBeGreaterThan(30);
    expect(JSON.stringify(report)).toBe(await single(options));
  });

  it('skips a line nested too deeply on every thread alike, whatever its stack', async () => {
    const d = folder();
    // Written by hand: turning them into JSON would overflow this thread's stack. A worker's
    // stack is larger, and could turn the 6,000-deep input into text where this one cannot.
    const deep = (depth: number, id: string): string => `{"type":"assistant","sessionId":"s","message":{"content":[{"type":"tool_use","id":"${id}","name":"Bash","input":{"command":"ls","deep":${'['.repeat(depth)}${']'.repeat(depth)}}}]}}`;
    const fixture = readFileSync(join(fixtures, 'claude-code.jsonl'), 'utf8');
    for (let i = 0; i < 2; i++) writeFileSync(join(d, `f${String(i)}.jsonl`), `${deep(6000, `a${String(i)}`)}\n${deep(MAX_JSON_DEPTH + 1, `b${String(i)}`)}\n${deep(MAX_JSON_DEPTH - 2, `c${String(i)}`)}\n${fixture}`);
    const options: AuditOptions = { format: 'claude-code', paths: [d], env: {}, home: d };
    const one = await runAudit({ ...options, threads: 1 });
    expect(one.skipped.filter((l) => l.reason === TOO_DEEP).map((l) => l.line)).toEqual([1, 2, 1, 2]);
    expect(await pooled(options, 2)).toBe(JSON.stringify(one));
  });

  it('reads small audits on its own thread', async () => {
    const d = folder();
    for (let i = 0; i < 2; i++) copyFileSync(join(fixtures, 'codex-rollout.jsonl'), join(d, `rollout-${String(i)}.jsonl`));
    let workers = 0;
    await auditWith({ format: 'codex', paths: [d], env: {}, home: d, threads: 2 }, { url: WORKER, minBytes: 1024 * 1024, onStart: (n) => { workers = n; } });
    expect(workers).toBe(0);
  });

  it('reads on its own thread when the worker entry is missing', async () => {
    const d = folder();
    for (let i = 0; i < 2; i++) copyFileSync(join(fixtures, 'codex-rollout.jsonl'), join(d, `rollout-${String(i)}.jsonl`));
    const options: AuditOptions = { format: 'codex', paths: [d], env: {}, home: d };
    let workers = 0;
    const report = await auditWith({ ...options, threads: 2 }, { url: new URL('./no-such-worker.js', import.meta.url), minBytes: 0, onStart: (n) => { workers = n; } });
    expect(workers).toBe(0);
    expect(JSON.stringify(report)).toBe(await single(options));
  });

  it('reads on its own thread when a worker fails to load', async () => {
    const broken = join(folder(), 'broken-worker.mjs');
    writeFileSync(broken, 'throw new Error("no");\n');
    expect(await inPool([join(fixtures, 'claude-code.jsonl'), join(fixtures, 'claude-code.jsonl')], { format: 'claude-code', caps: [64], cap: 64, mcpServers: undefined, search: false }, 2, undefined, new URL(`file://${broken}`))).toBeUndefined();
  });

  it('throws the first failing file’s AUDIT_UNREADABLE, as one thread would', async () => {
    const good = join(fixtures, 'claude-code.jsonl');
    const d = folder();
    const bad1 = join(d, 'a-dir.jsonl');
    const bad2 = join(d, 'b-dir.jsonl');
    mkdirSync(bad1);
    mkdirSync(bad2);
    const job = { format: 'claude-code', caps: [64], cap: 64, mcpServers: undefined, search: false } as const;
    const error: unknown = await inPool([good, bad1, good, bad2, good], job, 2, undefined, WORKER).catch((e: unknown) => e);
    expect(isAuditError(error, 'AUDIT_UNREADABLE')).toBe(true);
    expect((error as Error).message).toContain(bad1);
    expect((error as Error).message).toContain('EISDIR');
    expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe('EISDIR');
  });

  it('reads on its own thread when a worker dies after loading while another still loads', async () => {
    const d = folder();
    const script = join(d, 'one-dies.mjs');
    // The first worker to take the lock says it is ready and exits; the other is ready later.
    writeFileSync(
      script,
      `import { openSync } from 'node:fs';\nimport { parentPort } from 'node:worker_threads';\nlet first = false;\ntry { openSync(${JSON.stringify(join(d, 'lock'))}, 'wx'); first = true; } catch {}\nif (first) { parentPort.postMessage({ kind: 'ready' }); setTimeout(() => process.exit(4), 50); }\nelse setTimeout(() => parentPort.postMessage({ kind: 'ready' }), 400);\n`,
    );
    const files = [join(fixtures, 'claude-code.jsonl'), join(fixtures, 'claude-code.jsonl')];
    expect(await inPool(files, { format: 'claude-code', caps: [64], cap: 64, mcpServers: undefined, search: false }, 2, undefined, new URL(`file://${script}`))).toBeUndefined();
  });

  it("throws an earlier file's error before a progress callback's, as one thread meets them", async () => {
    const d = folder();
    const bad = join(d, 'a-dir.jsonl');
    mkdirSync(bad);
    const good = join(fixtures, 'claude-code.jsonl');
    const progress = { read: () => undefined, fileDone: () => { throw new Error('progress'); } };
    const error: unknown = await inPool([bad, good, good], { format: 'claude-code', caps: [64], cap: 64, mcpServers: undefined, search: false }, 2, progress, WORKER).catch((e: unknown) => e);
    expect(isAuditError(error, 'AUDIT_UNREADABLE')).toBe(true);
    // A callback that throws on the first file fails the audit with its own error.
    await expect(inPool([good, bad, good], { format: 'claude-code', caps: [64], cap: 64, mcpServers: undefined, search: false }, 2, progress, WORKER)).rejects.toThrow('progress');
  });

  it('fails, never waits, when a worker dies on a file', async () => {
    const dying = join(folder(), 'dying-worker.mjs');
    writeFileSync(dying, 'import { parentPort } from "node:worker_threads";\nparentPort.on("message", () => { process.exit(3); });\nparentPort.postMessage({ kind: "ready" });\n');
    const files = [join(fixtures, 'claude-code.jsonl'), join(fixtures, 'claude-code.jsonl'), join(fixtures, 'claude-code.jsonl')];
    await expect(inPool(files, { format: 'claude-code', caps: [64], cap: 64, mcpServers: undefined, search: false }, 2, undefined, new URL(`file://${dying}`))).rejects.toThrow(/exit code 3/);
  });

  it("throws a worker's built-in error as its own class with its code, and asks for bytes read only when progress is shown", async () => {
    // The worker fails each file with a TypeError whose message says whether it was asked to tell of bytes read.
    const failing = join(folder(), 'failing-worker.mjs');
    writeFileSync(
      failing,
      'import { parentPort } from "node:worker_threads";\nparentPort.on("message", (r) => { parentPort.postMessage({ kind: "failed", index: r.index, error: { name: "TypeError", message: `progress ${String(r.progress)}`, stack: undefined, code: undefined, otherCode: "ERR_SOMETHING", cause: undefined } }); });\nparentPort.postMessage({ kind: "ready" });\n',
    );
    const files = [join(fixtures, 'claude-code.jsonl'), join(fixtures, 'claude-code.jsonl')];
    const job = { format: 'claude-code', caps: [64], cap: 64, mcpServers: undefined, search: false } as const;
    const quiet: unknown = await inPool(files, job, 2, undefined, new URL(`file://${failing}`)).catch((e: unknown) => e);
    expect(quiet).toBeInstanceOf(TypeError);
    expect((quiet as Error).message).toBe('progress false');
    expect((quiet as NodeJS.ErrnoException).code).toBe('ERR_SOMETHING');
    const told: unknown = await inPool(files, job, 2, { read: () => undefined, fileDone: () => undefined }, new URL(`file://${failing}`)).catch((e: unknown) => e);
    expect((told as Error).message).toBe('progress true');
  });

  it('refuses a thread count that is not a positive whole number', async () => {
    for (const threads of [0, 1.5, -1]) {
      const error: unknown = await runAudit({ format: 'claude-code', paths: [fixtures], env: {}, home: fixtures, threads }).catch((e: unknown) => e);
      expect(isAuditError(error, 'AUDIT_INVALID_OPTION')).toBe(true);
    }
  });
});
