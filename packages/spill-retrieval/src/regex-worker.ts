/**
 * The regex worker: runs native `RegExp` scans of text blocks off the main thread, so a
 * pattern that backtracks catastrophically can be stopped (the pool terminates the
 * worker) and the block searched again by the linear-time engine. It runs that engine
 * (re2js) too, for the same reason: linear in the text, but the text times the pattern's
 * size is no small cost, and only a worker can be stopped in the middle of one long line.
 */
import { parentPort } from 'node:worker_threads';
import { isAscii } from 'node:buffer';
import { scanNeedle, scanPieces } from './scan-bytes.js';
import { nativeMatchers } from './scan-text.js';
import type { BlockScan } from './scan-text.js';
import type { BlockResult } from './scan-text.js';

/** A job for the worker. */
export interface RegexJob extends BlockScan {
  readonly id: number;
  /** The block of whole lines, as UTF-8 (in shared memory, which the worker only reads, when it can be). */
  readonly bytes: Uint8Array;
  readonly line: string;
  readonly block: string;
  readonly flags: string;
  /** Text every matching line contains, when known. */
  readonly literal?: string;
  /** Set: search with re2js, this source and these flags, instead of the native sources. */
  readonly re2?: { readonly source: string; readonly flags: number };
}

/** The worker's answer. */
export type RegexReply =
  | { readonly id: number; readonly ok: true; readonly result: BlockResult }
  | { readonly id: number; readonly ok: false; readonly message: string };

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

interface Matchers extends ReturnType<typeof nativeMatchers> {
  /** The required text as UTF-8, searched for as bytes. */
  readonly needle: Buffer | undefined;
}

const cache = new Map<string, Matchers>();

function decode(bytes: Uint8Array): string {
  // Pure ASCII (most logs) decodes faster as latin1, to the same string.
  if (isAscii(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  return decoder.decode(bytes);
}

type Re2 = typeof import('re2js').RE2JS;
/** re2js, loaded on the first job that needs it: most workers only ever run native jobs, and start faster without it. */
let re2js: Re2 | undefined;

/** The linear engine's matchers: every line is given to re2js (no nominator). */
function re2Matchers(RE2JS: Re2, source: string, flags: number): ReturnType<typeof nativeMatchers> {
  const re2 = RE2JS.compile(source, flags);
  return {
    first: (text) => {
      const m = re2.matcher(text);
      return m.find() ? [m.start(), m.end()] : undefined;
    },
    nominate: (_text, from) => from,
  };
}

// Tell the pool the module is loaded: its time budgets start from here, not from a cold start.
parentPort?.postMessage({ ready: true });

parentPort?.on('message', (job: RegexJob) => {
  if (job.re2 !== undefined && re2js === undefined) {
    import('re2js').then(
      (module) => {
        re2js = module.RE2JS;
        answer(job);
      },
      (error: unknown) => {
        parentPort?.postMessage({ id: job.id, ok: false, message: error instanceof Error ? error.message : String(error) } satisfies RegexReply);
      },
    );
    return;
  }
  answer(job);
});

function answer(job: RegexJob): void {
  try {
    const key =
      job.re2 === undefined
        ? `${job.flags}\u0000${job.line}\u0000${job.block}\u0000${job.literal ?? ''}`
        : `re2\u0000${String(job.re2.flags)}\u0000${job.re2.source}\u0000${job.literal ?? ''}`;
    let matchers = cache.get(key);
    if (matchers === undefined) {
      if (cache.size > 16) cache.clear();
      const made =
        job.re2 === undefined || re2js === undefined
          ? nativeMatchers(job.line, job.block, job.flags, job.literal)
          : re2Matchers(re2js, job.re2.source, job.re2.flags);
      matchers = { ...made, needle: job.literal === undefined ? undefined : Buffer.from(job.literal) };
      cache.set(key, matchers);
    }
    const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.length);
    // With a required text, a byte search finds the candidate lines and only they are
    // decoded; without one, the block is decoded and searched in small pieces.
    const result =
      matchers.needle === undefined
        ? scanPieces(bytes, job, matchers.first, matchers.nominate, decode)
        : scanNeedle(bytes, job, matchers.needle, matchers.first, decode);
    parentPort?.postMessage({ id: job.id, ok: true, result } satisfies RegexReply);
  } catch (error) {
    parentPort?.postMessage({ id: job.id, ok: false, message: error instanceof Error ? error.message : String(error) } satisfies RegexReply);
  }
}
