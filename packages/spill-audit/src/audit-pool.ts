/**
 * Spreads an audit's files over a few worker threads. Files are the unit: each file's
 * sessions are analysed apart from every other file's, so a file's figures do not depend on
 * which thread read it, and the caller merges them in file order, as one thread would.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FileAudit, FileJob } from './audit-file.js';
import { AuditError, type AuditErrorCode } from './errors.js';

/**
 * A worker's young generation, in MiB, below V8's default: it only sets how often short-lived
 * objects are collected, never fails an allocation. On 256 MiB of transcripts, two threads
 * peaked at 212 MiB with it against 240 MiB without, in the same time; 8 MiB saved little
 * more and cost time. The calling thread's own young generation cannot be set so, which is
 * why it reads nothing itself.
 */
const WORKER_YOUNG_MB = 16;

/** The compiled worker entry, beside this module in `dist`. */
export const AUDIT_WORKER_URL = new URL('./audit-worker.js', import.meta.url);

/** What a worker is sent: one file to audit, what for, and whether to tell of the bytes it reads. */
export interface PoolRequest {
  readonly index: number;
  readonly file: string;
  readonly job: FileJob;
  readonly progress: boolean;
}

/** An error as a worker sends it. */
export interface PoolError {
  readonly name: string;
  readonly message: string;
  readonly stack: string | undefined;
  readonly code: AuditErrorCode | undefined;
  /** The `code` of an error that is not an `AuditError` (Node's `ERR_…`, a system error's `ENOENT`). */
  readonly otherCode: string | undefined;
  readonly cause: { name: string; message: string; code: string | undefined } | undefined;
}

/** What a worker answers: loaded, bytes of file `index` read, its figures, or its error. */
export type PoolReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'bytes'; readonly index: number; readonly bytes: number }
  | { readonly kind: 'done'; readonly index: number; readonly audit: FileAudit }
  | { readonly kind: 'failed'; readonly index: number; readonly error: PoolError };

/** Told of a pooled audit's reading: bytes read of any file, and each file done. */
export interface PoolProgress {
  readonly read: (bytes: number) => void;
  readonly fileDone: () => void;
}

/** How a pooled audit hands its results over, and is told of its start. */
export interface PoolDelivery {
  /**
   * Takes file `index`'s audit, files in order, each as soon as it and every file before it
   * are done: the pool keeps only the files done out of order.
   */
  readonly take: (index: number, audit: FileAudit) => void;
  /** The job of the next file begun (its `maxChecks` may shrink as files are taken). */
  readonly jobFor: () => FileJob;
  /** Told the number of workers once every one has loaded. */
  readonly onStart?: ((workers: number) => void) | undefined;
}

/**
 * Audits `files` on `size` worker threads loaded from `url`, each handed the next file in
 * order as it finishes one; the calling thread only hands files out and takes what comes
 * back (reading there too was no faster, and its larger young generation cost memory).
 * Hands each file's audit to `delivery.take` in file order, and answers `true`; or answers
 * `false`, having taken none, when the pool cannot start (its entry missing, a worker failing
 * to load): the caller then reads on its own thread. Past a file that fails no further file
 * is begun; once those begun are done, the first failing file's error is thrown, as reading
 * in order would, the files before it having been taken.
 */
export async function auditInPool(files: readonly string[], size: number, progress: PoolProgress | undefined, delivery: PoolDelivery, url: URL = AUDIT_WORKER_URL): Promise<boolean> {
  if (!existsSync(fileURLToPath(url))) return false;
  const pool: PoolWorker[] = [];
  try {
    try {
      for (let i = 0; i < size; i++) pool.push(poolWorker(new Worker(url, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB } })));
    } catch {
      // Node refuses some of the process's flags in a worker (`--input-type`, `-e`).
      return false;
    }
    const ready = await Promise.all(pool.map(({ worker }) => started(worker)));
    // One that died after its `ready`, while another was still loading, counts as failing to start.
    if (!ready.every(Boolean) || pool.some((w) => w.dead !== undefined)) return false;
    delivery.onStart?.(size);
    /** Files done but not yet taken (out of order), and failed files. */
    const waiting: (FileAudit | Error | undefined)[] = [];
    /** Files taken, all before any waiting. */
    let taken = 0;
    // The caller's callbacks failing fails the audit, as it does on one thread, rather than
    // escaping a listener; `file` is the file it was told of.
    let progressError: { error: unknown; file: number } | undefined;
    const tell = (file: number, f: () => void): void => {
      if (progressError !== undefined) return;
      try {
        f();
      } catch (error) {
        progressError = { error, file };
      }
    };
    const takeReady = (): void => {
      for (let audit = waiting[taken]; audit !== undefined && !(audit instanceof Error) && progressError === undefined; audit = waiting[taken]) {
        waiting[taken] = undefined;
        const index = taken++;
        tell(index, () => { delivery.take(index, audit); });
      }
    };
    /** A worker that died while it held no file: the files after the last begun are never read. */
    let idleDeath: Error | undefined;
    await new Promise<void>((resolve) => {
      let next = 0;
      let firstFailure = files.length;
      let busy = 0;
      const done = (index: number, audit: FileAudit): void => {
        busy--;
        waiting[index] = audit;
        if (progress !== undefined) tell(index, () => { progress.fileDone(); });
        takeReady();
      };
      const fail = (index: number, error: Error): void => {
        busy--;
        waiting[index] = error;
        firstFailure = Math.min(firstFailure, index);
      };
      const settle = (): void => {
        if (busy === 0) resolve();
      };
      for (const w of pool) {
        let current = -1;
        const give = (): void => {
          current = -1;
          if (w.dead !== undefined || next >= files.length || next > firstFailure || progressError !== undefined) return;
          busy++;
          current = next++;
          w.worker.postMessage({ index: current, file: files[current] ?? '', job: delivery.jobFor(), progress: progress !== undefined } satisfies PoolRequest);
        };
        w.onMessage = (reply) => {
          if (reply.kind === 'bytes') {
            if (progress !== undefined) tell(reply.index, () => { progress.read(reply.bytes); });
          } else if (reply.kind === 'done' || reply.kind === 'failed') {
            if (reply.index !== current) return;
            if (reply.kind === 'done') done(reply.index, reply.audit);
            else fail(reply.index, revived(reply.error));
            give();
            settle();
          }
        };
        // A worker that dies fails the file it held; the others go on, so nothing waits on it.
        w.onDeath = (error) => {
          if (current < 0) {
            idleDeath ??= error;
            return;
          }
          const file = files[current] ?? 'a file';
          fail(current, new Error(`An audit worker stopped while reading ${file} (${error.message}). Run the audit again with one thread (--threads 1).`, { cause: error }));
          current = -1;
          settle();
        };
        give();
      }
      settle();
    });
    // The first fault in file order is the one one thread would have met: a callback's, or
    // the first failing file among those done after the last taken.
    let failure: Error | undefined;
    let failed = files.length;
    for (let i = taken; i < files.length; i++) {
      const w = waiting[i];
      if (w === undefined) break;
      if (w instanceof Error) {
        failure = w;
        failed = i;
        break;
      }
    }
    if (progressError !== undefined && progressError.file <= failed) throw progressError.error;
    if (failure !== undefined) throw failure;
    if (taken < files.length) throw new Error(`The audit's worker threads stopped before reading every file (${idleDeath?.message ?? 'no reason given'}). Run the audit again with one thread (--threads 1).`, { cause: idleDeath });
    return true;
  } finally {
    await Promise.all(pool.map(({ worker }) => worker.terminate()));
  }
}

/** A pool's worker: what it answers and how it died go to whoever handles them now. */
interface PoolWorker {
  readonly worker: Worker;
  /** Why it died, once it has: an error, an exit, or a reply that could not be read (after which it is stopped). */
  dead: Error | undefined;
  onMessage: ((reply: PoolReply) => void) | undefined;
  onDeath: ((error: Error) => void) | undefined;
}

/**
 * Listens to `worker` from its creation, so that a death while another worker still loads
 * is never missed, and a dead worker's later messages are ignored.
 */
function poolWorker(worker: Worker): PoolWorker {
  const w: PoolWorker = { worker, dead: undefined, onMessage: undefined, onDeath: undefined };
  const die = (error: Error): void => {
    if (w.dead !== undefined) return;
    w.dead = error;
    w.onDeath?.(error);
  };
  worker.on('message', (reply: PoolReply) => {
    if (w.dead === undefined) w.onMessage?.(reply);
  });
  worker.on('error', die);
  worker.on('messageerror', (error: Error) => {
    die(error);
    void worker.terminate();
  });
  worker.on('exit', (code) => { die(new Error(`exit code ${String(code)}`)); });
  return w;
}

/** How long a worker may take to load before the audit reads on its own thread instead. */
const START_TIMEOUT_MS = 30_000;

/** Whether `worker` loaded: its first word is `ready`, not an error, an exit or silence. */
function started(worker: Worker): Promise<boolean> {
  return new Promise((resolve) => {
    const ready = (): void => { answer(true); };
    const failed = (): void => { answer(false); };
    const timer = setTimeout(failed, START_TIMEOUT_MS);
    // Only these listeners go: the pool's own ones stay.
    const answer = (ok: boolean): void => {
      clearTimeout(timer);
      worker.off('message', ready).off('error', failed).off('exit', failed);
      resolve(ok);
    };
    worker.once('message', ready);
    worker.once('error', failed);
    worker.once('exit', failed);
  });
}

/** The built-in error classes a worker's error is revived as, by name; any other is an `Error` of its name. */
const BUILT_IN_ERRORS: Readonly<Record<string, ErrorConstructor>> = { TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError };

/** The error a worker sent, as the thread that read the file would have thrown it. */
function revived(error: PoolError): Error {
  const cause = error.cause === undefined ? undefined : Object.assign(new Error(error.cause.message), { name: error.cause.name, code: error.cause.code });
  const options = cause === undefined ? {} : { cause };
  const e = error.code !== undefined ? new AuditError(error.code, error.message, options) : new (BUILT_IN_ERRORS[error.name] ?? Error)(error.message, options);
  if (error.code === undefined) {
    e.name = error.name;
    if (error.otherCode !== undefined) Object.assign(e, { code: error.otherCode });
  }
  if (error.stack !== undefined) e.stack = error.stack;
  return e;
}
