/**
 * The entry of an audit pool's worker thread: audits each file it is sent with
 * {@link auditFile} and answers its figures, or its error as plain data (an error's class
 * does not cross threads: the pool revives it by its name and code). Loaded by
 * `new Worker`, never imported.
 */
import { parentPort } from 'node:worker_threads';
import { auditFile } from './audit-file.js';
import { isAuditError } from './errors.js';
import type { PoolReply, PoolRequest } from './audit-pool.js';

const port = parentPort;
if (port !== null) {
  const reply = (message: PoolReply): void => { port.postMessage(message); };
  port.on('message', (request: PoolRequest) => {
    const { index, file, job, progress } = request;
    // Without a progress bar to feed, no message per piece read.
    auditFile(file, job, progress ? (bytes) => { reply({ kind: 'bytes', index, bytes }); } : undefined).then(
      (audit) => { reply({ kind: 'done', index, audit }); },
      (error: unknown) => {
        const e = error instanceof Error ? error : new Error(String(error));
        const cause = e.cause instanceof Error ? { name: e.cause.name, message: e.cause.message, code: (e.cause as NodeJS.ErrnoException).code } : undefined;
        const own = (e as NodeJS.ErrnoException).code;
        reply({ kind: 'failed', index, error: { name: e.name, message: e.message, stack: e.stack, code: isAuditError(e) ? e.code : undefined, otherCode: isAuditError(e) || typeof own !== 'string' ? undefined : own, cause } });
      },
    );
  });
  reply({ kind: 'ready' });
}
