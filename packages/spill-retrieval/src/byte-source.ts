import { SpillError, throwIfAborted } from '@spillway/core';
import type { SpillLocator } from '@spillway/core';

/**
 * The one thing a backend provides to get `read` and `grep`: one stored artifact as a
 * sequence of bytes with random access. A file (pread), a memory buffer, an object-store
 * object (range GET) or a database blob can each be one.
 */
export interface SpillByteSource {
  /** The artifact's exact size in bytes. */
  readonly size: number;
  /** Reads `length` bytes at byte `position` (fewer only at the end of the artifact). */
  read(position: number, length: number, options?: { readonly signal?: AbortSignal }): Promise<Uint8Array>;
  /**
   * A key that changes whenever the content could differ (e.g. locator + inode/mtime, or
   * ETag); used by the line-index cache. Absent: no caching.
   */
  readonly cacheKey?: string;
  /** Preferred bytes per read (e.g. 64 KiB for files, 8 MiB for object stores). */
  readonly preferredReadBytes?: number;
  /** Releases resources (a file descriptor). Called once when the engine is done with the source. */
  close?(): Promise<void>;
}

/** Opens a locator as a byte source; see {@link CreateSpillReaderOptions.open}. */
export type OpenSpillByteSource = (locator: SpillLocator, options: { readonly signal?: AbortSignal }) => Promise<SpillByteSource>;

/** Default {@link SpillByteSource.preferredReadBytes}. */
export const DEFAULT_PREFERRED_READ_BYTES = 64 * 1024;

/**
 * Reads exactly `length` bytes at `position`, or fewer only when the artifact ends,
 * looping over short answers and refusing answers longer than asked.
 */
export async function readExactly(
  source: SpillByteSource,
  position: number,
  length: number,
  signal: AbortSignal | undefined,
): Promise<Uint8Array> {
  const first = await source.read(position, length, signal === undefined ? undefined : { signal });
  if (first.length === length) return first;
  if (first.length > length) return first.subarray(0, length);
  if (first.length === 0) return first;
  const out = new Uint8Array(length);
  out.set(first, 0);
  let done = first.length;
  while (done < length) {
    throwIfAborted(signal, 'The read');
    const more = await source.read(position + done, length - done, signal === undefined ? undefined : { signal });
    if (more.length === 0) break;
    const n = Math.min(more.length, length - done);
    out.set(more.subarray(0, n), done);
    done += n;
  }
  return out.subarray(0, done);
}

/** Checks what `open` resolved with, so a broken backend fails clearly. */
export function checkSource(source: unknown): SpillByteSource {
  const s = source as Partial<SpillByteSource> | null;
  if (typeof s !== 'object' || s === null || typeof s.read !== 'function' || typeof s.size !== 'number' || !Number.isSafeInteger(s.size) || s.size < 0) {
    throw new SpillError('SPILL_STORAGE_FAILED', 'The backend opened the artifact but gave no usable byte source (size and read); this is a bug in the backend.');
  }
  return s as SpillByteSource;
}
