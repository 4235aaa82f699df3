/**
 * Reading chunks back through the backend's reader: the index keeps no text. A chunk is
 * read once per search, with a few lines around it so that a snippet can grow past its
 * edges; an artifact deleted since the listing answers `null` and leaves the index.
 */
import { spillLocator } from '@spillway/core';
import type { SpillReader } from '@spillway/core';
import { isGone } from './catalog-sync.js';
import type { Candidate, ChunkLines } from './ranking.js';
import { splitLines } from './text.js';

/** Lines read around a chunk, so that a snippet can grow past the chunk's edges. */
const CONTEXT_LINES = 6;
/** Bytes one read-back takes at most. */
const READ_BACK_BYTES = 64 * 1024;

/** Where read-backs go and what happens when an artifact is gone. */
export interface ReadBackOptions {
  readonly reader: SpillReader;
  /** The locator of an artifact still in scope. */
  locatorOf(artifact: number): string | undefined;
  /** Called once an artifact's read says it no longer exists. */
  onGone(artifact: number): void;
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
    const first = Math.max(1, c.startLine - CONTEXT_LINES);
    try {
      const page = await reader.read(spillLocator(locator), {
        offset: first,
        limit: c.endLine - first + 1 + CONTEXT_LINES,
        maxBytes: READ_BACK_BYTES,
        ...(signal ? { signal } : {}),
      });
      return { first, lines: splitLines(page.text), endLine: page.endLine, truncated: page.truncated };
    } catch (error) {
      if (!isGone(error)) throw error;
      options.onGone(c.artifact);
      return null;
    }
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
