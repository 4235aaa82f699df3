/** The prepared statements a searcher uses: the indexer's, and those of the catalog sync and the ranking. */
import type { Database, Statement } from './database.js';
import { prepareIndexStatements, type IndexStatements } from './indexer.js';
import { DF_CAP } from './ranking.js';

/** Every statement a searcher runs, prepared once per database. */
export interface SearchStatements extends IndexStatements {
  readonly artifactByLocator: Statement;
  readonly artifactsOfSessions: Statement;
  readonly allArtifacts: Statement;
  readonly chunkCount: Statement;
  readonly docCount: Statement;
  readonly holds: Statement;
  readonly section: Statement;
  readonly sectionBefore: Statement;
}

/** Prepares {@link SearchStatements}. */
export function prepareSearchStatements(db: Database): SearchStatements {
  return {
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
}
