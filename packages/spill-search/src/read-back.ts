/**
 * Reading chunks back through the backend's reader: the index keeps no text. A chunk is
 * read once per search, with a few lines around it so that a snippet can grow past its
 * edges; an artifact deleted since the listing answers `null` and leaves the index.
 */
import { spillLocator } from '@spillway/core';
import type { SpillReader } from '@spillway/core';
import { isGone } from './catalog-sync.js';
import { CONTEXT_LINES, LONG_LINE_READ_BYTES } from './indexer.js';
import type { Candidate, ChunkLines } from './ranking.js';
import { splitLines } from './text.js';
/** Bytes one read-back takes at most. */
const READ_BACK_BYTES = 64 * 1024;
/**
 * Bytes asked for first: enough for a chunk of ordinary lines. When that answer holds every
 * line asked for (or the artifact's end), whole, it is what the larger read would answer;
 * otherwise the chunk is read again with {@link READ_BACK_BYTES}. A search then moves and
 * allocates a few KiB per chunk instead of 64.
 */
const FIRST_READ_BYTES = 8 * 1024;

/** Where read-backs go and what happens when an artifact is gone. */
export interface ReadBackOptions {
  readonly reader: SpillReader;
  /** The locator of an artifact still in scope. */
  locatorOf(artifact: number): string | undefined;
  /** Called once an artifact's read says it no longer exists. */
  onGone(artifact: number): void;
  /** The size an artifact in scope was indexed at. */
  sizeOf(artifact: number): number | undefined;
  /**
   * Called once a read finds an artifact of another size than it was indexed at: rewritten
   * in place since (artifacts never are), so its chunks are not answered from this index.
   */
  onChanged(artifact: number): void;
  readonly signal: AbortSignal | undefined;
}

/** A reader of chunks for one search, each chunk read at most once. */
export function createChunkReader(options: ReadBackOptions): (c: Candidate) => Promise<ChunkLines | null> {
  const { reader, signal } = options;
  // Promises, so that a chunk asked for twice at once is read once.
  const pages = new Map<number, Promise<ChunkLines | null>>();
  const load = async (c: Candidate): Promise<ChunkLines | null> => {
    const locator = options.locatorOf(c.artifact);
    if (locator === undefined) return null;
    let first = Math.max(1, c.startLine - CONTEXT_LINES);
    // Where `first` starts, as the index recorded it: the reader starts there instead of
    // counting the lines before it, which in a process of its own means reading them all.
    const at = c.contextByte ?? undefined;
    const read = (from: number, maxBytes: number) =>
      reader.read(spillLocator(locator), {
        offset: from,
        limit: c.endLine - from + 1 + CONTEXT_LINES,
        maxBytes,
        ...(at !== undefined && from === Math.max(1, c.startLine - CONTEXT_LINES) ? { offsetByte: at } : {}),
        ...(signal ? { signal } : {}),
      });
    try {
      let page = await read(first, FIRST_READ_BYTES);
      if (page.totalBytes !== options.sizeOf(c.artifact)) {
        options.onChanged(c.artifact);
        return null;
      }
      const whole = !page.truncated && (page.endLine - page.startLine + 1 === c.endLine - first + 1 + CONTEXT_LINES || !page.hasMore);
      if (!whole) page = await read(first, READ_BACK_BYTES);
      // Long lines above the chunk can fill the read before the chunk starts: read from the
      // chunk itself then, without the context above it.
      if (page.endLine < c.startLine && page.hasMore && first < c.startLine) {
        first = c.startLine;
        page = await read(first, READ_BACK_BYTES);
      }
      // A segment of a line longer than the read: that line alone, read as far as it was indexed.
      if (page.truncated && page.endLine === c.startLine && c.endLine === c.startLine) return await longLine(locator, c);
      return { first, lines: splitLines(page.text), endLine: page.endLine, truncated: page.truncated };
    } catch (error) {
      if (!isGone(error)) throw error;
      options.onGone(c.artifact);
      return null;
    }
  };
  // Every segment of one long line shares one read of it.
  const longLines = new Map<string, Promise<ChunkLines>>();
  const longLine = (locator: string, c: Candidate): Promise<ChunkLines> => {
    const key = `${String(c.artifact)}:${String(c.startLine)}`;
    let read = longLines.get(key);
    if (read === undefined) {
      read = reader
        .read(spillLocator(locator), { offset: c.startLine, limit: 1, maxBytes: LONG_LINE_READ_BYTES, ...(signal ? { signal } : {}) })
        .then((page) => ({ first: c.startLine, lines: splitLines(page.text), endLine: page.endLine, truncated: page.truncated }));
      longLines.set(key, read);
    }
    return read;
  };
  return (c) => {
    let page = pages.get(c.chunk);
    if (page === undefined) {
      page = load(c);
      pages.set(c.chunk, page);
    }
    return page;
  };
}
