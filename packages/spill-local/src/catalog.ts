import path from 'node:path';
import type { Dir, Stats } from 'node:fs';
import { SpillError, isSpillError, spillLocator, throwIfAborted } from '@spillway/core';
import type { ListOptions, SpillCallOptions, SpillEntry, SpillLocator, SweepTempResult } from '@spillway/core';
import { errnoOf, storageError } from './errors.js';
import type { FsOps } from './fs-ops.js';
import { openArtifact, resolveLocator } from './locator.js';
import { SESSION_DIR_RE, TEMP_RE, isLeafName, sessionDirName } from './names.js';
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
 * Streams the names of the session directories under the root. Holds one descriptor (the
 * directory handle) while the consumer iterates.
 */
async function* sessionNames(ctx: CatalogContext, signal: AbortSignal | undefined): AsyncGenerator<string> {
  // Two permits: the root's descriptor while opening, then the directory handle.
  const release = await ctx.semaphore.acquire(2);
  let handle: Dir | undefined;
  try {
    const { root, fd } = await ctx.guard.openRoot();
    try {
      handle = await ctx.ops.opendir(ctx.guard.at(fd, root.path, ''));
    } catch (error) {
      throw storageError(error, `listing the spill root ${root.path}`);
    } finally {
      await closeQuietly(ctx.ops, fd);
    }
    for (;;) {
      throwIfAborted(signal, 'The listing');
      const entry = await handle.read();
      if (entry === null) break;
      if (entry.isDirectory() && SESSION_DIR_RE.test(entry.name)) yield entry.name;
    }
  } finally {
    if (handle !== undefined) await handle.close().catch(() => undefined);
    release();
  }
}

/**
 * Streams the entries of one session directory. Holds the session directory's descriptor
 * and one directory handle while the consumer iterates.
 */
async function* sessionEntries(
  ctx: CatalogContext,
  session: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<{ dir: OpenSessionDir; name: string }> {
  const release = await ctx.semaphore.acquire(2);
  let dir: OpenSessionDir | undefined;
  let handle: Dir | undefined;
  try {
    dir = await ctx.guard.openSessionDir(session, false);
    if (dir === undefined) return;
    try {
      handle = await ctx.ops.opendir(dir.at(''));
    } catch (error) {
      throw storageError(error, `listing ${dir.path}`);
    }
    for (;;) {
      throwIfAborted(signal, 'The listing');
      const entry = await handle.read();
      if (entry === null) break;
      yield { dir, name: entry.name };
    }
  } finally {
    if (handle !== undefined) await handle.close().catch(() => undefined);
    if (dir !== undefined) await closeQuietly(ctx.ops, dir.fd);
    release();
  }
}

async function* sessionsToWalk(ctx: CatalogContext, options: ListOptions | undefined): AsyncGenerator<string> {
  if (options?.sessionId !== undefined) {
    yield sessionDirName(options.sessionId);
    return;
  }
  yield* sessionNames(ctx, options?.signal);
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

/**
 * Lists published artifacts: regular, private, single-link files with a leaf-shaped name
 * in `<root>/session-*`. Temp files, index files and anything else are skipped. Reads
 * metadata only, never content.
 */
export async function* listEntries(ctx: CatalogContext, options?: ListOptions): AsyncGenerator<SpillEntry> {
  throwIfAborted(options?.signal, 'The listing');
  const root = await ctx.guard.root();
  for await (const session of sessionsToWalk(ctx, options)) {
    for await (const { dir, name } of sessionEntries(ctx, session, options?.signal)) {
      if (!isLeafName(name)) continue;
      const st = await lstatQuiet(ctx.ops, dir.at(name));
      if (st === undefined || !st.isFile() || st.nlink !== 1) continue;
      if (!ctx.guard.anchored && !(await stillSameDir(ctx.ops, dir))) continue;
      if (ctx.guard.euid >= 0 && st.uid !== ctx.guard.euid) continue;
      yield {
        locator: spillLocator(path.join(root.path, session, name)),
        bytes: st.size,
        createdAt: st.mtime,
        session,
      };
    }
  }
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
 * save left in any session directory. Only regular files owned by us are touched.
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
  let removed = 0;
  let bytes = 0;
  for await (const session of sessionNames(ctx, options.signal)) {
    for await (const { dir, name } of sessionEntries(ctx, session, options.signal)) {
      if (!TEMP_RE.test(name)) continue;
      const st = await lstatQuiet(ctx.ops, dir.at(name));
      if (st === undefined || !st.isFile()) continue;
      if (ctx.guard.euid >= 0 && st.uid !== ctx.guard.euid) continue;
      if (st.mtimeMs > cutoff) continue;
      if (!ctx.guard.anchored && !(await stillSameDir(ctx.ops, dir))) continue;
      try {
        await ctx.ops.unlink(dir.at(name));
        removed++;
        bytes += st.size;
      } catch (error) {
        if (errnoOf(error) !== 'ENOENT') throw storageError(error, `removing the leftover temp file ${path.join(dir.path, name)}`);
      }
    }
  }
  return { removed, bytes };
}
