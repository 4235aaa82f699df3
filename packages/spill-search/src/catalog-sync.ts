/**
 * Bringing the index up to date with a backend's catalog: what the listing shows and the
 * index lacks (or holds at another size or date) is indexed, and what the index holds but
 * the listing no longer shows is dropped, so that a deleted artifact is never answered.
 */
import { isSpillError, throwIfAborted } from '@spillway/core';
import type { SessionId, SpillCatalog, SpillEntry, SpillListingVersion, SpillReader } from '@spillway/core';
import { isBusy, type Database } from './database.js';
import { IndexLost, indexArtifact, removeArtifact } from './indexer.js';
import type { SearchStatements } from './search-statements.js';
import type { SpillSearchProgress } from './spill-search.js';

/** True when an error says the artifact no longer exists (deleted, expired or never valid). */
export function isGone(error: unknown): boolean {
  return isSpillError(error) && (error.code === 'SPILL_NOT_FOUND' || error.code === 'SPILL_EXPIRED' || error.code === 'SPILL_INVALID_LOCATOR');
}

/** What one sync needs. */
export interface SyncOptions {
  readonly db: Database;
  readonly st: SearchStatements;
  readonly catalog: SpillCatalog;
  readonly reader: SpillReader;
  readonly sessionId: SessionId | undefined;
  readonly signal: AbortSignal | undefined;
  /** Who this searcher is, in the rows it is indexing: asked only when a row needs it. */
  readonly owner: () => string;
  /** False for a sync that only drops what is gone (gc): nothing new is indexed. */
  readonly index?: boolean;
  /** How far indexing has got: once the listing is known, then after each page. */
  readonly onProgress?: ((progress: SpillSearchProgress) => void) | undefined;
}

/**
 * An unfinished row touched this recently is another searcher's work in progress (it
 * touches its row at every commit, every few MiB); an older one was left by a searcher
 * that stopped, and is indexed again.
 */
export const STALLED_AFTER_MS = 2 * 60_000;

/** What one sync did, and the artifacts in scope (row id to locator). */
export interface SyncResult {
  readonly inScope: Map<number, string>;
  /** The size each artifact in scope was indexed at, in bytes. */
  readonly sizes: Map<number, number>;
  readonly indexed: number;
  readonly removed: number;
  readonly lines: number;
  /** True when another process held the write lock, so that some of it waits for the next sync. */
  readonly busy: boolean;
}

/** Indexes what the listing shows and drops what it no longer shows; answers the artifacts in scope. */
export async function syncCatalog(options: SyncOptions): Promise<SyncResult> {
  const { db, st, catalog, reader, sessionId, signal, owner } = options;
  const inScope = new Map<number, string>();
  const sizes = new Map<number, number>();
  const sessions = new Set<string>();
  let indexed = 0;
  let lines = 0;
  const indexNew = options.index ?? true;
  // A session the catalog vouches is unchanged since a sync that left every artifact it
  // listed indexed is answered from the index's rows, without listing it again: a listing
  // reads every artifact's metadata, which over thousands of them is most of a search.
  const version = sessionId !== undefined && indexNew ? await listingVersion(catalog, sessionId, signal) : undefined;
  if (version !== undefined && (st.listingToken.get(version.scope) as { token: string } | undefined)?.token === version.token) {
    for (const row of st.completeOfSession.all(version.scope) as { id: number; locator: string; bytes: number }[]) {
      inScope.set(row.id, row.locator);
      sizes.set(row.id, row.bytes);
    }
    return { inScope, sizes, indexed: 0, removed: 0, lines: 0, busy: false };
  }
  const listing: SpillEntry[] = [];
  let problems = false as boolean; // set by onProblem, which flow analysis does not follow
  for await (const entry of catalog.list({
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(signal ? { signal } : {}),
    onProblem: () => {
      problems = true;
    },
  })) {
    listing.push(entry);
  }
  // New artifacts are indexed oldest first: chunk ids, which break ties between equal
  // scores, then follow when they were saved, not the order a directory happens to list in.
  // The sort is stable, so artifacts of one millisecond keep the listing's order.
  listing.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  // The rows the listing is checked against, read in one query; a locator not among them
  // (new, or indexed under another session) is looked up on its own.
  type Row = { id: number; locator: string; bytes: number; created: number; complete: number; owner: string; touched: number };
  const elsewhere = new Set<number>();
  let busy = false;
  const removeOwn = (id: number): void => {
    try {
      removeArtifact(db, st, id);
    } catch (error) {
      // Left unfinished under this owner: it is stalled after a while and indexed again.
      if (!isBusy(error)) throw error;
    }
  };
  const rows = new Map<string, Row>();
  // A session's rows are kept under the backend's key of it (SpillEntry.session), which only
  // the listing tells.
  const listed = JSON.stringify([...new Set(listing.map((e) => e.session))]);
  const prefetched = (sessionId === undefined ? st.allArtifactRows.all() : st.artifactRowsOfSessions.all(listed)) as Row[];
  for (const row of prefetched) rows.set(row.locator, row);
  const upToDate = (row: Row | undefined, entry: SpillEntry): boolean =>
    row !== undefined && row.complete === 1 && row.bytes === entry.bytes && row.created === entry.createdAt.getTime();
  // What must be indexed, as far as the prefetched rows tell: for a progress line only.
  const progress = { artifacts: 0, artifactsDone: 0, bytes: 0, bytesDone: 0 };
  const tell = (): void => {
    try {
      options.onProgress?.({ ...progress });
    } catch {
      // A progress line never stops indexing.
    }
  };
  if (indexNew && options.onProgress !== undefined) {
    for (const entry of listing) {
      if (upToDate(rows.get(entry.locator) ?? (st.artifactByLocator.get(entry.locator) as Row | undefined), entry)) continue;
      progress.artifacts += 1;
      progress.bytes += entry.bytes;
    }
    if (progress.artifacts > 0) tell();
  }
  const onPage = options.onProgress === undefined ? undefined : (chars: number): void => {
    progress.bytesDone = Math.min(progress.bytes, progress.bytesDone + chars);
    tell();
  };
  for (const entry of listing) {
    throwIfAborted(signal);
    sessions.add(entry.session);
    const row = rows.get(entry.locator) ?? (st.artifactByLocator.get(entry.locator) as Row | undefined);
    rows.delete(entry.locator); // what follows may change it: a repeat is looked up afresh
    if (row !== undefined && upToDate(row, entry)) {
      inScope.set(row.id, entry.locator);
      sizes.set(row.id, entry.bytes);
      continue;
    }
    if (row !== undefined && row.complete === 0 && row.owner !== owner() && Date.now() - row.touched < STALLED_AFTER_MS) {
      // Another process is indexing it: not answered until it is done, and not touched.
      elsewhere.add(row.id);
      continue;
    }
    if (!indexNew || busy) {
      // Not indexed now: not answered, and a row of another size or date is not dropped yet.
      if (row !== undefined) elsewhere.add(row.id);
      continue;
    }
    let written: number | undefined;
    try {
      if (row !== undefined) removeArtifact(db, st, row.id);
      const result = await indexArtifact(db, st, reader, entry, owner(), (id) => (written = id), signal, onPage);
      inScope.set(result.id, entry.locator);
      sizes.set(result.id, entry.bytes);
      indexed += 1;
      if (onPage !== undefined) {
        progress.artifactsDone += 1;
        tell();
      }
      lines += result.lines;
    } catch (error) {
      if (isBusy(error)) {
        // Another process holds the write lock: answer from what is indexed, index later.
        busy = true;
        continue;
      }
      if (written !== undefined) removeOwn(written);
      // Deleted while it was being indexed, or another searcher's now: not answered now, and
      // the other searcher's row is left alone.
      if (!isGone(error) && !(error instanceof IndexLost)) throw error;
      const theirs = st.artifactByLocator.get(entry.locator) as Row | undefined;
      if (theirs !== undefined && theirs.id !== written) elsewhere.add(theirs.id);
    }
  }
  let removed = 0;
  const known = (sessionId === undefined ? st.allArtifacts.all() : st.artifactsOfSessions.all(JSON.stringify([...sessions]))) as { id: number; locator: string }[];
  for (const row of known) {
    if (inScope.has(row.id) || elsewhere.has(row.id)) continue;
    // Only what the listing no longer shows reaches here; a scope never holds it, so a
    // removal that must wait for another process's lock can wait for the next sync.
    if (busy) break;
    try {
      removeArtifact(db, st, row.id);
      removed += 1;
    } catch (error) {
      if (!isBusy(error)) throw error;
      busy = true;
    }
  }
  if (version !== undefined) {
    // Vouched for only when this sync left the session as a later one would: every listed
    // artifact indexed and answered, nothing of another process's in progress.
    const whole = !busy && !problems && elsewhere.size === 0 && inScope.size === listing.length && listing.every((e) => e.session === version.scope);
    try {
      if (whole) st.saveListingToken.run(version.scope, version.token);
      else st.dropListingToken.run(version.scope);
    } catch (error) {
      // Another process is writing: the next sync lists again.
      if (!isBusy(error)) throw error;
    }
  }
  return { inScope, sizes, indexed, removed, lines, busy };
}

/** The catalog's version of a session's listing, when it gives one; a failure to tell is no version (the listing decides). */
async function listingVersion(catalog: SpillCatalog, sessionId: SessionId, signal: AbortSignal | undefined): Promise<SpillListingVersion | undefined> {
  if (catalog.listingVersion === undefined) return undefined;
  try {
    return await catalog.listingVersion({ sessionId, ...(signal ? { signal } : {}) });
  } catch (error) {
    if (signal?.aborted === true) throw error;
    return undefined;
  }
}
