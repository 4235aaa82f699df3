import type { Worker as NodeWorker } from 'node:worker_threads';
import type { BlockResult } from './scan-text.js';
import type { RegexJob, RegexReply } from './regex-worker.js';

/** How the engine may use worker threads for native regular expressions. */
export interface RegexWorkerOptions {
  /** The most worker threads at once. Default 2. */
  readonly maxWorkers?: number;
  /** An idle worker is ended after this many milliseconds. Default 5000. */
  readonly idleTimeoutMs?: number;
  /**
   * Called before a worker is started: reserve what it holds (a Node worker thread holds
   * {@link WORKER_DESCRIPTORS} file descriptors) and return the function that gives it
   * back when the worker ends, or `undefined` when nothing is free now. The grep then
   * runs on the linear-time engine in-process instead of waiting, so a backend that
   * counts descriptors (`maxOpenFiles`) never deadlocks or overshoots.
   */
  readonly reserve?: () => (() => void) | undefined;
}

/** File descriptors one Node worker thread holds (measured on Linux, Node 20). */
export const WORKER_DESCRIPTORS = 4;

type WorkerCtor = typeof NodeWorker;

/**
 * What the pool uses of a Node worker thread, declared here so that the package's types
 * need no `@types/node` (backends for browsers and edge runtimes build on it).
 */
interface WorkerHandle {
  on(event: string, listener: (...args: never[]) => void): unknown;
  once(event: string, listener: (...args: never[]) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
  postMessage(value: unknown, transfer?: readonly ArrayBuffer[]): void;
  terminate(): Promise<number>;
  unref(): void;
}

interface Slot {
  readonly worker: WorkerHandle;
  /** Settles when the worker has loaded its module (or failed to). */
  readonly ready: Promise<void>;
  /** Whether {@link Slot.ready} has settled. */
  isReady: boolean;
  readonly release: () => void;
  idleTimer: ReturnType<typeof setTimeout> | undefined;
}

/** The outcome of {@link RegexWorkerPool.run}. */
export type RunOutcome = { readonly kind: 'done'; readonly result: BlockResult } | { readonly kind: 'timeout' };

function workerCtor(): WorkerCtor | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const mod = proc?.getBuiltinModule?.('node:worker_threads') as { Worker?: WorkerCtor; isMainThread?: boolean } | undefined;
  return mod?.Worker;
}

function execArgvForWorker(): string[] {
  const argv = (globalThis as { process?: { execArgv?: string[] } }).process?.execArgv ?? [];
  return argv.filter((arg) => !arg.startsWith('--input-type') && arg !== '-e' && arg !== '--eval' && arg !== '-p' && arg !== '--print');
}

function workerUrl(): URL {
  // Built: dist/regex-worker.js next to this file. Run from source by a test runner: use
  // the built worker, since Node cannot start a worker from TypeScript.
  const here = import.meta.url;
  return here.endsWith('.ts') ? new URL('../dist/regex-worker.js', here) : new URL('./regex-worker.js', here);
}

/** A lease on one worker for the length of one grep. */
export class WorkerLease {
  #nextId = 0;
  constructor(
    private readonly pool: RegexWorkerPool,
    private slot: Slot | undefined,
  ) {}

  /** Whether the lease still holds a worker (a timeout ends it). */
  get active(): boolean {
    return this.slot !== undefined;
  }

  /**
   * Runs one job within `budgetMs`, counted from when the worker is ready. On timeout or
   * abort the worker is terminated (a regex cannot be interrupted any other way) and the
   * lease ends.
   */
  run(job: Omit<RegexJob, 'id'>, budgetMs: number, signal: AbortSignal | undefined): Promise<RunOutcome> {
    const slot = this.slot;
    if (slot === undefined) return Promise.resolve({ kind: 'timeout' });
    // The budget is for matching: a worker still loading its module does not spend it.
    if (!slot.isReady) return slot.ready.then(() => this.run(job, budgetMs, signal));
    // Posted synchronously, so the caller can do its own work while the worker searches.
    const id = ++this.#nextId;
    return new Promise<RunOutcome>((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        slot.worker.off('message', onMessage);
        slot.worker.off('error', onError);
        signal?.removeEventListener('abort', onAbort);
      };
      const kill = (): void => {
        cleanup();
        this.slot = undefined;
        this.pool.discard(slot);
        // The next grep should not pay for starting a worker: start its replacement now.
        this.pool.prewarm();
      };
      const onMessage = (reply: RegexReply): void => {
        if (reply.id !== id) return;
        cleanup();
        if (reply.ok) resolve({ kind: 'done', result: reply.result });
        else reject(new Error(reply.message));
      };
      const onError = (error: Error): void => {
        kill();
        reject(error);
      };
      const onAbort = (): void => {
        kill();
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      const timer = setTimeout(() => {
        kill();
        resolve({ kind: 'timeout' });
      }, Math.max(1, budgetMs));
      slot.worker.on('message', onMessage);
      slot.worker.on('error', onError);
      signal?.addEventListener('abort', onAbort, { once: true });
      // A block in shared memory is read in place; any other is transferred, not copied.
      const buffer = job.bytes.buffer;
      slot.worker.postMessage({ ...job, id }, buffer instanceof ArrayBuffer ? [buffer] : []);
    });
  }

  /** Gives the worker back to the pool. */
  release(): void {
    const slot = this.slot;
    this.slot = undefined;
    if (slot !== undefined) this.pool.giveBack(slot);
  }
}

/**
 * A small pool of regex worker threads (real module files, started lazily, ended when
 * idle, never keeping the process alive). Where there are no worker threads (browsers,
 * edge runtimes) it is empty and every regex runs on the linear-time engine.
 */
export class RegexWorkerPool {
  readonly #threads: boolean;
  // Looked up on first need: loading node:worker_threads takes a few milliseconds, which a
  // reader that never greps with a backtracking pattern (a search's) need not pay.
  #ctorFound = false;
  #ctorCache: WorkerCtor | undefined;
  readonly #max: number;
  readonly #idleMs: number;
  readonly #reserve: (() => (() => void) | undefined) | undefined;
  readonly #idle: Slot[] = [];
  #count = 0;

  constructor(options: RegexWorkerOptions | false | undefined) {
    this.#threads = options !== false;
    this.#max = options === false ? 0 : (options?.maxWorkers ?? 2);
    this.#idleMs = options === false ? 0 : (options?.idleTimeoutMs ?? 5000);
    this.#reserve = options === false ? undefined : options?.reserve;
  }

  get #ctor(): WorkerCtor | undefined {
    if (!this.#ctorFound) {
      this.#ctorCache = this.#threads ? workerCtor() : undefined;
      this.#ctorFound = true;
    }
    return this.#ctorCache;
  }

  /** Whether workers can exist at all here. */
  get available(): boolean {
    return this.#ctor !== undefined && this.#max > 0;
  }

  /** Workers alive now (busy or idle). */
  get size(): number {
    return this.#count;
  }

  /** A lease on an idle or new worker, or undefined when none can be had right now. */
  lease(): WorkerLease | undefined {
    const idle = this.#idle.pop();
    if (idle !== undefined) {
      if (idle.idleTimer !== undefined) clearTimeout(idle.idleTimer);
      idle.idleTimer = undefined;
      return new WorkerLease(this, idle);
    }
    const Ctor = this.#ctor;
    if (Ctor === undefined || this.#count >= this.#max) return undefined;
    const release = this.#reserve === undefined ? () => undefined : this.#reserve();
    if (release === undefined) return undefined;
    let worker: NodeWorker;
    try {
      worker = new Ctor(workerUrl(), {
        // The parent's flags minus those a module file refuses (`node --input-type=module -e`).
        execArgv: execArgvForWorker(),
        resourceLimits: { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 64 },
      });
    } catch {
      release();
      return undefined;
    }
    worker.unref();
    this.#count++;
    let markReady = (): void => undefined;
    const ready = new Promise<void>((resolve) => {
      markReady = () => {
        slot.isReady = true;
        resolve();
      };
    });
    const slot: Slot = { worker, ready, isReady: false, release, idleTimer: undefined };
    const onReady = (message: unknown): void => {
      if ((message as { ready?: unknown } | null)?.ready !== true) return;
      worker.off('message', onReady);
      markReady();
    };
    worker.on('message', onReady);
    worker.once('exit', () => {
      markReady();
    });
    worker.once('exit', () => {
      this.#forget(slot);
    });
    worker.on('error', () => {
      this.discard(slot);
    });
    return new WorkerLease(this, slot);
  }

  /** Starts one idle worker when the pool has room (and the reserve hook agrees). */
  prewarm(): void {
    this.lease()?.release();
  }

  /** Returns a healthy worker to the idle list. */
  giveBack(slot: Slot): void {
    slot.idleTimer = setTimeout(() => {
      this.discard(slot);
    }, this.#idleMs);
    (slot.idleTimer as { unref?: () => void }).unref?.();
    this.#idle.push(slot);
  }

  /** Ends a worker (timed out, failed, or idle too long). */
  discard(slot: Slot): void {
    const at = this.#idle.indexOf(slot);
    if (at !== -1) this.#idle.splice(at, 1);
    if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    // Its descriptors are given back on 'exit', when they are really closed.
    void slot.worker.terminate().catch(() => undefined);
  }

  #forget(slot: Slot): void {
    const at = this.#idle.indexOf(slot);
    if (at !== -1) this.#idle.splice(at, 1);
    if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    if (!(slot as { gone?: boolean }).gone) {
      (slot as { gone?: boolean }).gone = true;
      this.#count--;
      slot.release();
    }
  }

  /** Ends every idle worker now. */
  async close(): Promise<void> {
    const idle = this.#idle.splice(0);
    await Promise.all(
      idle.map(async (slot) => {
        if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
        await slot.worker.terminate().catch(() => undefined);
      }),
    );
  }
}
