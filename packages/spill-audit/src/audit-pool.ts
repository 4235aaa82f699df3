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
 * Audits `files` on `size` worker threads loaded from `url`, handing each the next file in
 * order as it finishes one. Answers each file's audit in file order, or `undefined` when
 * the pool cannot start (its entry missing, a worker failing to load): the caller then
 * reads on its own thread. Past a file that fails no further file is begun; once those
 * begun are done, the first failing file's error is thrown, as reading in order would.
 */
export async function auditInPool(files: readonly string[], job: FileJob, size: number, progress: PoolProgress | undefined, url: URL = AUDIT_WORKER_URL): Promise<FileAudit[] | undefined> {
  if (!existsSync(fileURLToPath(url))) return undefined;
  const workers: Worker[] = [];
  try {
    try {
      for (let i = 0; i < size; i++) workers.push(new Worker(url));
    } catch {
      // Node refuses some of the process's flags in a worker (`--input-type`, `-e`).
      return undefined;
    }
    if (!(await Promise.all(workers.map(started))).every(Boolean)) return undefined;
    const audits: (FileAudit | PoolError | undefined)[] = [];
    await new Promise<void>((resolve) => {
      let next = 0;
      let firstFailure = files.length;
      let busy = 0;
      const fail = (index: number, error: PoolError): void => {
        audits[index] = error;
        firstFailure = Math.min(firstFailure, index);
      };
      const give = (worker: Worker): boolean => {
        if (next >= files.length || next > firstFailure) return false;
        const index = next++;
        const request: PoolRequest = { index, file: files[index] ?? '', job };
        worker.postMessage(request);
        busy++;
        return true;
      };
      const settle = (): void => {
        if (busy === 0) resolve();
      };
      for (const worker of workers) {
        let current = -1;
        const takeNext = (): void => {
          current = next;
          if (!give(worker)) current = -1;
        };
        worker.on('message', (reply: PoolReply) => {
          if (reply.kind === 'bytes') progress?.read(reply.bytes);
          else if (reply.kind === 'done' || reply.kind === 'failed') {
            busy--;
            if (reply.kind === 'done') {
              audits[reply.index] = reply.audit;
              progress?.fileDone();
            } else fail(reply.index, reply.error);
            takeNext();
            settle();
          }
        });
        // A worker that dies fails the file it held; the others go on, so nothing waits on it.
        const died = (error: Error): void => {
          if (current < 0) return;
          busy--;
          fail(current, { name: error.name, message: error.message, stack: error.stack, code: undefined, cause: undefined });
          current = -1;
          settle();
        };
        worker.on('error', died);
        worker.on('exit', (code) => { died(new Error(`An audit worker stopped (exit code ${String(code)}).`)); });
        takeNext();
      }
      settle();
    });
    const done: FileAudit[] = [];
    for (const audit of audits) {
      if (audit === undefined) break;
      if (!('calls' in audit)) throw revived(audit);
      done.push(audit);
    }
    return done;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** Whether `worker` loaded: its first word is `ready`, not an error or an exit. */
function started(worker: Worker): Promise<boolean> {
  return new Promise((resolve) => {
    const ready = (): void => { answer(true); };
    const failed = (): void => { answer(false); };
    // Only these listeners go: the worker's own ones keep its port alive.
    const answer = (ok: boolean): void => {
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
