/**
 * The searcher: an FTS5 index kept as a cache of what a backend stores, brought up to
 * date from the backend's catalog before each search (`catalog-sync.ts`), ranked by how
 * much of the query a chunk covers and then by BM25 (`ranking.ts`), answered with snippets
 * read back through the reader (`read-back.ts`, `answer.ts`).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { isSpillError, SpillError, throwIfAborted, wholeNumberProblem } from '@spillway/core';
import type { SessionId, SpillCatalog, SpillReader, SpillSearcher } from '@spillway/core';
import { assembleAnswer } from './answer.js';
import { syncCatalog } from './catalog-sync.js';
import { closeDatabase, isBusy, openDatabase, type Database } from './database.js';
import { preparePrivateIndexFile } from './index-file.js';
import { removeArtifact } from './indexer.js';
import { parseQuery } from './query.js';
import { rankCandidates, type SectionLine } from './ranking.js';
import { createChunkReader } from './read-back.js';
import { checkRequest, invalid, MIN_SEARCH_MAX_BYTES } from './search-request.js';
import { prepareSearchStatements, type SearchStatements } from './search-statements.js';
import { createRankingSource, type SourceMemo } from './search-source.js';

export { MIN_SEARCH_MAX_BYTES } from './search-request.js';

/** Default {@link SpillSearchOptions.maxSnippetBytes}. */
export const DEFAULT_MAX_SNIPPET_BYTES = 400;

/** Where an index lives and what it reads from. */
export interface SpillSearchOptions {
  /** The backend's reader: the index reads every artifact through it. */
  readonly reader: SpillReader;
  /** The backend's catalog: what exists, per session. */
  readonly catalog: SpillCatalog;
  /**
   * `':memory:'` (the default: the index lives as long as the process) or the path of a
   * database file, created 0600 in a 0700 directory; an unsafe path is refused.
   */
  readonly location?: string;
  /** Byte cap on one snippet. Default {@link DEFAULT_MAX_SNIPPET_BYTES}. */
  readonly maxSnippetBytes?: number;
}

/** What bringing the index up to date did. */
export interface SpillSearchRefresh {
  /** Artifacts indexed (new or changed). */
  readonly indexed: number;
  /** Artifacts dropped because the catalog no longer lists them. */
  readonly removed: number;
  /** Lines indexed. */
  readonly lines: number;
  /**
   * True when another process held the index's write lock: what needed it (indexing,
   * dropping, compacting) was left for the next call, and nothing unindexed was answered.
   */
  readonly busy: boolean;
}

/** How far a {@link SpillSearch.refresh} has got with what it must index. */
export interface SpillSearchProgress {
  /** Artifacts the listing showed that are not indexed yet (new or changed). */
  readonly artifacts: number;
  /** Of those, indexed so far. */
  readonly artifactsDone: number;
  /** Their stored size, in bytes. */
  readonly bytes: number;
  /** Of that, about how much is indexed so far (UTF-16 code units read, counted as bytes). */
  readonly bytesDone: number;
}

/** Options of {@link SpillSearch.refresh}. */
export interface SpillSearchRefreshOptions {
  /** The session to bring up to date; every session when omitted. */
  readonly sessionId?: SessionId;
  readonly signal?: AbortSignal;
  /**
   * Called once the listing is known (when something must be indexed) and after each page
   * indexed: for a progress line. An error it throws is ignored.
   */
  readonly onProgress?: (progress: SpillSearchProgress) => void;
}

/** What {@link SpillSearch.gc} did. */
export interface SpillSearchGc extends SpillSearchRefresh {
  /** The database file's size after compaction, in bytes (0 in memory). */
  readonly bytesAfter: number;
}

/** A searcher over one backend, with the index's upkeep. */
export interface SpillSearch extends SpillSearcher {
  /** Where the index lives: `':memory:'` or the database file. */
  readonly location: string;
  /**
   * Brings the index up to date for one session (or every session): indexes what is new
   * and drops what the catalog no longer lists. A search does this itself; call it after
   * a save, without awaiting it on the save's path, to have the index warm.
   */
  refresh(options?: SpillSearchRefreshOptions): Promise<SpillSearchRefresh>;
  /** Drops every artifact the catalog no longer lists, in every session, and compacts the index. */
  gc(options?: { readonly signal?: AbortSignal }): Promise<SpillSearchGc>;
  /**
   * Closes the database, with its write-ahead log folded into the file: once this resolves,
   * nothing writes the file again. Searching afterwards rejects.
   */
  close(): Promise<void>;
}

/** The operations of the searchers of one database file, in turn. */
interface OperationQueue {
  tail: Promise<unknown>;
}

const fileQueues = new Map<string, OperationQueue>();

/**
 * The queue for an index location: one per database file in this process, shared by every
 * searcher of that file. Indexing holds a write transaction while it awaits the reader, and
 * another connection of this process that wrote meanwhile would wait for the lock inside a
 * synchronous call, so that the awaited read could never finish; in turn, it waits its turn.
 */
function queueFor(location: string): OperationQueue {
  if (location === ':memory:') return { tail: Promise.resolve() };
  const key = path.resolve(location);
  let queue = fileQueues.get(key);
  if (queue === undefined) {
    queue = { tail: Promise.resolve() };
    fileQueues.set(key, queue);
  }
  return queue;
}

/**
 * Makes a searcher over a backend's reader and catalog. Nothing is opened or indexed
 * until the first call.
 */
export function createSpillSearch(options: SpillSearchOptions): SpillSearch {
  const { reader, catalog } = options;
  if (typeof (reader as Partial<SpillReader> | undefined)?.read !== 'function' || typeof (catalog as Partial<SpillCatalog> | undefined)?.list !== 'function') {
    throw invalid('createSpillSearch needs a backend reader and catalog: { reader: backend.reader, catalog: backend.catalog }.');
  }
  const location = options.location ?? ':memory:';
  const maxSnippetBytes = options.maxSnippetBytes ?? DEFAULT_MAX_SNIPPET_BYTES;
  const snippetProblem = wholeNumberProblem(maxSnippetBytes, { min: MIN_SEARCH_MAX_BYTES, unit: 'bytes' });
  if (snippetProblem !== undefined) throw invalid(`maxSnippetBytes ${snippetProblem}.`);

  let opened: Promise<{ db: Database; st: SearchStatements }> | undefined;
  let closed = false;
  const memo: SourceMemo = {};
  // Who this searcher is in the rows it indexes, so that another process leaves them alone;
  // made when first asked, as a search of an index that is up to date never asks (and a
  // search process then need not load node:crypto).
  let ownerId: string | undefined;
  const owner = (): string => (ownerId ??= randomUUID());
  // One index operation at a time: the statements are synchronous, but indexing awaits the
  // reader between pages, and two refreshes must not index the same artifact twice.
  const queue = queueFor(location);
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const guarded = () => fn().catch((error: unknown) => {
      throw asStorageError(location, error);
    });
    const run = queue.tail.then(guarded, guarded);
    queue.tail = run.catch(() => undefined);
    return run;
  };

  const open = (): Promise<{ db: Database; st: SearchStatements }> => {
    if (closed) return Promise.reject(new SpillError('SPILL_STORAGE_FAILED', 'This search index was closed.'));
    opened ??= (async () => {
      if (location !== ':memory:') preparePrivateIndexFile(location);
      const db = await openDatabase(location);
      return { db, st: prepareSearchStatements(db) };
    })();
    opened.catch(() => {
      opened = undefined;
    });
    return opened;
  };

  const sync = async (sessionId: SessionId | undefined, signal: AbortSignal | undefined, index = true, onProgress?: SpillSearchRefreshOptions['onProgress']) => {
    const { db, st } = await open();
    const result = await syncCatalog({ db, st, catalog, reader, sessionId, signal, owner, index, ...(onProgress === undefined ? {} : { onProgress }) });
    return { db, st, ...result };
  };

  const refresh: SpillSearch['refresh'] = (opts = {}) =>
    serial(async () => {
      const { indexed, removed, lines, busy } = await sync(opts.sessionId, opts.signal, true, opts.onProgress);
      return { indexed, removed, lines, busy };
    });

  const gc: SpillSearch['gc'] = (opts = {}) =>
    serial(async () => {
      // Drops only: indexing what is new is a search's work, not a sweep's.
      const { db, st, indexed, removed, lines, busy } = await sync(undefined, opts.signal, false);
      const size = (): number => (location === ':memory:' ? 0 : (db.prepare('SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()').get() as { n: number }).n);
      if (busy) return { indexed, removed, lines, bytesAfter: size(), busy };
      try {
        const orphans = st.sweepOrphans();
        const free = (db.prepare('SELECT freelist_count AS n FROM pragma_freelist_count()').get() as { n: number }).n;
        if (removed + orphans > 0 || free > 0) {
          throwIfAborted(opts.signal);
          db.exec("INSERT INTO fts (fts) VALUES ('optimize');");
          if (location !== ':memory:') {
            throwIfAborted(opts.signal);
            db.exec('VACUUM; PRAGMA wal_checkpoint(TRUNCATE);');
          }
        }
      } catch (error) {
        // Another process is writing: compaction waits for the next gc.
        if (!isBusy(error)) throw error;
        return { indexed, removed, lines, bytesAfter: size(), busy: true };
      }
      return { indexed, removed, lines, bytesAfter: size(), busy: false };
    });

  const search: SpillSearch['search'] = (request) =>
    serial(async () => {
      const { maxResults, maxBytes } = checkRequest(request);
      const signal = request.signal;
      throwIfAborted(signal);
      const { terms } = parseQuery(request.query);
      if (terms.length === 0) return { hits: [], more: false };
      const { db, st, inScope, sizes } = await sync(request.sessionId, signal);
      if (inScope.size === 0) return { hits: [], more: false };
      // The chunks' text, read back through the reader: the index keeps none. An artifact
      // deleted since the listing is never answered, and leaves the index; one of another
      // size than indexed is not answered either, and is listed and indexed again next time.
      const lines = createChunkReader({
        reader,
        signal,
        locatorOf: (artifact) => inScope.get(artifact),
        onGone: (artifact) => {
          inScope.delete(artifact);
          try {
            removeArtifact(db, st, artifact);
          } catch (error) {
            // Out of scope already; the next sync drops it when the lock is free.
            if (!isBusy(error)) throw error;
          }
        },
        sizeOf: (artifact) => sizes.get(artifact),
        onChanged: (artifact) => {
          inScope.delete(artifact);
          try {
            // The next search lists its session again, and indexes it anew.
            st.dropListingTokens.run();
          } catch (error) {
            if (!isBusy(error)) throw error;
          }
        },
      });
      const source = createRankingSource({ db, st, inScope, memo, lines });
      const ranking = await rankCandidates(terms, source, signal);
      if (ranking === undefined) return { hits: [], more: false };
      return assembleAnswer(ranking.order, {
        terms,
        weights: ranking.weights,
        maxResults,
        maxBytes,
        maxSnippetBytes,
        signal,
        lines,
        locatorOf: (artifact) => inScope.get(artifact),
        section: (id) => source.section(id),
        sectionBefore: (artifact, line) => st.sectionBefore.get(artifact, line) as SectionLine | undefined,
      });
    });

  const close: SpillSearch['close'] = () =>
    serial(async () => {
      closed = true;
      const current = opened;
      opened = undefined;
      if (current !== undefined) {
        const { db } = await current.catch(() => ({ db: undefined }));
        if (db !== undefined) closeDatabase(db);
      }
    });

  return { location, search, refresh, gc, close };
}

/**
 * Every failure of the index answers a stable code: the backend's own errors as they are,
 * SQLite's as `SPILL_STORAGE_FAILED`, with what to do (the index is a cache of the store).
 */
function asStorageError(location: string, error: unknown): unknown {
  if (isSpillError(error) || (error instanceof Error && error.name === 'AbortError')) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (isBusy(error)) {
    return new SpillError('SPILL_STORAGE_FAILED', `The search index ${location} is locked by another process that is writing it (${message}). Try again in a moment.`, { cause: error });
  }
  return new SpillError(
    'SPILL_STORAGE_FAILED',
    `The search index ${location} failed: ${message}. It is only a cache of what the store holds: remove it (and its -wal and -shm files) and it is rebuilt on the next search.`,
    { cause: error },
  );
}
