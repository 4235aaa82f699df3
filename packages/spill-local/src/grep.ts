import { Worker } from 'node:worker_threads';
import {
  DEFAULT_GREP_MAX_LINE_BYTES,
  DEFAULT_GREP_MAX_MATCHES,
  DEFAULT_GREP_TIMEOUT_MS,
  SpillError,
  abortedError,
  isSpillError,
  throwIfAborted,
} from '@spillway/core';
import type { GrepOptions } from '@spillway/core';
import { spillError, storageError } from './errors.js';
import { scanFile } from './grep-scan.js';
import type { ScanRead, ScanRequest, ScanResult } from './grep-scan.js';

/** The longest pattern accepted, in UTF-16 code units. */
export const MAX_PATTERN_LENGTH = 10_000;
/** Bytes read per scan step. */
const CHUNK_BYTES = 4 * 1024 * 1024;
/** Lines longer than this are searched in pieces (a documented limit). */
export const MAX_LINE_SPAN = 16 * 1024 * 1024;

/** Grep options with defaults applied. */
export interface GrepSettings {
  readonly maxMatches: number;
  readonly maxLineBytes: number;
  readonly timeoutMs: number;
  readonly ignoreCase: boolean;
  readonly literal: boolean;
}

/** Applies defaults and checks the options (SPILL_INVALID_INPUT when malformed). */
export function grepSettings(options: GrepOptions | undefined): GrepSettings {
  const maxMatches = options?.maxMatches ?? DEFAULT_GREP_MAX_MATCHES;
  const maxLineBytes = options?.maxLineBytes ?? DEFAULT_GREP_MAX_LINE_BYTES;
  const timeoutMs = options?.timeoutMs ?? DEFAULT_GREP_TIMEOUT_MS;
  if (!Number.isSafeInteger(maxMatches) || maxMatches < 0) throw spillError('SPILL_INVALID_INPUT', `grep: maxMatches must be a whole number of at least 0; got ${String(maxMatches)}.`);
  if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 0) throw spillError('SPILL_INVALID_INPUT', `grep: maxLineBytes must be a whole number of at least 0; got ${String(maxLineBytes)}.`);
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !Number.isFinite(timeoutMs)) throw spillError('SPILL_INVALID_INPUT', `grep: timeoutMs must be a positive number of milliseconds; got ${String(timeoutMs)}.`);
  return { maxMatches, maxLineBytes, timeoutMs, ignoreCase: options?.ignoreCase === true, literal: options?.literal === true };
}

const REGEX_SPECIALS = /[\\^$.*+?()[\]{}|/-]/g;

/** `text` as regex source that matches it literally. */
export function escapeRegex(text: string): string {
  return text.replace(REGEX_SPECIALS, '\\$&');
}

// A lookaround can see the newline next to a line in a whole chunk but not in the line
// alone, which breaks the chunk prefilter's soundness; such patterns are run per line.
const LOOKAROUND = /\(\?<?[=!]/;

/** How a pattern will be run. */
export interface GrepPlan {
  readonly request: Omit<ScanRequest, 'size' | 'deadline'>;
  /** Whether it must run where it can be stopped (a worker): arbitrary regexes. */
  readonly isolate: boolean;
}

/**
 * Validates the pattern and decides how to run it: a case-sensitive literal is a byte
 * search in process; a case-insensitive literal is an escaped regex (linear, in process);
 * anything else is a regex run in a worker thread that is terminated at the deadline.
 */
export function planGrep(pattern: unknown, settings: GrepSettings): GrepPlan {
  if (typeof pattern !== 'string') throw new SpillError('SPILL_INVALID_PATTERN', 'A grep pattern must be a string.');
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new SpillError('SPILL_INVALID_PATTERN', `The grep pattern is ${pattern.length} characters long; the limit is ${MAX_PATTERN_LENGTH}.`);
  }
  const common = { maxMatches: settings.maxMatches, maxLineBytes: settings.maxLineBytes, chunkBytes: CHUNK_BYTES, maxLineSpan: MAX_LINE_SPAN };
  if (settings.literal && !settings.ignoreCase) {
    return { request: { ...common, mode: 'bytes', needle: pattern, flags: '', prefilter: false }, isolate: false };
  }
  const source = settings.literal ? escapeRegex(pattern) : pattern;
  const flags = settings.ignoreCase ? 'i' : '';
  try {
    new RegExp(source, flags);
  } catch (error) {
    throw new SpillError('SPILL_INVALID_PATTERN', `The grep pattern is not a valid JavaScript regular expression: ${(error as Error).message}. Fix it, or pass literal: true to search for the text as is.`, { cause: error });
  }
  return {
    request: { ...common, mode: 'regex', needle: source, flags, prefilter: !LOOKAROUND.test(source) },
    isolate: !settings.literal,
  };
}

/** The worker's whole program: run the scanner on the descriptor it was given. */
const WORKER_SOURCE = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const fs = process.getBuiltinModule('node:fs');
const scanFile = ${scanFile.toString()};
const read = (buffer, offset, length, position) => fs.readSync(workerData.fd, buffer, offset, length, position);
scanFile(workerData.request, read, () => Date.now()).then(
  (result) => parentPort.postMessage({ ok: true, result }),
  (error) => parentPort.postMessage({ ok: false, name: String(error && error.name), message: String(error && error.message), code: error && typeof error.code === 'string' ? error.code : undefined }),
);
`;

type WorkerReply = { ok: true; result: ScanResult } | { ok: false; name: string; message: string; code?: string };

function timeoutError(ms: number): SpillError {
  return new SpillError('SPILL_TIMEOUT', `grep gave up after ${ms} ms; use a simpler pattern, literal: true, or a larger timeoutMs.`);
}

/**
 * Runs a planned grep over `fd` (already opened and checked; it stays open until this
 * settles). Regexes run in a worker that is terminated when the time budget or the
 * signal runs out, so a catastrophic pattern cannot hang the process.
 */
export async function runGrep(
  fd: number,
  size: number,
  plan: GrepPlan,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  read: ScanRead,
): Promise<ScanResult> {
  const deadline = Date.now() + timeoutMs;
  const request: ScanRequest = { ...plan.request, size, deadline };
  if (!plan.isolate) {
    const result = await scanFile(request, read, () => {
      throwIfAborted(signal, 'The grep');
      return Date.now();
    });
    if (result.timedOut) throw timeoutError(timeoutMs);
    return result;
  }
  throwIfAborted(signal, 'The grep');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { fd, request },
    resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 },
    stdout: true,
    stderr: true,
  });
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const reply = await new Promise<WorkerReply>((resolve, reject) => {
      worker.once('message', (message: WorkerReply) => { resolve(message); });
      worker.once('error', (error) => { reject(error); });
      worker.once('exit', (code) => { reject(new Error(`grep worker exited with code ${code}`)); });
      timer = setTimeout(() => { reject(timeoutError(timeoutMs)); }, timeoutMs);
      if (signal !== undefined) {
        onAbort = () => { reject(abortedError(signal, 'The grep')); };
        signal.addEventListener('abort', onAbort, { once: true });
      }
    });
    if (!reply.ok && reply.code !== undefined) {
      throw storageError(Object.assign(new Error(reply.message), { code: reply.code }), 'reading the spill file for grep');
    }
    if (!reply.ok) {
      throw new SpillError('SPILL_INVALID_PATTERN', `The grep pattern failed while running (${reply.name}: ${reply.message}).`);
    }
    if (reply.result.timedOut) throw timeoutError(timeoutMs);
    return reply.result;
  } catch (error) {
    if (isSpillError(error)) throw error;
    throw new SpillError('SPILL_STORAGE_FAILED', `grep failed: ${(error as Error).message}.`, { cause: error });
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    // The worker reads our descriptor: it must be gone before the caller closes it.
    await worker.terminate();
  }
}
