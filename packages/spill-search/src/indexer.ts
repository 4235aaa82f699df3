/**
 * Indexing one artifact: its text streams through the backend's reader a page at a time
 * and is cut into chunks, windows of consecutive lines, so that memory stays bounded by
 * the page whatever the artifact's size, and every chunk names the lines it covers.
 */
import type { SpillEntry, SpillReader } from '@spillway/core';
import type { Database, Statement } from './database.js';
import { isSectionLine, sectionText } from './sections.js';
import { splitLines } from './text.js';
import { camelPartsOf } from './tokens.js';

/** Most lines in one chunk. */
export const CHUNK_MAX_LINES = 24;
/** Most UTF-16 code units in one chunk (a longer single line makes a chunk of its own). */
export const CHUNK_MAX_CHARS = 2048;
/**
 * The most of one line that is read to index it, and to show a snippet from it, in UTF-8
 * bytes: a line longer than a page (minified code, a one-line JSON report) is read again on
 * its own, up to this much. Past it, the rest of the line cannot be found.
 */
export const LONG_LINE_READ_BYTES = 16 * 1024 * 1024;
/**
 * Where a long line is cut into chunks: the last character that is not a word's within the
 * final part of a chunk's room, so that no word is split between two chunks.
 */
const SEGMENT_BREAK = /[^\p{L}\p{N}_]/u;
/**
 * Lines read back above and below a chunk, so that a snippet can grow past the chunk's
 * edges. The index records where the first of those lines starts (a chunk's `context_byte`).
 */
export const CONTEXT_LINES = 6;
/** Lines per read while indexing. */
const PAGE_LINES = 4000;
/** Bytes per read while indexing: the bound on an index run's memory for text. */
export const PAGE_BYTES = 256 * 1024;
/**
 * Text written per transaction while indexing, in UTF-16 code units. FTS5 writes a segment
 * per commit (or per full pending buffer, see `database.ts`) and merges segments as they
 * pile up, so fewer, larger commits merge less; a commit still comes every few megabytes,
 * so that another process waiting to write the index is not held up for long.
 */
const COMMIT_TEXT_CHARS = 4 * 1024 * 1024;

/** Prepared statements for writing chunks. */
export interface IndexStatements {
  readonly insertArtifact: Statement;
  readonly ownsArtifact: Statement;
  readonly touchArtifact: Statement;
  readonly insertSection: Statement;
  readonly insertChunk: Statement;
  readonly dropContextBytes: Statement;
  readonly insertFts: Statement;
  readonly markComplete: Statement;
  readonly deleteFts: Statement;
  readonly deleteChunks: Statement;
  readonly deleteSections: Statement;
  readonly deleteArtifact: Statement;
}

/** Prepares the statements {@link indexArtifact} and {@link removeArtifact} use. */
export function prepareIndexStatements(db: Database): IndexStatements {
  return {
    // Another searcher may have written the row since this one looked: then it is theirs.
    insertArtifact: db.prepare('INSERT INTO artifacts (locator, session, bytes, created, complete, owner, touched, chunks) VALUES (?, ?, ?, ?, 0, ?, ?, 0) ON CONFLICT (locator) DO NOTHING'),
    ownsArtifact: db.prepare('SELECT 1 AS x FROM artifacts WHERE id = ? AND owner = ? AND complete = 0'),
    // With the chunks written since the transaction began, so that the row's count is its chunk rows'.
    touchArtifact: db.prepare('UPDATE artifacts SET touched = ?, chunks = chunks + ? WHERE id = ?'),
    insertSection: db.prepare('INSERT INTO sections (artifact, line, text) VALUES (?, ?, ?)'),
    insertChunk: db.prepare('INSERT INTO chunks (artifact, start_line, end_line, section, context_byte) VALUES (?, ?, ?, ?, ?)'),
    dropContextBytes: db.prepare('UPDATE chunks SET context_byte = NULL WHERE artifact = ?'),
    insertFts: db.prepare('INSERT INTO fts (rowid, body, head) VALUES (?, ?, ?)'),
    markComplete: db.prepare('UPDATE artifacts SET complete = 1, touched = ? WHERE id = ? AND owner = ? AND complete = 0'),
    deleteFts: db.prepare('DELETE FROM fts WHERE rowid IN (SELECT id FROM chunks WHERE artifact = ?)'),
    deleteChunks: db.prepare('DELETE FROM chunks WHERE artifact = ?'),
    deleteSections: db.prepare('DELETE FROM sections WHERE artifact = ?'),
    deleteArtifact: db.prepare('DELETE FROM artifacts WHERE id = ?'),
  };
}

/** Removes an artifact and everything indexed from it. */
export function removeArtifact(db: Database, st: IndexStatements, id: number): void {
  db.transaction(() => {
    st.deleteFts.run(id);
    st.deleteChunks.run(id);
    st.deleteSections.run(id);
    st.deleteArtifact.run(id);
  })();
}

interface Section {
  readonly id: number;
  readonly line: number;
  readonly text: string;
}

interface PendingChunk {
  start: number;
  lines: string[];
  chars: number;
  section: Section | undefined;
  /** Where line `start - CONTEXT_LINES` (at least line 1) starts, in bytes. */
  contextByte: number;
}

/** What indexing one artifact did. */
export interface IndexedArtifact {
  /** The artifact's row. */
  readonly id: number;
  /** Lines indexed. */
  readonly lines: number;
  /** Chunks written. */
  readonly chunks: number;
}

/**
 * Thrown by {@link indexArtifact} when the artifact's row is not its own: another process
 * wrote it first, took it over, or dropped it. What it wrote is its own to remove.
 */
export class IndexLost extends Error {
  constructor() {
    super('another searcher took this artifact over while it was being indexed');
    this.name = 'IndexLost';
  }
}

/**
 * Indexes one artifact from its first line to its last, committing every few megabytes
 * of text. Rejects with the reader's error (a `SPILL_NOT_FOUND` when it was deleted meanwhile); the caller
 * removes the half-written rows then.
 */
export async function indexArtifact(
  db: Database,
  st: IndexStatements,
  reader: SpillReader,
  entry: SpillEntry,
  owner: string,
  onRow: (id: number) => void,
  signal?: AbortSignal,
  onPage?: (chars: number) => void,
): Promise<IndexedArtifact> {
  let id = 0;
  let section: Section | undefined;
  let chunk: PendingChunk | undefined;
  let chunks = 0;
  let lines = 0;
  // Where each of the last few lines starts, in bytes, by line number modulo the ring's
  // size: counted from the text as read. Decoding never makes text shorter in UTF-8 (a
  // replacement character stands for 1 to 3 bytes and is 3), so when the count ends at the
  // artifact's size every position on the way was exact; otherwise, and when a part of a
  // line was skipped, the positions are dropped at the end and read-backs count lines.
  const starts = new Array<number>(CONTEXT_LINES + 2).fill(0);
  let position = 0;
  let exact = true;
  const contextByteOf = (lineNo: number): number => starts[Math.max(1, lineNo - CONTEXT_LINES) % starts.length] ?? 0;

  const flush = (): void => {
    if (chunk === undefined || chunk.lines.length === 0) return;
    const end = chunk.start + chunk.lines.length - 1;
    const text = chunk.lines.join('\n');
    const chunkId = Number(st.insertChunk.run(id, chunk.start, end, chunk.section?.id ?? null, chunk.contextByte).lastInsertRowid);
    // A chunk also answers for the parts of its camelCase identifiers, and for its section
    // line (the package, file or commit it is in) in a column of its own, which BM25 weighs
    // more: a short line that names the query's words says what the whole chunk is about.
    let body = text;
    const parts = camelPartsOf(text);
    if (parts.length > 0) body += `\n${parts.join(' ')}`;
    let head = '';
    if (chunk.section !== undefined) {
      head = chunk.section.text;
      const headParts = camelPartsOf(head);
      if (headParts.length > 0) head += `\n${headParts.join(' ')}`;
    }
    st.insertFts.run(chunkId, body, head);
    chunks += 1;
    chunk = undefined;
  };

  const add = (lineNo: number, line: string): void => {
    if (line.length > CHUNK_MAX_CHARS) {
      addLongLine(lineNo, line);
      return;
    }
    if (isSectionLine(line)) {
      const text = sectionText(line);
      section = { id: Number(st.insertSection.run(id, lineNo, text).lastInsertRowid), line: lineNo, text };
      // A section line opens a new chunk, so that a chunk rarely straddles two sections.
      flush();
    }
    if (chunk !== undefined && (chunk.lines.length >= CHUNK_MAX_LINES || chunk.chars + line.length > CHUNK_MAX_CHARS)) flush();
    chunk ??= { start: lineNo, lines: [], chars: 0, section, contextByte: contextByteOf(lineNo) };
    chunk.lines.push(line);
    chunk.chars += line.length + 1;
  };

  /** A line longer than a chunk: chunks of its own, each a segment of it, cut between words. */
  const addLongLine = (lineNo: number, line: string): void => {
    flush();
    for (const segment of segmentsOf(line)) {
      chunk = { start: lineNo, lines: [segment], chars: segment.length, section, contextByte: contextByteOf(lineNo) };
      flush();
    }
  };

  // Pages are written in transactions of about COMMIT_TEXT_CHARS of text.
  let open = false as boolean; // set by begin() and commit(), which flow analysis does not follow
  let pending = 0;
  let chunksBefore = 0;
  const begin = (): void => {
    if (open) return;
    db.exec('BEGIN IMMEDIATE');
    open = true;
    chunksBefore = chunks;
    if (id === 0) {
      // The row is written with the first chunks, owned by this searcher: another process
      // that sees it unfinished and recently touched leaves it alone.
      const inserted = st.insertArtifact.run(entry.locator, entry.session, entry.bytes, entry.createdAt.getTime(), owner, Date.now());
      if (inserted.changes === 0) throw new IndexLost();
      id = Number(inserted.lastInsertRowid);
      onRow(id);
    } else if (st.ownsArtifact.get(id, owner) === undefined) {
      // Another process took the row over (this one looked stalled) or dropped it.
      throw new IndexLost();
    }
  };
  const commit = (): void => {
    if (!open) return;
    st.touchArtifact.run(Date.now(), chunks - chunksBefore, id);
    db.exec('COMMIT');
    open = false;
    pending = 0;
  };
  const indexPage = (first: number, pageLines: readonly string[]): void => {
    begin();
    let chars = 0;
    for (let i = 0; i < pageLines.length; i += 1) {
      const line = pageLines[i] ?? '';
      starts[(first + i) % starts.length] = position;
      position += Buffer.byteLength(line, 'utf8') + 1;
      add(first + i, line);
      chars += line.length + 1;
    }
    lines += pageLines.length;
    pending += chars;
    if (pending >= COMMIT_TEXT_CHARS) commit();
    onPage?.(chars);
  };
  let total = 0;
  try {
    let offset = 1;
    let long = false;
    for (;;) {
      const page = await reader.read(entry.locator, {
        offset,
        limit: long ? 1 : PAGE_LINES,
        maxBytes: long ? LONG_LINE_READ_BYTES : PAGE_BYTES,
        ...(signal ? { signal } : {}),
      });
      total = page.totalBytes;
      if (page.endLine < page.startLine) {
        if (!page.hasMore) break;
        // Nothing fits (cannot happen with a page this size, but never loop): skip the line.
        exact = false;
        offset += 1;
        long = false;
        continue;
      }
      const pageLines = splitLines(page.text);
      if (page.truncated && !long) {
        // The page's last line is cut: index the whole lines before it, then read that line
        // again on its own, up to LONG_LINE_READ_BYTES.
        long = true;
        if (page.endLine === page.startLine) continue;
        indexPage(page.startLine, pageLines.slice(0, page.endLine - page.startLine));
        offset = page.endLine;
        continue;
      }
      if (page.truncated) exact = false;
      long = false;
      indexPage(page.startLine, pageLines);
      if (!page.hasMore) {
        // A final line without a terminator was counted with one.
        if (!page.text.endsWith('\n')) position -= 1;
        break;
      }
      // After a line read on its own and still cut, its rest is skipped.
      offset = page.nextOffset ?? page.endLine + 1;
    }
    begin();
    flush();
    if (!exact || position !== total) st.dropContextBytes.run(id);
    if (st.markComplete.run(Date.now(), id, owner).changes !== 1) throw new IndexLost();
    commit();
  } catch (error) {
    // SQLite may have rolled back already (a full disk, say): the first error is the one to tell.
    if (open) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // nothing was open any more
      }
    }
    throw error;
  }
  return { id, lines, chunks };
}

/**
 * Cuts a long line into segments of at most {@link CHUNK_MAX_CHARS} code units, each ending
 * after a character that is not a word's (looked for in the last eighth of the room), or at
 * the room's end when there is none; never between the halves of a surrogate pair.
 */
export function segmentsOf(line: string): string[] {
  const out: string[] = [];
  let from = 0;
  while (from < line.length) {
    let to = Math.min(line.length, from + CHUNK_MAX_CHARS);
    if (to < line.length) {
      const floor = to - Math.floor(CHUNK_MAX_CHARS / 8);
      let cut = -1;
      for (let i = to - 1; i >= floor; i -= 1) {
        if (SEGMENT_BREAK.test(line[i] ?? '')) {
          cut = i + 1;
          break;
        }
      }
      if (cut > from) to = cut;
      else if (/[\uD800-\uDBFF]/.test(line[to - 1] ?? '')) to -= 1;
    }
    out.push(line.slice(from, to));
    from = to;
  }
  return out;
}
