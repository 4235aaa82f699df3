import path from 'node:path';
import type { Dir, Stats } from 'node:fs';
import { SpillError, isSpillError, spillLocator, throwIfAborted } from '@spillway/core';
import type { ListOptions, SessionId, SpillCallOptions, SpillEntry, SpillListProblem, SpillListingVersion, SpillLocator, SweepTempResult } from '@spillway/core';
import { errnoOf, storageError } from './errors.js';
import type { FsOps } from './fs-ops.js';
import { openArtifact, resolveLocator } from './locator.js';
import { SESSION_DIR_RE, TEMP_RE, isLeafName, sessionDirName } from './names.js';
import { INCOMING_DIR } from './incoming.js';
import { sameIdentity } from './root-guard.js';
import type { OpenSessionDir, RootGuard } from './root-guard.js';
import type { Semaphore } from './semaphore.js';

/** What the catalog needs from the backend. */
export interface CatalogContext {
  readonly ops: FsOps;
  readonly guard: RootGuard;
  readonly semaphore: Semaphore;
  readonly durable: boolean;
  readonly now: () => number;
}

async function closeQuietly(ops: FsOps, fd: number): Promise<void> {
  await ops.close(fd).catch(() => undefined);
}

/**
 * Descriptors one step of a walk holds at once: a directory's descriptor and its
 * `opendir` handle (or the root's descriptor while a session directory is opened).
 */
const WALK_FDS = 2;
/** The most problems one {@link sweepTemp} result carries. */
const MAX_REPORTED_PROBLEMS = 100;

/**
 * The names under the root that have the shape of a session directory, read in one go
 * while holding descriptor permits, which are released before the caller sees a name.
 * Whatever the entry is (a directory, a symbolic link, a file) it is returned: opening it
 * decides, and refuses what is not a private directory.
 */
async function readSessionNames(ctx: CatalogContext, signal: AbortSignal | undefined): Promise<string[]> {
  return ctx.semaphore.use(WALK_FDS, async () => {
    const { root, fd } = await ctx.guard.openRoot();
    let handle: Dir;
    try {
      handle = await ctx.ops.opendir(ctx.guard.at(fd, root.path, ''));
    } catch (error) {
      throw storageError(error, `listing the spill root ${root.path}`);
    } finally {
      await closeQuietly(ctx.ops, fd);
    }
    try {
      const names: string[] = [];
      for (;;) {
        throwIfAborted(signal, 'The listing');
        const entry = await handle.read();
        if (entry === null) return names;
        if (SESSION_DIR_RE.test(entry.name)) names.push(entry.name);
      }
    } finally {
      await handle.close().catch(() => undefined);
    }
  });
}

/**
 * Runs `visit` over the entries of one session directory while holding the session
 * directory's descriptor, one directory handle and their permits; all are released when it
 * returns. `visit` must not wait for anything outside the backend (it never yields to a
 * caller). Resolves false when the directory does not exist.
 */
async function walkSession(
  ctx: CatalogContext,
  session: string,
  signal: AbortSignal | undefined,
  visit: (dir: OpenSessionDir, name: string) => Promise<void>,
): Promise<boolean> {
  return ctx.semaphore.use(WALK_FDS, async () => {
    const dir = await ctx.guard.openSessionDir(session, false);
    if (dir === undefined) return false;
    let handle: Dir | undefined;
    try {
      try {
        handle = await ctx.ops.opendir(dir.at(''));
      } catch (error) {
        throw storageError(error, `listing ${dir.path}`);
      }
      for (;;) {
        throwIfAborted(signal, 'The listing');
        const entry = await handle.read();
        if (entry === null) return true;
        await visit(dir, entry.name);
      }
    } finally {
      if (handle !== undefined) await handle.close().catch(() => undefined);
      await closeQuietly(ctx.ops, dir.fd);
    }
  });
}

/**
 * Decides what a failure to walk one session directory means. Aborts and problems with
 * the root itself end the walk (rethrown); anything else concerns that directory alone and
 * is returned as a problem to report.
 */
async function sessionProblem(ctx: CatalogContext, rootPath: string, session: string, error: unknown, signal: AbortSignal | undefined): Promise<SpillListProblem> {
  if (signal?.aborted === true || isSpillError(error, 'SPILL_ABORTED')) throw error;
  // Is it the root? Then every session would fail the same way: stop here instead.
  await ctx.semaphore.use(1, async () => {
    const { fd } = await ctx.guard.openRoot();
    await closeQuietly(ctx.ops, fd);
  });
  return { session, where: path.join(rootPath, session), error: storageError(error, `walking ${path.join(rootPath, session)}`) };
}

/** Fallback mode only: whether the session directory's path still leads to the one open. */
async function stillSameDir(ops: FsOps, dir: OpenSessionDir): Promise<boolean> {
  const [now, opened] = await Promise.all([ops.lstat(dir.path).catch(() => undefined), ops.fstat(dir.fd)]);
  return now !== undefined && sameIdentity(now, opened);
}

async function lstatQuiet(ops: FsOps, p: string): Promise<Stats | undefined> {
  try {
    return await ops.lstat(p);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined; // deleted while we walked
    throw storageError(error, `checking ${p}`);
  }
}

/** Reads one session's published artifacts into memory, holding descriptors only meanwhile. */
async function sessionArtifacts(ctx: CatalogContext, rootPath: string, session: string, signal: AbortSignal | undefined): Promise<SpillEntry[]> {
  const entries: SpillEntry[] = [];
  await walkSession(ctx, session, signal, async (dir, name) => {
    if (!isLeafName(name)) return;
    const st = await lstatQuiet(ctx.ops, dir.at(name));
    if (st === undefined || !st.isFile() || st.nlink !== 1) return;
    if (!ctx.guard.anchored && !(await stillSameDir(ctx.ops, dir))) return;
    if (ctx.guard.euid >= 0 && st.uid !== ctx.guard.euid) return;
    entries.push({
      locator: spillLocator(path.join(rootPath, session, name)),
      bytes: st.size,
      createdAt: st.mtime,
      session,
    });
  });
  return entries;
}

/** Calls a caller's problem callback, which must never break the walk. */
function report(onProblem: ((problem: SpillListProblem) => void) | undefined, problem: SpillListProblem): void {
  try {
    onProblem?.(problem);
  } catch {
    // A reporting callback that throws must not end the listing.
  }
}

/**
 * Lists published artifacts: regular, private, single-link files with a leaf-shaped name
 * in `<root>/session-*`. Temp files, index files and anything else are skipped. Reads
 * metadata only, never content.
 *
 * No descriptor (nor its permit) is held while the consumer handles an entry: the session
 * names are read first, then each session's entries are read and checked in one go with
 * the descriptors held, and released before the first of them is yielded. So a consumer
 * may delete, save or read on the same backend while it iterates, at any `maxOpenFiles`,
 * and an abandoned listing pins nothing but one session's entries in memory. A session
 * directory that cannot be used (a symlink, group-writable, owned by another user,
 * unreadable) is skipped and reported through `onProblem`; without `onProblem` the
 * listing rejects with the first such error once everything else has been yielded.
 */
export async function* listEntries(ctx: CatalogContext, options?: ListOptions): AsyncGenerator<SpillEntry> {
  const signal = options?.signal;
  const onProblem = options?.onProblem;
  throwIfAborted(signal, 'The listing');
  const root = await ctx.guard.root();
  const sessions = options?.sessionId !== undefined ? [sessionDirName(options.sessionId)] : await readSessionNames(ctx, signal);
  let first: SpillListProblem | undefined;
  for (const session of sessions) {
    throwIfAborted(signal, 'The listing');
    let entries: SpillEntry[];
    try {
      entries = await sessionArtifacts(ctx, root.path, session, signal);
    } catch (error) {
      const problem = await sessionProblem(ctx, root.path, session, error, signal);
      first ??= problem;
      report(onProblem, problem);
      continue;
    }
    yield* entries;
  }
  if (first !== undefined && onProblem === undefined) throw first.error;
}

/**
 * How old a session directory's last change must be for {@link listingVersion} to vouch for
 * it: a file system stamps changes with a coarse clock, so a change made within the same
 * tick as the one a token was taken after could leave the directory's times as they were.
 * A change made now stamps a time later than one this old.
 */
export const SETTLED_AFTER_MS = 1000;

/**
 * The state of one session's listing: the session directory's identity and its change and
 * modification times, which every publish, delete or rename in it moves (artifacts are
 * never rewritten in place). The directory is opened with the listing's checks.
 * `undefined` when the session has no directory, or when it changed within
 * {@link SETTLED_AFTER_MS}.
 */
export async function listingVersion(ctx: CatalogContext, options: { readonly sessionId: SessionId } & SpillCallOptions): Promise<SpillListingVersion | undefined> {
  throwIfAborted(options.signal, 'The listing');
  const session = sessionDirName(options.sessionId);
  return ctx.semaphore.use(WALK_FDS, async () => {
    const dir = await ctx.guard.openSessionDir(session, false);
    if (dir === undefined) return undefined;
    try {
      const st = await ctx.ops.fstat(dir.fd);
      if (ctx.now() - Math.max(st.ctimeMs, st.mtimeMs) < SETTLED_AFTER_MS) return undefined;
      return { scope: session, token: [st.dev, st.ino, st.ctimeMs, st.mtimeMs, st.mode, st.uid].join(':') };
    } finally {
      await closeQuietly(ctx.ops, dir.fd);
    }
  });
}

/**
 * Deletes one artifact after the same checks as the reader. Resolves false when it is
 * already gone; a forged locator rejects with SPILL_INVALID_LOCATOR.
 */
export async function deleteEntry(ctx: CatalogContext, locator: SpillLocator, options?: SpillCallOptions): Promise<boolean> {
  throwIfAborted(options?.signal, 'The delete');
  const resolved = await resolveLocator(ctx.guard, ctx.ops, locator);
  const release = await ctx.semaphore.acquire(2);
  try {
    let artifact;
    try {
      artifact = await openArtifact(ctx.guard, ctx.ops, resolved);
    } catch (error) {
      if (isSpillError(error, 'SPILL_NOT_FOUND')) return false;
      throw error;
    }
    const { fd, dir, stats } = artifact;
    try {
      const target = dir.at(resolved.leaf);
      const now = await lstatQuiet(ctx.ops, target);
      if (now === undefined) return false;
      if (!sameIdentity(now, stats) || (!ctx.guard.anchored && !(await stillSameDir(ctx.ops, dir)))) {
        throw new SpillError('SPILL_INVALID_LOCATOR', `${resolved.canonical} changed while it was being deleted; nothing was removed.`);
      }
      try {
        await ctx.ops.unlink(target);
      } catch (error) {
        if (errnoOf(error) === 'ENOENT') return false;
        throw storageError(error, `deleting ${resolved.canonical}`);
      }
      if (ctx.durable) await ctx.ops.fsync(dir.fd).catch(() => undefined);
      return true;
    } finally {
      await closeQuietly(ctx.ops, fd);
      await closeQuietly(ctx.ops, dir.fd);
    }
  } finally {
    release();
  }
}

/**
 * Removes temp files (`.tmp-<hex>`) older than `olderThanMs` that a crashed or killed
 * save left in any session directory, or a killed `spillway run` in the incoming
 * directory. Only regular files owned by us are touched.
 */
export async function sweepTemp(
  ctx: CatalogContext,
  options: { readonly olderThanMs: number } & SpillCallOptions,
): Promise<SweepTempResult> {
  const olderThanMs = (options as { olderThanMs?: unknown } | undefined)?.olderThanMs;
  if (typeof olderThanMs !== 'number' || !(olderThanMs >= 0)) {
    throw new SpillError('SPILL_INVALID_INPUT', `sweepTemp: olderThanMs must be a number of milliseconds, at least 0; got ${String(olderThanMs)}.`);
  }
  throwIfAborted(options.signal, 'The sweep');
  const cutoff = ctx.now() - olderThanMs;
  const root = await ctx.guard.root();
  let removed = 0;
  let bytes = 0;
  const problems: SpillListProblem[] = [];
  // The incoming directory is walked as a session directory is, with the same checks.
  for (const session of [...(await readSessionNames(ctx, options.signal)), INCOMING_DIR]) {
    throwIfAborted(options.signal, 'The sweep');
    try {
      await walkSession(ctx, session, options.signal, async (dir, name) => {
        if (!TEMP_RE.test(name)) return;
        const st = await lstatQuiet(ctx.ops, dir.at(name));
        if (st === undefined || !st.isFile()) return;
        if (ctx.guard.euid >= 0 && st.uid !== ctx.guard.euid) return;
        if (st.mtimeMs > cutoff) return;
        if (!ctx.guard.anchored && !(await stillSameDir(ctx.ops, dir))) return;
        try {
          await ctx.ops.unlink(dir.at(name));
          removed++;
          bytes += st.size;
        } catch (error) {
          if (errnoOf(error) !== 'ENOENT') throw storageError(error, `removing the leftover temp file ${path.join(dir.path, name)}`);
        }
      });
    } catch (error) {
      const problem = await sessionProblem(ctx, root.path, session, error, options.signal);
      if (problems.length < MAX_REPORTED_PROBLEMS) problems.push(problem);
    }
  }
  return problems.length === 0 ? { removed, bytes } : { removed, bytes, problems };
}
