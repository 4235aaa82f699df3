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

/** What a worker is sent: one file to audit, and what for. */
export interface PoolRequest {
  readonly index: number;
  readonly file: string;
  readonly job: FileJob;
}

/** An error as a worker sends it. */
export interface PoolError {
  readonly name: string;
  readonly message: string;
  readonly stack: string | undefined;
  readonly code: AuditErrorCode | undefined;
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

/**
 * Audits `files` on `size` worker threads loaded from `url`, each handed the next file in
 * order as it finishes one; the calling thread only hands files out and keeps what comes
 * back (reading there too was no faster, and its larger young generation cost memory).
 * Answers each file's audit in file order, or `undefined` when the pool cannot start (its
 * entry missing, a worker failing to load): the caller then reads on its own thread. Past
 * a file that fails no further file is begun; once those begun are done, the first failing
 * file's error is thrown, as reading in order would.
 */
export async function auditInPool(files: readonly string[], job: FileJob, size: number, progress: PoolProgress | undefined, url: URL = AUDIT_WORKER_URL): Promise<FileAudit[] | undefined> {
  if (!existsSync(fileURLToPath(url))) return undefined;
  const workers: Worker[] = [];
  try {
    try {
      for (let i = 0; i < size; i++) workers.push(new Worker(url, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB } }));
    } catch {
      // Node refuses some of the process's flags in a worker (`--input-type`, `-e`).
      return undefined;
    }
    if (!(await Promise.all(workers.map(started))).every(Boolean)) return undefined;
    const audits: (FileAudit | Error | undefined)[] = [];
    // The caller's progress callback failing fails the audit, as it does on one thread, rather than escaping a listener.
    let progressError: { error: unknown } | undefined;
    const tell = (f: () => void): void => {
      if (progressError !== undefined) return;
      try {
        f();
      } catch (error) {
        progressError = { error };
      }
    };
    const read = progress === undefined ? undefined : (bytes: number): void => { tell(() => { progress.read(bytes); }); };
    await new Promise<void>((resolve) => {
      let next = 0;
      let firstFailure = files.length;
      let busy = 0;
      const done = (index: number, audit: FileAudit): void => {
        busy--;
        audits[index] = audit;
        if (progress !== undefined) tell(() => { progress.fileDone(); });
      };
      const fail = (index: number, error: Error): void => {
        busy--;
        audits[index] = error;
        firstFailure = Math.min(firstFailure, index);
      };
      /** The next file's index for a reader that is free, or -1 when there is none to begin. */
      const take = (): number => {
        if (next >= files.length || next > firstFailure || progressError !== undefined) return -1;
        busy++;
        return next++;
      };
      const settle = (): void => {
        if (busy === 0) resolve();
      };
      for (const worker of workers) {
        let current = -1;
        const give = (): void => {
          current = take();
          if (current >= 0) worker.postMessage({ index: current, file: files[current] ?? '', job } satisfies PoolRequest);
        };
        worker.on('message', (reply: PoolReply) => {
          if (reply.kind === 'bytes') read?.(reply.bytes);
          else if (reply.kind === 'done' || reply.kind === 'failed') {
            current = -1;
            if (reply.kind === 'done') done(reply.index, reply.audit);
            else fail(reply.index, revived(reply.error));
            give();
            settle();
          }
        });
        // A worker that dies fails the file it held; the others go on, so nothing waits on it.
        const died = (error: Error): void => {
          if (current < 0) return;
          fail(current, error);
          current = -1;
          settle();
        };
        worker.on('error', died);
        worker.on('messageerror', died);
        worker.on('exit', (code) => { died(new Error(`An audit worker stopped (exit code ${String(code)}) while reading ${files[current] ?? 'a file'}. Run the audit again with one thread (--threads 1).`)); });
        give();
      }
      settle();
    });
    if (progressError !== undefined) throw progressError.error;
    const answer: FileAudit[] = [];
    for (const audit of audits) {
      if (audit === undefined) break;
      if (audit instanceof Error) throw audit;
      answer.push(audit);
    }
    return answer;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** How long a worker may take to load before the audit reads on its own thread instead. */
const START_TIMEOUT_MS = 30_000;

/** Whether `worker` loaded: its first word is `ready`, not an error, an exit or silence. */
function started(worker: Worker): Promise<boolean> {
  return new Promise((resolve) => {
    const ready = (): void => { answer(true); };
    const failed = (): void => { answer(false); };
    const timer = setTimeout(failed, START_TIMEOUT_MS);
    // Only these listeners go: the worker's own ones keep its port alive.
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

/** The error a worker sent, as the thread that read the file would have thrown it. */
function revived(error: PoolError): Error {
  const cause = error.cause === undefined ? undefined : Object.assign(new Error(error.cause.message), { name: error.cause.name, code: error.cause.code });
  const e = error.code === undefined ? new Error(error.message, cause === undefined ? {} : { cause }) : new AuditError(error.code, error.message, cause === undefined ? {} : { cause });
  if (error.code === undefined) e.name = error.name;
  if (error.stack !== undefined) e.stack = error.stack;
  return e;
}
