/**
 * The SQLite side of the index: the schema and the statements, on `libsql` (SQLite with
 * FTS5, prebuilt for each platform). The full-text table is contentless: it keeps the
 * inverted index and the column sizes that BM25 needs, never the text, which stays in the
 * backend and is read back through its reader when a snippet is made.
 */
import { SpillError } from '@spillway/core';

/** The part of `libsql`'s statement API the index uses. */
export interface Statement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The part of `libsql`'s database API the index uses. */
export interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): unknown;
  transaction<F extends (...args: never[]) => unknown>(fn: F): F;
  close(): unknown;
}

/** Bump when the schema or what a chunk holds changes: an older index is rebuilt. */
export const SCHEMA_VERSION = '9';

/** How long a statement waits for another process's write lock, in milliseconds. */
export const BUSY_TIMEOUT_MS = 1000;

/** FTS5's pending-data limit (its `hashsize`). */
const FTS_PENDING_BYTES = 8 * 1024 * 1024;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS artifacts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  locator TEXT NOT NULL UNIQUE,
  session TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  created INTEGER NOT NULL,
  complete INTEGER NOT NULL DEFAULT 0,
  owner TEXT NOT NULL DEFAULT '',
  touched INTEGER NOT NULL DEFAULT 0,
  chunks INTEGER
);
CREATE TABLE IF NOT EXISTS sections (
  id INTEGER PRIMARY KEY,
  artifact INTEGER NOT NULL,
  line INTEGER NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sections_artifact_line ON sections (artifact, line);
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  artifact INTEGER NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  section INTEGER,
  context_byte INTEGER
);
CREATE INDEX IF NOT EXISTS chunks_artifact ON chunks (artifact);
CREATE TABLE IF NOT EXISTS listings (scope TEXT PRIMARY KEY, token TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5 (body, head, content = '', contentless_delete = 1, tokenize = 'porter unicode61');
`;

const DROP = `
DROP TABLE IF EXISTS fts_vocab; DROP TABLE IF EXISTS fts; DROP TABLE IF EXISTS chunks;
DROP TABLE IF EXISTS sections; DROP TABLE IF EXISTS artifacts; DROP TABLE IF EXISTS listings; DROP TABLE IF EXISTS meta;
`;

type DatabaseConstructor = new (location: string) => Database;

let constructorPromise: Promise<DatabaseConstructor> | undefined;

// Loaded on first use, so that importing this package costs nothing until an index opens,
// and a platform without the prebuilt binary gets a clear error instead of a failed import.
async function loadLibsql(): Promise<DatabaseConstructor> {
  constructorPromise ??= import('libsql').then(
    (m) => ((m as { default?: unknown }).default ?? m) as DatabaseConstructor,
    (error: unknown) => {
      constructorPromise = undefined;
      throw new SpillError(
        'SPILL_STORAGE_FAILED',
        `The search index needs the libsql package and its prebuilt binary for ${process.platform}-${process.arch}, which could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    },
  );
  return constructorPromise;
}

/** Opens (creating when needed) an index database and brings its schema up to date. */
export async function openDatabase(location: string): Promise<Database> {
  const Ctor = await loadLibsql();
  let db: Database;
  try {
    db = new Ctor(location);
  } catch (error) {
    throw new SpillError('SPILL_STORAGE_FAILED', `Cannot open the search index ${location}: ${String(error)}`, { cause: error });
  }
  try {
    // A wait for another process's write blocks the event loop: keep it short. A search
    // that finds the index busy answers from what is indexed already. Set first: a new
    // file's switch to WAL and its schema can meet another process doing the same.
    db.exec(`PRAGMA busy_timeout = ${String(BUSY_TIMEOUT_MS)};`);
    // What is deleted (an artifact removed from the store) is overwritten with zeros, not
    // left in free pages for `strings` to find.
    db.exec('PRAGMA secure_delete = ON;');
    if (location !== ':memory:') await retryWhileBusy(() => db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;'));
    const version = (): string | undefined => {
      try {
        return (db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | undefined)?.value;
      } catch {
        return undefined; // no meta table: a new file
      }
    };
    if (version() !== SCHEMA_VERSION) {
      // In one write transaction, checked again inside it, so that two processes opening an
      // older index never drop tables the other has just made.
      await retryWhileBusy(() => db.exec('BEGIN IMMEDIATE'));
      if (version() !== SCHEMA_VERSION) {
        // The index is a cache: an index of another version is dropped and rebuilt.
        db.exec(DROP);
        db.exec(SCHEMA);
        db.prepare("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(SCHEMA_VERSION);
        // FTS5 writes its pending terms out as a new segment when they pass this size (1 MiB
        // by default): larger segments mean fewer merges while indexing, for a few MiB more.
        db.exec(`INSERT INTO fts (fts, rank) VALUES ('hashsize', ${String(FTS_PENDING_BYTES)});`);
        // A deleted chunk's terms are removed from FTS5's segments too, not only marked.
        db.exec("INSERT INTO fts (fts, rank) VALUES ('secure-delete', 1);");
      }
      db.exec('COMMIT');
    }
    await countChunksOfArtifacts(db);
  } catch (error) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // nothing was open
    }
    db.close();
    throw new SpillError('SPILL_STORAGE_FAILED', `Cannot prepare the search index ${location}: ${String(error)}`, { cause: error });
  }
  return db;
}

/**
 * Gives each finished artifact row its count of chunk rows (`artifacts.chunks`) where it has
 * none: every row of an index made before the column (which is added then), and a row that
 * a process without it indexed since. A search then sums the counts over the artifact rows
 * instead of counting some 300,000 chunk rows (some 860 page reads, 2 to 7 ms of every search
 * process); while any row lacks its count, it counts the chunk rows as before. Once per
 * index, in one write transaction, waiting for the lock like a change of schema.
 */
async function countChunksOfArtifacts(db: Database): Promise<void> {
  const hasColumn = (): boolean => db.prepare("SELECT 1 AS x FROM pragma_table_info('artifacts') WHERE name = 'chunks'").get() !== undefined;
  // Only a finished row: one being indexed by such a process still gains chunks.
  const uncounted = (): boolean => db.prepare('SELECT 1 AS x FROM artifacts WHERE chunks IS NULL AND complete = 1 LIMIT 1').get() !== undefined;
  if (hasColumn() && !uncounted()) return;
  await retryWhileBusy(() => db.exec('BEGIN IMMEDIATE'));
  if (!hasColumn()) db.exec('ALTER TABLE artifacts ADD COLUMN chunks INTEGER');
  db.exec('UPDATE artifacts SET chunks = (SELECT count(*) FROM chunks WHERE chunks.artifact = artifacts.id) WHERE chunks IS NULL AND complete = 1');
  db.exec('COMMIT');
}

/**
 * Closes an index database with its write-ahead log folded into the file first. libsql's
 * `close` only lets go of the connection: SQLite closes it, and checkpoints, once the last
 * prepared statement is garbage-collected, at a moment nobody chooses. With the log already
 * folded in, that late close has nothing to write, so the file is settled when this returns.
 */
export function closeDatabase(db: Database): void {
  try {
    db.exec('PRAGMA wal_checkpoint(TRUNCATE);');
  } catch {
    // Busy or read-only: the late close folds the log in instead.
  }
  db.close();
}

/** How long opening an index keeps trying while other processes create or migrate it. */
const OPEN_RETRY_MS = 15_000;

/**
 * Runs `step` until it does not find the database locked, for up to {@link OPEN_RETRY_MS}
 * (each try itself waits {@link BUSY_TIMEOUT_MS}): only for the short, one-time steps of
 * opening a file, where several first searches may meet.
 */
async function retryWhileBusy(step: () => void): Promise<void> {
  const deadline = Date.now() + OPEN_RETRY_MS;
  for (;;) {
    try {
      step();
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
    }
  }
}

/** True when SQLite said the database is locked by another connection (`SQLITE_BUSY`, `SQLITE_LOCKED`). */
export function isBusy(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String((error).code) : '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || /database is locked/i.test(error instanceof Error ? error.message : '');
}
