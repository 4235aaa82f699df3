/** The prepared statements a searcher uses: the indexer's, and those of the catalog sync and the ranking. */
import type { Database, Statement } from './database.js';
import type { PrunedStatements } from './bm25-candidates.js';
import { prepareIndexStatements, type IndexStatements } from './indexer.js';
import { DF_CAP } from './ranking.js';

/** How much more BM25 weighs a match in a chunk's section line (its `head` column) than one in its lines. */
export const HEAD_WEIGHT = 4;
const BM25 = `bm25(fts, 1.0, ${String(HEAD_WEIGHT)})`;

/** Every statement a searcher runs, prepared once per database. */
export interface SearchStatements extends IndexStatements, PrunedStatements {
  readonly artifactByLocator: Statement;
  readonly artifactRowsOfSessions: Statement;
  readonly allArtifactRows: Statement;
  readonly artifactsOfSessions: Statement;
  readonly completeOfSession: Statement;
  readonly listingToken: Statement;
  readonly saveListingToken: Statement;
  readonly dropListingToken: Statement;
  readonly dropListingTokens: Statement;
  readonly allArtifacts: Statement;
  readonly artifactCount: Statement;
  readonly chunkCount: Statement;
  /** The chunk rows, summed from the artifact rows' counts; `null` when a row has none. */
  readonly keptChunkCount: Statement;
  readonly totalChanges: Statement;
  readonly dataVersion: Statement;
  readonly docRows: Statement;
  readonly holdingOf: Statement;
  readonly matches: Statement;
  /** The best matches of an expression among the chunks of the artifacts listed (JSON ids), by BM25: `chunk, bm25`. */
  readonly matchesInScope: Statement;
  /** Every match of an expression among the chunks of the artifacts listed, with its BM25, unordered. */
  readonly scoredInScope: Statement;
  readonly chunksByIds: Statement;
  readonly section: Statement;
  readonly sectionBefore: Statement;
  /** Drops chunks, sections and full-text rows whose artifact row is gone; answers how many chunks. */
  sweepOrphans(): number;
}

/** Prepares {@link SearchStatements}. */
export function prepareSearchStatements(db: Database): SearchStatements {
  return {
    ...prepareIndexStatements(db),
    artifactByLocator: db.prepare('SELECT id, locator, bytes, created, complete, owner, touched FROM artifacts WHERE locator = ?'),
    artifactRowsOfSessions: db.prepare('SELECT id, locator, bytes, created, complete, owner, touched FROM artifacts WHERE session IN (SELECT value FROM json_each(?))'),
    allArtifactRows: db.prepare('SELECT id, locator, bytes, created, complete, owner, touched FROM artifacts'),
    artifactsOfSessions: db.prepare('SELECT id, locator FROM artifacts WHERE session IN (SELECT value FROM json_each(?))'),
    completeOfSession: db.prepare('SELECT id, locator, bytes FROM artifacts WHERE session = ? AND complete = 1'),
    dropListingTokens: db.prepare('DELETE FROM listings'),
    listingToken: db.prepare('SELECT token FROM listings WHERE scope = ?'),
    saveListingToken: db.prepare('INSERT INTO listings (scope, token) VALUES (?, ?) ON CONFLICT (scope) DO UPDATE SET token = excluded.token'),
    dropListingToken: db.prepare('DELETE FROM listings WHERE scope = ?'),
    allArtifacts: db.prepare('SELECT id, locator FROM artifacts'),
    artifactCount: db.prepare('SELECT count(*) AS n FROM artifacts'),
    chunkCount: db.prepare('SELECT count(*) AS n FROM chunks'),
    keptChunkCount: db.prepare('SELECT CASE WHEN count(*) = count(chunks) THEN coalesce(sum(chunks), 0) END AS n FROM artifacts'),
    totalChanges: db.prepare('SELECT total_changes() AS n'),
    dataVersion: db.prepare('PRAGMA data_version'),
    // Which of a list of chunks hold a term: FTS5 is asked once per chunk (a seek by rowid).
    holdingOf: db.prepare('SELECT rowid AS id FROM fts WHERE fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))'),
    matches: db.prepare(`SELECT rowid AS chunk, ${BM25} AS bm25 FROM fts WHERE fts MATCH ? ORDER BY bm25 LIMIT ?`),
    matchesInScope: db.prepare(
      `SELECT c.id AS chunk, ${BM25} AS bm25 FROM fts JOIN chunks c ON c.id = fts.rowid ` +
        'WHERE fts MATCH ? AND c.artifact IN (SELECT value FROM json_each(?)) ORDER BY bm25 LIMIT ?',
    ),
    scoredInScope: db.prepare(
      `SELECT c.id AS chunk, ${BM25} AS bm25 FROM fts JOIN chunks c ON c.id = fts.rowid WHERE fts MATCH ? AND c.artifact IN (SELECT value FROM json_each(?))`,
    ),
    scored: db.prepare(`SELECT rowid AS chunk, ${BM25} AS bm25 FROM fts WHERE fts MATCH ?`),
    countUpTo: db.prepare('SELECT count(*) AS n FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)'),
    averages: db.prepare("SELECT block FROM fts_data WHERE id = 1"),
    chunksByIds: db.prepare(
      'SELECT id AS chunk, artifact, start_line AS startLine, end_line AS endLine, section, context_byte AS contextByte FROM chunks WHERE id IN (SELECT value FROM json_each(?))',
    ),
    // The chunks that hold a term, up to DF_CAP of them: the count, and below it the set.
    docRows: db.prepare(`SELECT rowid AS id FROM fts WHERE fts MATCH ? LIMIT ${String(DF_CAP)}`),
    section: db.prepare('SELECT line, text FROM sections WHERE id = ?'),
    sectionBefore: db.prepare('SELECT line, text FROM sections WHERE artifact = ? AND line <= ? ORDER BY line DESC LIMIT 1'),
    sweepOrphans: () => {
      const orphan = 'NOT IN (SELECT id FROM artifacts)';
      return db.transaction(() => {
        db.prepare(`DELETE FROM fts WHERE rowid IN (SELECT id FROM chunks WHERE artifact ${orphan})`).run();
        const chunks = db.prepare(`DELETE FROM chunks WHERE artifact ${orphan}`).run().changes;
        db.prepare(`DELETE FROM sections WHERE artifact ${orphan}`).run();
        return chunks;
      })();
    },
  };
}
