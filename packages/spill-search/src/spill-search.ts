/**
 * The searcher: an FTS5 index kept as a cache of what a backend stores, brought up to
 * date from the backend's catalog before each search, ranked by how much of the query a
 * chunk covers and then by BM25, answered with snippets read back through the reader.
 */
import {
  DEFAULT_SEARCH_MAX_BYTES,
  DEFAULT_SEARCH_MAX_RESULTS,
  MAX_SEARCH_QUERY_LENGTH,
  MAX_SEARCH_RESULTS,
  SpillError,
  isSpillError,
  spillLocator,
  throwIfAborted,
} from '@spillway/core';
import type {
  SessionId,
  SpillCatalog,
  SpillEntry,
  SpillReader,
  SpillSearchHit,
  SpillSearchRequest,
  SpillSearcher,
} from '@spillway/core';
import { openDatabase, type Database, type Statement } from './database.js';
import { preparePrivateIndexFile } from './index-file.js';
import { indexArtifact, prepareIndexStatements, removeArtifact, type IndexStatements } from './indexer.js';
import { allOf, anyOf, parseQuery, type QueryTerm } from './query.js';
import { growSnippet, lineScore } from './snippet.js';
import { byteLength, splitLines } from './text.js';

/** Default {@link SpillSearchOptions.maxSnippetBytes}. */
export const DEFAULT_MAX_SNIPPET_BYTES = 600;
/** The smallest `maxBytes` a search accepts. */
export const MIN_SEARCH_MAX_BYTES = 64;
/** Lines read around a chunk, so that a snippet can grow past the chunk's edges. */
const CONTEXT_LINES = 6;
/** Candidates taken from BM25 before the coverage ranking. */
const ANY_CANDIDATES = 60;
const ALL_CANDIDATES = 40;
/** How many of the best chunks are ranked again by their lines. */
const RERANK = 8;
/** Weight of the best line's coverage, and of the section line's, in that ranking. */
const LINE_WEIGHT = 0.6;
const SECTION_WEIGHT = 0.25;
/** Chunks counted for a term's document frequency at most. */
const DF_CAP = 1000;
/** Chunks of one artifact ranked as they score; each further one loses {@link ARTIFACT_REPEAT_PENALTY}. */
const PER_ARTIFACT_FIRST_PASS = 2;
const ARTIFACT_REPEAT_PENALTY = 0.08;

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
  refresh(options?: { readonly sessionId?: SessionId; readonly signal?: AbortSignal }): Promise<SpillSearchRefresh>;
  /** Drops every artifact the catalog no longer lists, in every session, and compacts the index. */
  gc(options?: { readonly signal?: AbortSignal }): Promise<SpillSearchGc>;
  /** Closes the database. Searching afterwards rejects. */
  close(): Promise<void>;
}

interface Candidate {
  readonly chunk: number;
  readonly artifact: number;
  readonly startLine: number;
  readonly endLine: number;
  readonly section: number | null;
  readonly bm25: number;
  score: number;
}

interface Statements extends IndexStatements {
  readonly artifactByLocator: Statement;
  readonly artifactsOfSessions: Statement;
  readonly allArtifacts: Statement;
  readonly chunkCount: Statement;
  readonly docCount: Statement;
  readonly holds: Statement;
  readonly section: Statement;
  readonly sectionBefore: Statement;
}

function invalid(message: string): SpillError {
  return new SpillError('SPILL_INVALID_INPUT', message);
}

function checkRequest(request: SpillSearchRequest): { maxResults: number; maxBytes: number } {
  if (typeof (request as unknown) !== 'object' || (request as unknown) === null) throw invalid('search takes an object: { query, sessionId?, maxResults?, maxBytes? }.');
  if (typeof request.query !== 'string') throw invalid('search needs `query`: plain words or "quoted phrases".');
  if (request.query.length > MAX_SEARCH_QUERY_LENGTH) throw invalid(`The query is longer than ${String(MAX_SEARCH_QUERY_LENGTH)} characters; use a few distinctive words.`);
  if (request.sessionId !== undefined && (typeof request.sessionId !== 'string' || request.sessionId === '')) throw invalid('`sessionId` must be a non-empty string.');
  const maxResults = request.maxResults ?? DEFAULT_SEARCH_MAX_RESULTS;
  if (typeof maxResults !== 'number' || !Number.isInteger(maxResults) || maxResults < 1) throw invalid('`maxResults` must be an integer of at least 1.');
  const maxBytes = request.maxBytes ?? DEFAULT_SEARCH_MAX_BYTES;
  if (typeof maxBytes !== 'number' || !Number.isInteger(maxBytes) || maxBytes < MIN_SEARCH_MAX_BYTES) throw invalid(`\`maxBytes\` must be an integer of at least ${String(MIN_SEARCH_MAX_BYTES)}.`);
  return { maxResults: Math.min(maxResults, MAX_SEARCH_RESULTS), maxBytes };
}

function gone(error: unknown): boolean {
  return isSpillError(error) && (error.code === 'SPILL_NOT_FOUND' || error.code === 'SPILL_EXPIRED' || error.code === 'SPILL_INVALID_LOCATOR');
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
  if (!Number.isInteger(maxSnippetBytes) || maxSnippetBytes < MIN_SEARCH_MAX_BYTES) {
    throw invalid(`maxSnippetBytes must be an integer of at least ${String(MIN_SEARCH_MAX_BYTES)}.`);
  }

  let opened: Promise<{ db: Database; st: Statements }> | undefined;
  let closed = false;
  // One index operation at a time: the statements are synchronous, but indexing awaits the
  // reader between pages, and two refreshes must not index the same artifact twice.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const open = (): Promise<{ db: Database; st: Statements }> => {
    if (closed) return Promise.reject(new SpillError('SPILL_STORAGE_FAILED', 'This search index was closed.'));
    opened ??= (async () => {
      if (location !== ':memory:') await preparePrivateIndexFile(location);
      const db = await openDatabase(location);
      const st: Statements = {
        ...prepareIndexStatements(db),
        artifactByLocator: db.prepare('SELECT id, bytes, created, complete FROM artifacts WHERE locator = ?'),
        artifactsOfSessions: db.prepare('SELECT id, locator FROM artifacts WHERE session IN (SELECT value FROM json_each(?))'),
        allArtifacts: db.prepare('SELECT id, locator FROM artifacts'),
        chunkCount: db.prepare('SELECT count(*) AS n FROM chunks'),
        holds: db.prepare('SELECT 1 AS x FROM fts WHERE fts MATCH ? AND rowid = ?'),
        docCount: db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ${String(DF_CAP)})`),
        section: db.prepare('SELECT line, text FROM sections WHERE id = ?'),
        sectionBefore: db.prepare('SELECT line, text FROM sections WHERE artifact = ? AND line <= ? ORDER BY line DESC LIMIT 1'),
      };
      return { db, st };
    })();
    opened.catch(() => {
      opened = undefined;
    });
    return opened;
  };

  /** Indexes what the listing shows and drops what it no longer shows; answers the artifacts in scope. */
  const sync = async (sessionId: SessionId | undefined, signal: AbortSignal | undefined) => {
    const { db, st } = await open();
    const inScope = new Map<number, string>();
    const sessions = new Set<string>();
    let indexed = 0;
    let lines = 0;
    const listing: SpillEntry[] = [];
    for await (const entry of catalog.list({
      ...(sessionId === undefined ? {} : { sessionId }),
      ...(signal ? { signal } : {}),
      onProblem: () => undefined,
    })) {
      listing.push(entry);
    }
    for (const entry of listing) {
      throwIfAborted(signal);
      sessions.add(entry.session);
      const row = st.artifactByLocator.get(entry.locator) as { id: number; bytes: number; created: number; complete: number } | undefined;
      if (row !== undefined && row.complete === 1 && row.bytes === entry.bytes && row.created === entry.createdAt.getTime()) {
        inScope.set(row.id, entry.locator);
        continue;
      }
      if (row !== undefined) removeArtifact(db, st, row.id);
      let written: number | undefined;
      try {
        const result = await indexArtifact(db, st, reader, entry, (id) => (written = id), signal);
        inScope.set(result.id, entry.locator);
        indexed += 1;
        lines += result.lines;
      } catch (error) {
        if (written !== undefined) removeArtifact(db, st, written);
        // Deleted while it was being indexed: it is simply not there any more.
        if (!gone(error)) throw error;
      }
    }
    let removed = 0;
    const known = (sessionId === undefined ? st.allArtifacts.all() : st.artifactsOfSessions.all(JSON.stringify([...sessions]))) as { id: number; locator: string }[];
    for (const row of known) {
      if (!inScope.has(row.id)) {
        removeArtifact(db, st, row.id);
        removed += 1;
      }
    }
    return { db, st, inScope, indexed, removed, lines };
  };

  const refresh: SpillSearch['refresh'] = (opts = {}) =>
    serial(async () => {
      const { indexed, removed, lines } = await sync(opts.sessionId, opts.signal);
      return { indexed, removed, lines };
    });

  const gc: SpillSearch['gc'] = (opts = {}) =>
    serial(async () => {
      const { db, indexed, removed, lines } = await sync(undefined, opts.signal);
      db.exec("INSERT INTO fts (fts) VALUES ('optimize');");
      let bytesAfter = 0;
      if (location !== ':memory:') {
        db.exec('VACUUM; PRAGMA wal_checkpoint(TRUNCATE);');
        const page = db.prepare('SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()').get() as { n: number };
        bytesAfter = page.n;
      }
      return { indexed, removed, lines, bytesAfter };
    });

  const search: SpillSearch['search'] = (request) =>
    serial(async () => {
      const { maxResults, maxBytes } = checkRequest(request);
      const signal = request.signal;
      throwIfAborted(signal);
      const { terms } = parseQuery(request.query);
      if (terms.length === 0) return { hits: [], more: false };
      const { db, st, inScope } = await sync(request.sessionId, signal);
      if (inScope.size === 0) return { hits: [], more: false };
      const scope = JSON.stringify([...inScope.keys()]);

      const select = (expression: string, limit: number): Candidate[] =>
        (db
          .prepare(
            'SELECT c.id AS chunk, c.artifact AS artifact, c.start_line AS startLine, c.end_line AS endLine, c.section AS section, bm25(fts) AS bm25 ' +
              'FROM fts JOIN chunks c ON c.id = fts.rowid ' +
              'WHERE fts MATCH ? AND c.artifact IN (SELECT value FROM json_each(?)) ORDER BY bm25 LIMIT ?',
          )
          .all(expression, scope, limit) as Omit<Candidate, 'score'>[]).map((c) => ({ ...c, score: 0 }));

      // Candidates: the chunks that hold every term (full coverage by definition), then the
      // best by BM25 that hold any term.
      const candidates = new Map<number, Candidate>();
      const full = new Set<number>();
      if (terms.length > 1) {
        for (const c of select(allOf(terms), ALL_CANDIDATES)) {
          candidates.set(c.chunk, c);
          full.add(c.chunk);
        }
      }
      for (const c of select(anyOf(terms), ANY_CANDIDATES)) if (!candidates.has(c.chunk)) candidates.set(c.chunk, c);
      if (candidates.size === 0) return { hits: [], more: false };

      // Coverage: the share of the query's weight (rarer terms weigh more) that a chunk holds.
      // With one term, or for the chunks that hold every term, it is 1 without asking.
      const total = terms.length > 1 ? Math.max(1, (st.chunkCount.get() as { n: number }).n) : 1;
      const weights = terms.length > 1 ? terms.map((t) => idf(st, t, total)) : [1];
      const weightSum = weights.reduce((a, b) => a + b, 0) || 1;
      const covered = new Map<number, number>();
      for (const id of candidates.keys()) {
        if (terms.length === 1 || full.has(id)) {
          covered.set(id, weightSum);
          continue;
        }
        // One seek of each term's doclist by rowid.
        for (let i = 0; i < terms.length; i += 1) {
          const term = terms[i];
          if (term !== undefined && st.holds.get(term.fts, id) !== undefined) covered.set(id, (covered.get(id) ?? 0) + (weights[i] ?? 0));
        }
      }
      let bestBm25 = 0;
      for (const c of candidates.values()) bestBm25 = Math.min(bestBm25, c.bm25);
      for (const c of candidates.values()) {
        const coverage = (covered.get(c.chunk) ?? 0) / weightSum;
        // BM25 (negative in FTS5: lower is better) only orders chunks of equal coverage.
        c.score = coverage + (bestBm25 < 0 ? 0.25 * (c.bm25 / bestBm25) : 0);
      }
      const ranked = diversify([...candidates.values()].sort((a, b) => b.score - a.score || a.chunk - b.chunk));

      // The chunks' text, read back through the reader: the index keeps none. An artifact
      // deleted since the listing is never answered, and leaves the index.
      const pages = new Map<number, { first: number; lines: string[]; endLine: number; truncated: boolean } | null>();
      const readChunk = async (c: Candidate) => {
        if (pages.has(c.chunk)) return pages.get(c.chunk) ?? null;
        const locator = inScope.get(c.artifact);
        let value: { first: number; lines: string[]; endLine: number; truncated: boolean } | null = null;
        if (locator !== undefined) {
          const first = Math.max(1, c.startLine - CONTEXT_LINES);
          try {
            const page = await reader.read(spillLocator(locator), {
              offset: first,
              limit: c.endLine - first + 1 + CONTEXT_LINES,
              maxBytes: 64 * 1024,
              ...(signal ? { signal } : {}),
            });
            value = { first, lines: splitLines(page.text), endLine: page.endLine, truncated: page.truncated };
          } catch (error) {
            if (!gone(error)) throw error;
            removeArtifact(db, st, c.artifact);
            inScope.delete(c.artifact);
          }
        }
        pages.set(c.chunk, value);
        return value;
      };

      // The best few are ranked again by what their lines show: a chunk where the query's
      // words meet on one line, or under a section line that names them, comes first.
      const head = ranked.slice(0, RERANK);
      for (const c of head) {
        throwIfAborted(signal);
        const page = await readChunk(c);
        if (page === null) {
          c.score = -Infinity;
          continue;
        }
        let bestLine = 0;
        for (let n = c.startLine; n <= c.endLine; n += 1) {
          bestLine = Math.max(bestLine, lineScore(page.lines[n - page.first] ?? '', terms, weights));
        }
        const section = c.section === null ? undefined : (st.section.get(c.section) as { line: number; text: string } | undefined);
        const sectionScore = section === undefined ? 0 : lineScore(section.text, terms, weights);
        c.score += (LINE_WEIGHT * bestLine + SECTION_WEIGHT * sectionScore) / weightSum;
      }
      head.sort((a, b) => b.score - a.score || a.chunk - b.chunk);
      const order = [...head.filter((c) => c.score > -Infinity), ...ranked.slice(RERANK)];

      const hits: SpillSearchHit[] = [];
      let budget = maxBytes;
      let more = false;
      const taken = new Map<number, { from: number; to: number }[]>();
      for (const c of order) {
        if (hits.length >= maxResults || budget < MIN_SEARCH_MAX_BYTES / 2) {
          more = true;
          break;
        }
        throwIfAborted(signal);
        const spans = taken.get(c.artifact) ?? [];
        if (spans.some((sp) => c.startLine <= sp.to && c.endLine >= sp.from)) continue;
        const page = await readChunk(c);
        const locator = inScope.get(c.artifact);
        if (page === null || locator === undefined) continue;
        const section0 = c.section === null ? undefined : (st.section.get(c.section) as { line: number; text: string } | undefined);
        const sectionCost = section0 === undefined ? 0 : byteLength(section0.text) + 1;
        const cap = Math.min(maxSnippetBytes, budget - sectionCost);
        const snippet = growSnippet(page.lines, page.first, { from: c.startLine, to: c.endLine }, terms, weights, cap);
        if (snippet === undefined) continue;
        // A line cut by the read is not whole: say so.
        const readCut = page.truncated && snippet.endLine === page.endLine;
        let section = st.sectionBefore.get(c.artifact, snippet.startLine) as { line: number; text: string } | undefined;
        if (section !== undefined && section.line === snippet.startLine) section = undefined;
        const cost = byteLength(snippet.text) + (section === undefined ? 0 : byteLength(section.text) + 1);
        if (cost > budget) {
          more = true;
          continue;
        }
        budget -= cost;
        spans.push({ from: snippet.startLine, to: snippet.endLine });
        taken.set(c.artifact, spans);
        hits.push({
          locator: spillLocator(locator),
          startLine: snippet.startLine,
          endLine: snippet.endLine,
          text: snippet.text,
          truncated: snippet.truncated || readCut,
          ...(section === undefined ? {} : { section: { line: section.line, text: section.text } }),
          score: Math.round(c.score * 1000) / 1000,
        });
      }
      return { hits, more };
    });

  const close: SpillSearch['close'] = () =>
    serial(async () => {
      closed = true;
      const current = opened;
      opened = undefined;
      if (current !== undefined) {
        const { db } = await current.catch(() => ({ db: undefined }));
        db?.close();
      }
    });

  return { location, search, refresh, gc, close };
}

/**
 * Inverse document frequency of a term, from how many chunks hold it (counted up to
 * {@link DF_CAP}: a term that common weighs little whatever its exact count).
 */
function idf(st: Statements, term: QueryTerm, total: number): number {
  const df = (st.docCount.get(term.fts) as { n: number }).n;
  const base = Math.log(1 + (Math.max(total, df) - df + 0.5) / (df + 0.5));
  return term.phrase ? base * 1.2 : base;
}

/**
 * Lowers each further chunk of one artifact a little, so that one huge repetitive output
 * cannot fill the answer while other artifacts hold chunks nearly as good.
 */
function diversify(ranked: readonly Candidate[]): Candidate[] {
  const count = new Map<number, number>();
  const adjusted = ranked.map((c) => {
    const n = count.get(c.artifact) ?? 0;
    count.set(c.artifact, n + 1);
    return { c, score: c.score - ARTIFACT_REPEAT_PENALTY * Math.max(0, n + 1 - PER_ARTIFACT_FIRST_PASS) };
  });
  return adjusted.sort((a, b) => b.score - a.score || a.c.chunk - b.c.chunk).map((x) => x.c);
}
