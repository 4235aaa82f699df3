/**
 * The regex worker: runs native `RegExp` scans of text blocks off the main thread, so a
 * pattern that backtracks catastrophically can be stopped (the pool terminates the
 * worker) and the block searched again by the linear-time engine.
 */
import { parentPort } from 'node:worker_threads';
import { isAscii } from 'node:buffer';
import { nativeMatchers, scanBlock } from './scan-text.js';
import type { BlockResult, BlockScan } from './scan-text.js';

/** A job for the worker. */
export interface RegexJob extends BlockScan {
  readonly id: number;
  /** The block of whole lines, as UTF-8. */
  readonly bytes: Uint8Array;
  readonly line: string;
  readonly block: string;
  readonly flags: string;
}

/** The worker's answer. */
export type RegexReply =
  | { readonly id: number; readonly ok: true; readonly result: BlockResult }
  | { readonly id: number; readonly ok: false; readonly message: string };

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const cache = new Map<string, ReturnType<typeof nativeMatchers>>();

function decode(bytes: Uint8Array): string {
  // Pure ASCII (most logs) decodes faster as latin1, to the same string.
  if (isAscii(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  return decoder.decode(bytes);
}

parentPort?.on('message', (job: RegexJob) => {
  try {
    const key = `${job.flags}\u0000${job.line}\u0000${job.block}`;
    let matchers = cache.get(key);
    if (matchers === undefined) {
      if (cache.size > 16) cache.clear();
      matchers = nativeMatchers(job.line, job.block, job.flags);
      cache.set(key, matchers);
    }
    const result = scanBlock(decode(job.bytes), job, matchers.first, matchers.nominate);
    parentPort?.postMessage({ id: job.id, ok: true, result } satisfies RegexReply);
  } catch (error) {
    parentPort?.postMessage({ id: job.id, ok: false, message: error instanceof Error ? error.message : String(error) } satisfies RegexReply);
  }
});
