/**
 * The soak: one local backend under everything a long-running harness does at once, for a
 * set duration. Workers call the policy's `apply` (some results spill, most do not),
 * stream output through `policy.stream`, read and grep what was spilled, purge sessions;
 * a timer starts a retention sweep every few hundred milliseconds whether or not the last
 * one ended. The backend's file-system calls fail now and then (EMFILE, ENOSPC, EIO) and
 * are slow now and then. The run records what a weeks-long run would die of: calls that
 * never settle, saves that time out, artifacts a sweep deleted although they were saved
 * after it began, descriptors and heap that grow.
 *
 * `soak.e2e.test.ts` runs it for about half a minute in the test suite; `soak-main.ts` runs it
 * for as long as asked and prints the figures over time.
 */
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isSpillError } from '@spillway/core';
import { type SpillLocator, sessionId } from '@spillway/core';
import { createLocalBackendWithFs, nodeFsOps, type FsOps } from '@spillway/local/testing';
import { createSpillPolicy, type SpillEvent, type ToolResult } from '@spillway/policy';
import { parseSpillNotice } from '@spillway/policy/notice';
import { createRetention, type RetentionReport } from '@spillway/retention';

/** What to run, and how hard. */
export interface SoakOptions {
  /** How long workers keep starting calls, in milliseconds. */
  readonly durationMs: number;
  /** Concurrent workers, each running one call at a time. Default 12. */
  readonly workers?: number;
  /** Sessions the calls are spread over. Default 40. */
  readonly sessions?: number;
  /** The backend's `maxOpenFiles`. Default 16, low enough that calls queue for descriptors. */
  readonly maxOpenFiles?: number;
  /** A sweep starts this often, whether or not the previous one ended. Default 300. */
  readonly sweepEveryMs?: number;
  /** Share of file-system calls that fail with an injected error. Default 0.01. */
  readonly faultRate?: number;
  /** Share of file-system calls that are delayed. Default 0.05. */
  readonly slowRate?: number;
  /** The longest injected delay, in milliseconds. Default 25. */
  readonly slowMaxMs?: number;
  /** How often a sample is taken, in milliseconds. Default 1000. */
  readonly sampleEveryMs?: number;
  /** A call still pending this long after it started counts as stalled. Default 30,000. */
  readonly stallMs?: number;
  /** The policy's `saveTimeoutMs`: a save that outlives it is kept inline and counted as a timeout. Default 20,000. */
  readonly saveTimeoutMs?: number;
  /** Called with each sample as it is taken (a progress display). */
  readonly onSample?: (sample: SoakSample) => void;
  /** Where the root goes; default a fresh directory under the OS temp dir, removed at the end. */
  readonly tmpDir?: string;
}

/** The process and the workload at one instant. */
export interface SoakSample {
  /** Milliseconds since the start. */
  readonly atMs: number;
  /** Calls settled so far (apply, stream, read, grep, purge, sweep). */
  readonly calls: number;
  /** Open file descriptors of the process. */
  readonly fds: number;
  /** Resident set size, bytes. */
  readonly rss: number;
  /** V8 heap in use after a full collection, bytes. */
  readonly heapUsed: number;
  /** Artifacts the backend lists now. */
  readonly artifacts?: number;
}

/** What the run saw. */
export interface SoakResult {
  readonly durationMs: number;
  /** Calls settled, by kind. */
  readonly calls: Readonly<Record<CallKind, number>>;
  /** The longest any call of each kind took to settle, in milliseconds. */
  readonly maxLatencyMs: Readonly<Record<CallKind, number>>;
  /** Calls settled per second over the run. */
  readonly callsPerSecond: number;
  /** Results the policy spilled (apply and stream). */
  readonly spilled: number;
  /** Results kept inline because the save failed (injected faults, mostly), by reason. */
  readonly kept: Readonly<Record<string, number>>;
  /** Saves that did not settle within the policy's `saveTimeoutMs`: a stall. */
  readonly timeouts: number;
  /** Calls that had not settled `stallMs` after they started, or by the end. */
  readonly stalled: number;
  /** Calls that failed in a way the contract does not allow (not a SpillError, a rejected apply…). */
  readonly unexpected: readonly string[];
  /** Artifacts a sweep or purge deleted although their save began after it did. */
  readonly deletedTooYoung: readonly string[];
  /** Reports that left deleted entries out of their lists, so the check above missed some. */
  readonly incompleteReports: number;
  /** Sweeps and purges that did not list everything (complete: false). */
  readonly stoppedEarly: number;
  /** Why they stopped: the listing error's code and the start of its message, counted. */
  readonly stoppedEarlyBy: Readonly<Record<string, number>>;
  /** Faults injected. */
  readonly faults: number;
  /** Open descriptors before the first call and after the last one settled. */
  readonly fdsBefore: number;
  readonly fdsAfter: number;
  /** Heap in use after a full collection, before and after. */
  readonly heapBefore: number;
  readonly heapAfter: number;
  /** The samples, in order. */
  readonly samples: readonly SoakSample[];
}

/** The kinds of call the workers make. */
export type CallKind = 'apply' | 'stream' | 'read' | 'grep' | 'purge' | 'sweep';

const KINDS: readonly CallKind[] = ['apply', 'stream', 'read', 'grep', 'purge', 'sweep'];
/** Injected errors, as the system would report them. */
const FAULT_CODES = ['EMFILE', 'ENOSPC', 'EIO'] as const;
/** The calls faults are injected into; never `close` (a close that fails leaves no trace in a real system either way). */
const FAULTY: readonly (keyof FsOps)[] = ['open', 'write', 'read', 'fstat', 'lstat', 'link', 'unlink', 'fsync', 'mkdir', 'opendir'];
/** Checked descriptors and delays outlive a call by a few ticks (background closes). */
const SETTLE_MS = 300;
/** How long the retrieval engine keeps an idle regex worker (its default `idleTimeoutMs`). */
const WORKER_IDLE_MS = 5000;
const MAX_INLINE = 4096;
const SAVE_TIMEOUT_MS = 20_000;

/** A full garbage collection, enabled at run time (no `--expose-gc` needed). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  return typeof gc === 'function' ? gc : () => undefined;
}

/** Open descriptors of this process (Linux); -1 elsewhere. */
export function openFds(): number {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return -1;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A small deterministic PRNG (mulberry32), so a run's mix is reproducible. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Wraps the real file-system calls with injected failures and delays. */
function faultyOps(rng: () => number, faultRate: number, slowRate: number, slowMaxMs: number, count: { faults: number }): FsOps {
  const ops: Record<string, unknown> = { ...nodeFsOps };
  for (const name of FAULTY) {
    // The table's members are plain functions (no `this`), so calling one detached is fine.
    const real = (...args: unknown[]): Promise<unknown> => (nodeFsOps[name] as (...a: unknown[]) => Promise<unknown>)(...args);
    ops[name] = async (...args: unknown[]): Promise<unknown> => {
      if (rng() < slowRate) await sleep(rng() * slowMaxMs);
      if (rng() < faultRate) {
        count.faults += 1;
        const code = FAULT_CODES[Math.floor(rng() * FAULT_CODES.length)] ?? 'EIO';
        throw Object.assign(new Error(`${code}: injected by the soak, ${name}`), { code, syscall: name });
      }
      return real(...args);
    };
  }
  return ops as unknown as FsOps;
}

/** Text of `bytes` ASCII lines, so reads and greps have lines to find. */
function body(bytes: number, tag: string): string {
  const line = `${tag} soak line with a needle-${tag.length % 10} in it\n`;
  return line.repeat(Math.max(1, Math.ceil(bytes / line.length))).slice(0, bytes);
}

/** Runs the soak for `options.durationMs` and reports what it saw. */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const workers = options.workers ?? 12;
  const sessions = options.sessions ?? 40;
  const sweepEveryMs = options.sweepEveryMs ?? 300;
  const sampleEveryMs = options.sampleEveryMs ?? 1000;
  const stallMs = options.stallMs ?? 60_000;
  const rng = random(0x5eed);
  const gc = collector();
  const base = await mkdtemp(path.join(options.tmpDir ?? os.tmpdir(), 'spillway-soak-'));
  const root = path.join(base, 'root');

  const counts = { faults: 0 };
  const ops = faultyOps(rng, options.faultRate ?? 0.01, options.slowRate ?? 0.05, options.slowMaxMs ?? 25, counts);
  const backend = createLocalBackendWithFs({ root, createRoot: true, maxOpenFiles: options.maxOpenFiles ?? 16 }, ops);
  const calls = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<CallKind, number>;
  const maxLatencyMs = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<CallKind, number>;
  const kept: Record<string, number> = {};
  const unexpected: string[] = [];
  const deletedTooYoung: string[] = [];
  let spilled = 0;
  let timeouts = 0;
  let stalled = 0;
  let incompleteReports = 0;
  let stoppedEarly = 0;
  const stoppedEarlyBy: Record<string, number> = {};
  const note = (what: string): void => {
    if (unexpected.length < 50) unexpected.push(what);
  };

  const policy = createSpillPolicy({
    backend,
    maxInlineBytes: MAX_INLINE,
    saveTimeoutMs: options.saveTimeoutMs ?? SAVE_TIMEOUT_MS,
    onEvent: (e: SpillEvent) => {
      if (e.type === 'spilled') spilled += 1;
      else if (e.type === 'kept') {
        kept[e.reason] = (kept[e.reason] ?? 0) + 1;
        if (e.reason === 'timeout') timeouts += 1;
      }
    },
  });
  const retention = createRetention({ catalog: backend.catalog, maxAgeMs: 1500, maxTotalBytes: 8 * 1024 * 1024, graceMs: 0, maxReportedEntries: 1_000_000 });

  // When each spilled artifact's save began, to check that no sweep deletes one it should not.
  const savedAt = new Map<string, number>();
  const live: SpillLocator[] = [];
  const remember = (result: ToolResult, began: number): void => {
    const block = result.content[0];
    const text = block !== undefined && block.type === 'text' ? (block as { text: string }).text : '';
    const notice = parseSpillNotice(text);
    if (notice === undefined) return;
    savedAt.set(notice.locator, began);
    live.push(notice.locator as SpillLocator);
    if (live.length > 2000) live.splice(0, live.length - 1000);
  };
  const checkReport = (report: RetentionReport): void => {
    if (!report.complete) {
      stoppedEarly += 1;
      const why = report.errors.find((e) => e.phase === 'list');
      const key = why === undefined ? 'unknown' : `${why.code}: ${why.message.slice(0, 60)}`;
      stoppedEarlyBy[key] = (stoppedEarlyBy[key] ?? 0) + 1;
    }
    if (report.entries.omitted > 0) incompleteReports += 1;
    const began = report.startedAt.getTime();
    for (const entry of report.entries.deleted) {
      const at = savedAt.get(entry.locator);
      if (at !== undefined && at > began && deletedTooYoung.length < 50) {
        deletedTooYoung.push(`${entry.locator} saved at ${new Date(at).toISOString()}, ${report.kind} began ${report.startedAt.toISOString()}`);
      }
      savedAt.delete(entry.locator);
    }
  };

  // Every call goes through here: counted when it settles, flagged when it takes too long.
  const pending = new Set<Promise<unknown>>();
  const track = <T>(kind: CallKind, run: () => Promise<T>): Promise<T | undefined> => {
    let settled = false;
    const startedAt = performance.now();
    const watchdog = setTimeout(() => {
      if (!settled) {
        stalled += 1;
        note(`${kind} still pending after ${String(stallMs)} ms`);
      }
    }, stallMs);
    const p = run().then(
      (value) => value,
      (error: unknown) => {
        note(`${kind} rejected: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      },
    ).finally(() => {
      settled = true;
      clearTimeout(watchdog);
      calls[kind] += 1;
      maxLatencyMs[kind] = Math.max(maxLatencyMs[kind], performance.now() - startedAt);
      pending.delete(p);
    });
    pending.add(p);
    return p;
  };

  const session = (): string => `soak-${String(Math.floor(rng() * sessions))}`;
  const pick = (): SpillLocator | undefined => live[Math.floor(rng() * live.length)];
  /** A reader call may fail only with a SpillError (gone, injected fault…), never otherwise. */
  const readerCall = async (run: () => Promise<unknown>, what: string): Promise<void> => {
    try {
      await run();
    } catch (error) {
      if (!isSpillError(error)) note(`${what} threw a non-SpillError: ${String(error)}`);
    }
  };

  let n = 0;
  const oneCall = async (): Promise<void> => {
    n += 1;
    const id = n;
    const r = rng();
    const exec = { toolName: r < 0.5 ? 'web_fetch' : 'bash', callId: `call-${String(id)}`, sessionId: session() };
    if (r < 0.5) {
      // Apply: a third of the results are over the cap and spill.
      const big = rng() < 0.35;
      const began = Date.now();
      const result = { content: [{ type: 'text' as const, text: body(big ? 8_000 + Math.floor(rng() * 60_000) : 200, `a${String(id)}`) }] };
      const out = await track('apply', () => policy.applyToResult(exec, result));
      if (out !== undefined) remember(out, began);
    } else if (r < 0.62) {
      const began = Date.now();
      const out = await track('stream', async () => {
        const s = policy.stream(exec);
        const chunks = 1 + Math.floor(rng() * 8);
        for (let i = 0; i < chunks; i++) {
          await s.push(body(200 + Math.floor(rng() * 4000), `s${String(id)}-${String(i)}`));
          if (rng() < 0.3) await sleep(rng() * 5);
        }
        return s.finish();
      });
      if (out !== undefined) remember(out, began);
    } else if (r < 0.8) {
      const locator = pick();
      if (locator !== undefined) {
        await track('read', () => readerCall(() => backend.reader.read(locator, { offset: 1 + Math.floor(rng() * 20), limit: 50 }), 'read'));
      }
    } else if (r < 0.97) {
      const locator = pick();
      if (locator !== undefined) {
        await track('grep', () => readerCall(() => backend.reader.grep(locator, rng() < 0.5 ? 'needle-[0-9]' : 'soak line', { maxMatches: 20 }), 'grep'));
      }
    } else {
      const report = await track('purge', () => retention.purgeSession(sessionId(session())));
      if (report !== undefined) checkReport(report);
    }
  };

  await backend.root();
  gc();
  const fdsBefore = openFds();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = Date.now();
  const deadline = started + options.durationMs;
  const samples: SoakSample[] = [];

  const sampler = async (): Promise<void> => {
    for (;;) {
      await sleep(sampleEveryMs);
      if (Date.now() >= deadline) return;
      gc();
      const sample: SoakSample = {
        atMs: Date.now() - started,
        calls: KINDS.reduce((sum, k) => sum + calls[k], 0),
        fds: openFds(),
        rss: process.memoryUsage.rss(),
        heapUsed: process.memoryUsage().heapUsed,
      };
      samples.push(sample);
      options.onSample?.(sample);
    }
  };
  const sweeper = async (): Promise<void> => {
    while (Date.now() + sweepEveryMs < deadline) {
      await sleep(sweepEveryMs);
      // Not awaited: sweeps pile up when one takes longer than the period.
      void track('sweep', () => retention.sweep()).then((report) => {
        if (report !== undefined) checkReport(report);
      });
    }
  };
  const worker = async (): Promise<void> => {
    while (Date.now() < deadline) await oneCall();
  };

  await Promise.all([sampler(), sweeper(), ...Array.from({ length: workers }, () => worker())]);
  // Whatever is still running (sweeps) must settle too.
  const cutoff = Date.now() + stallMs;
  while (pending.size > 0 && Date.now() < cutoff) await Promise.race([sleep(100), ...pending]);
  stalled += pending.size;
  if (pending.size > 0) note(`${String(pending.size)} calls never settled`);
  const durationMs = Date.now() - started;

  await sleep(SETTLE_MS);
  gc();
  // An idle regex worker (four descriptors) ends only WORKER_IDLE_MS after its last grep:
  // wait for it before counting, so that a worker still alive is not taken for a leak.
  let fdsAfter = openFds();
  // Left as soon as the count is back; the slack is for a loaded machine ending a thread.
  const workersGoneBy = Date.now() + WORKER_IDLE_MS + 30_000;
  while (fdsAfter > fdsBefore && Date.now() < workersGoneBy) {
    await sleep(100);
    fdsAfter = openFds();
  }
  const heapAfter = process.memoryUsage().heapUsed;
  const total = KINDS.reduce((sum, k) => sum + calls[k], 0);
  await rm(base, { recursive: true, force: true });
  return {
    durationMs,
    calls,
    maxLatencyMs,
    callsPerSecond: total / (durationMs / 1000),
    spilled,
    kept,
    timeouts,
    stalled,
    unexpected,
    deletedTooYoung,
    incompleteReports,
    stoppedEarly,
    stoppedEarlyBy,
    faults: counts.faults,
    fdsBefore,
    fdsAfter,
    heapBefore,
    heapAfter,
    samples,
  };
}
