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

/**
 * The number of chunk rows, kept by SQLite itself on every insert and delete, whichever
 * process or version of this code writes: a search reads one row instead of counting some
 * 300,000 (about 750 pages, 2 to 7 ms of every search process). FTS5's own row count is no
 * substitute: a contentless-delete table does not lower it when a row is deleted.
 */
const CHUNK_COUNT = `
CREATE TABLE IF NOT EXISTS counts (name TEXT PRIMARY KEY, n INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS chunks_insert_counted AFTER INSERT ON chunks BEGIN UPDATE counts SET n = n + 1 WHERE name = 'chunks'; END;
CREATE TRIGGER IF NOT EXISTS chunks_delete_counted AFTER DELETE ON chunks BEGIN UPDATE counts SET n = n - 1 WHERE name = 'chunks'; END;
`;

/** Starts the count of {@link CHUNK_COUNT} at the rows there are, once; nothing when it runs already. */
const START_CHUNK_COUNT = "INSERT OR IGNORE INTO counts (name, n) SELECT 'chunks', count(*) FROM chunks;";

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
  touched INTEGER NOT NULL DEFAULT 0
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
${CHUNK_COUNT}
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5 (body, head, content = '', contentless_delete = 1, tokenize = 'porter unicode61');
`;

const DROP = `
DROP TABLE IF EXISTS fts_vocab; DROP TABLE IF EXISTS fts; DROP TABLE IF EXISTS chunks;
DROP TABLE IF EXISTS sections; DROP TABLE IF EXISTS artifacts; DROP TABLE IF EXISTS listings; DROP TABLE IF EXISTS counts; DROP TABLE IF EXISTS meta;
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
        db.exec(START_CHUNK_COUNT);
        db.prepare("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(SCHEMA_VERSION);
        // FTS5 writes its pending terms out as a new segment when they pass this size (1 MiB
        // by default): larger segments mean fewer merges while indexing, for a few MiB more.
        db.exec(`INSERT INTO fts (fts, rank) VALUES ('hashsize', ${String(FTS_PENDING_BYTES)});`);
        // A deleted chunk's terms are removed from FTS5's segments too, not only marked.
        db.exec("INSERT INTO fts (fts, rank) VALUES ('secure-delete', 1);");
      }
      db.exec('COMMIT');
    }
    if (!chunksCounted(db)) startChunkCount(db);
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

/** True when the index keeps its chunk count ({@link CHUNK_COUNT}). */
export function chunksCounted(db: Database): boolean {
  try {
    return db.prepare("SELECT n FROM counts WHERE name = 'chunks'").get() !== undefined;
  } catch {
    return false; // no counts table: an index made before it
  }
}

/**
 * Adds the chunk count to an index made before it, in one write transaction, so that no
 * chunk is written between the count and its triggers. When another process holds the
 * write lock, it is left for a later open: until then the chunks are counted each search.
 */
function startChunkCount(db: Database): void {
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (error) {
    if (isBusy(error)) return;
    throw error;
  }
  db.exec(CHUNK_COUNT);
  db.exec(START_CHUNK_COUNT);
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
