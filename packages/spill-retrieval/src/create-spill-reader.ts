import { isSpillError, SpillError, throwIfAborted, wholeNumberProblem } from '@spillway/core';
import type { GrepOptions, GrepResult, ReadOptions, ReadResult, SpillCallOptions, SpillLocator, SpillReader } from '@spillway/core';
import { checkSource } from './byte-source.js';
import type { OpenSpillByteSource, SpillByteSource } from './byte-source.js';
import { compilePattern, loadRe2, type CompiledPattern } from './dialect.js';
import { grepSource } from './grep-lines.js';
import { LineIndexCache } from './line-index.js';
import { assertLocatorString, assertPatternString, grepSettings, readSettings } from './options.js';
import { readLines } from './read-lines.js';
import { readSourceBytes } from './read-bytes.js';
import { RegexWorkerPool } from './worker-pool.js';
import type { RegexWorkerOptions } from './worker-pool.js';

/** Default {@link CreateSpillReaderOptions.lineIndexArtifacts}. */
export const DEFAULT_LINE_INDEX_ARTIFACTS = 64;
/** Default {@link CreateSpillReaderOptions.lineIndexStride}. */
export const DEFAULT_LINE_INDEX_STRIDE = 1024;

/** Options for {@link createSpillReader}. */
export interface CreateSpillReaderOptions {
  /**
   * Validates an untrusted locator and opens it; rejects with SpillError
   * (SPILL_INVALID_LOCATOR / SPILL_NOT_FOUND / SPILL_EXPIRED …). It is only called with a
   * string; the engine refuses anything else with `SPILL_INVALID_LOCATOR` first.
   */
  open(locator: SpillLocator, options: { readonly signal?: AbortSignal }): Promise<SpillByteSource>;
  /**
   * How many artifacts keep a line index (the LRU bound; 0 disables it). Only sources
   * with a `cacheKey` are indexed. Default {@link DEFAULT_LINE_INDEX_ARTIFACTS}.
   */
  readonly lineIndexArtifacts?: number;
  /** Lines between two checkpoints of a line index. Default {@link DEFAULT_LINE_INDEX_STRIDE}. */
  readonly lineIndexStride?: number;
  /**
   * Worker threads for native regular expressions (Node only), or `false` for none: then
   * every regular expression runs on the linear-time engine in-process, in time slices.
   */
  readonly workers?: RegexWorkerOptions | false;
  /** A monotonic clock in milliseconds (tests). Default `performance.now`. */
  readonly now?: () => number;
}

/** A {@link SpillReader} that can also end its idle worker threads. */
export interface SpillRetrievalReader extends SpillReader {
  /** The artifact's stored bytes, streamed in chunks of at most 1 MiB (see {@link SpillReader.readBytes}). */
  readBytes(locator: SpillLocator, options?: SpillCallOptions): AsyncIterable<Uint8Array>;
  /** Ends idle regex workers now (they also end by themselves when idle). */
  close(): Promise<void>;
}

function wholeNumber(value: unknown, name: string, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  const problem = wholeNumberProblem(value, { min });
  if (problem !== undefined) throw new TypeError(`createSpillReader: ${name} ${problem}.`);
  return value as number;
}

async function withSource<T>(open: OpenSpillByteSource, locator: unknown, signal: AbortSignal | undefined, what: string, fn: (source: SpillByteSource) => Promise<T>): Promise<T> {
  assertLocatorString(locator);
  throwIfAborted(signal, what);
  const source = checkSource(await open(locator as SpillLocator, signal === undefined ? {} : { signal }));
  try {
    return await fn(source);
  } catch (error) {
    if (isSpillError(error)) throw error;
    throw new SpillError('SPILL_STORAGE_FAILED', `${what} failed while reading the artifact: ${error instanceof Error ? error.message : String(error)}.`, { cause: error });
  } finally {
    await source.close?.().catch(() => undefined);
  }
}

/**
 * Builds the reader of a backend from one function that opens a locator as a byte
 * source. Every backend built on it validates the same way, speaks the same regular
 * expression dialect (RE2) and pages in linear time.
 *
 * @example
 * ```ts
 * import { SpillError } from '@spillway/core';
 * import { createSpillReader } from '@spillway/retrieval';
 *
 * const store = new Map<string, Uint8Array>([['mem://a', new TextEncoder().encode('one\ntwo\n')]]);
 * const reader = createSpillReader({
 *   async open(locator) {
 *     const bytes = store.get(locator);
 *     if (bytes === undefined) throw new SpillError('SPILL_NOT_FOUND', `Nothing at ${locator}.`);
 *     return { size: bytes.length, read: async (position, length) => bytes.subarray(position, position + length) };
 *   },
 * });
 * ```
 *
 * @throws TypeError when an option is malformed.
 */
export function createSpillReader(options: CreateSpillReaderOptions): SpillRetrievalReader {
  if (typeof options !== 'object' || (options as unknown) === null || typeof options.open !== 'function') {
    throw new TypeError('createSpillReader: options.open must be a function that opens a locator as a byte source.');
  }
  const open = options.open.bind(options);
  const cache = new LineIndexCache(
    wholeNumber(options.lineIndexArtifacts, 'lineIndexArtifacts', 0, DEFAULT_LINE_INDEX_ARTIFACTS),
    wholeNumber(options.lineIndexStride, 'lineIndexStride', 1, DEFAULT_LINE_INDEX_STRIDE),
  );
  const pool = new RegexWorkerPool(options.workers);
  const now = options.now ?? (() => performance.now());

  return {
    async read(locator: SpillLocator, readOptions?: ReadOptions): Promise<ReadResult> {
      await Promise.resolve();
      const settings = readSettings(readOptions);
      return withSource(open, locator, settings.signal, 'The read', (source) => readLines(source, cache.get(source.cacheKey), settings));
    },
    async grep(locator: SpillLocator, pattern: string, grepOptions?: GrepOptions): Promise<GrepResult> {
      await Promise.resolve();
      const settings = grepSettings(grepOptions);
      assertPatternString(pattern);
      // The artifact is opened now, while the regex engine loads (on a process's first grep):
      // a grep reads what existed when it was called. A bad pattern is still the error told
      // first, and the artifact is then closed unread.
      let compiled: CompiledPattern | undefined;
      let compiling!: (done: boolean) => void;
      const compiledOrNot = new Promise<boolean>((resolve) => (compiling = resolve));
      const run = withSource(open, locator, settings.signal, 'The grep', async (source) => {
        if (!(await compiledOrNot) || compiled === undefined) return undefined;
        return grepSource(source, cache.get(source.cacheKey), { pattern, compiled, settings, pool, now });
      });
      run.catch(() => undefined); // told below, or superseded by the pattern's error
      try {
        compiled = compilePattern(await loadRe2(), pattern, settings.literal, settings.ignoreCase);
      } catch (error) {
        compiling(false);
        throw error;
      }
      compiling(true);
      return (await run) as GrepResult;
    },
    readBytes: (locator: SpillLocator, callOptions?: SpillCallOptions): AsyncIterable<Uint8Array> => readSourceBytes(open, locator, callOptions),
    close: () => pool.close(),
  };
}
