import path from 'node:path';
import type { Stats } from 'node:fs';
import { isSpillError, raceAbort, spillLocator, throwIfAborted } from '@spillway/core';
import type { SaveTextSpill, SpillRef } from '@spillway/core';
import { errnoOf, spillError, storageError, unsafe } from './errors.js';
import { FileWriter } from './file-writer.js';
import { TEMP_CREATE_FLAGS } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';
import { leafName, sessionDirName, tempName } from './names.js';
import { sameIdentity } from './root-guard.js';
import type { OpenSessionDir, RootGuard } from './root-guard.js';
import type { Semaphore } from './semaphore.js';

/** The hint every local locator carries: the model can use its ordinary file tools. */
export const LOCAL_RETRIEVAL_HINT = 'Use read with offset/limit, or grep this path to search within it.';

/** How many random names to try when the final name already exists. */
const PUBLISH_TRIES = 8;
/** How many temp names to try when one already exists. */
const TEMP_TRIES = 4;
/** Descriptors one save holds at its peak: the session directory and the file. */
export const SAVE_FDS = 2;

/** What a save needs from the backend. */
export interface SaveContext {
  readonly ops: FsOps;
  readonly guard: RootGuard;
  readonly semaphore: Semaphore;
  /**
   * Slots for stream saves, taken before the descriptor permits. A stream save holds its
   * permits while it waits for the caller's next chunk, so streams may only ever hold
   * about half of them: the rest always serve saves, reads, deletes and listings, which a
   * stream's producer may be waiting for.
   */
  readonly streamSlots?: Semaphore;
  readonly durable: boolean;
  readonly writeBufferBytes: number;
}

/** How many stream saves may hold descriptors at once for a given `maxOpenFiles`. */
export function streamSlotCount(maxOpenFiles: number): number {
  return Math.max(1, Math.floor(maxOpenFiles / (2 * SAVE_FDS)));
}

/** Waits for `semaphore`'s permits unless `signal` fires first; a late grant is handed back. */
async function acquireOrAbort(semaphore: Semaphore, weight: number, signal: AbortSignal | undefined): Promise<() => void> {
  const acquiring = semaphore.acquire(weight);
  try {
    return await raceAbort(acquiring, signal, 'The save');
  } catch (error) {
    // Aborted while queued: hand the permits back as soon as they arrive.
    void acquiring.then((late) => { late(); });
    throw error;
  }
}

/** Where the content comes from. */
export type ContentSource =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'stream'; readonly chunks: Iterable<unknown> | AsyncIterable<unknown> };

type Envelope = Omit<SaveTextSpill, 'content'>;

async function pump(
  writer: FileWriter,
  chunks: Iterable<unknown> | AsyncIterable<unknown>,
  signal: AbortSignal | undefined,
): Promise<void> {
  const iterator: Iterator<unknown> | AsyncIterator<unknown> =
    Symbol.asyncIterator in chunks ? chunks[Symbol.asyncIterator]() : chunks[Symbol.iterator]();
  let finished = false;
  try {
    for (;;) {
      let step: IteratorResult<unknown>;
      try {
        step = await raceAbort(Promise.resolve(iterator.next()), signal, 'The save');
      } catch (error) {
        if (isSpillError(error)) throw error;
        throw spillError('SPILL_STREAM_FAILED', 'The content stream threw before it ended; nothing was stored.', error);
      }
      if (step.done === true) {
        finished = true;
        return;
      }
      if (typeof step.value !== 'string') {
        throw spillError('SPILL_STREAM_FAILED', `The content stream yielded a ${step.value === null ? 'null' : typeof step.value}, not a string; nothing was stored.`);
      }
      await writer.writeChunk(step.value);
      throwIfAborted(signal, 'The save');
    }
  } finally {
    if (!finished && typeof iterator.return === 'function') {
      // Tell the producer to stop; never wait on it (it may be the thing that hangs).
      try {
        Promise.resolve(iterator.return()).catch(() => undefined);
      } catch {
        // a throwing return() changes nothing: the save already failed
      }
    }
  }
}

/**
 * Whether the temp name in `dir` leads to `opened`. With /proc anchoring the name is looked
 * up inside the very directory open, so one lookup settles it. Without it, the directory's
 * path is checked before and after the file's path (the path must lead to the directory
 * open both times), one call after another so that a swap must land between two calls.
 */
async function inPlace(ctx: SaveContext, dir: OpenSessionDir, temp: string, opened: Stats): Promise<boolean> {
  const { ops } = ctx;
  if (ctx.guard.anchored) {
    const at = await ops.lstat(dir.at(temp)).catch(() => undefined);
    return at !== undefined && sameIdentity(at, opened);
  }
  const dirOpened = await ops.fstat(dir.fd);
  const dirIsOpened = async (): Promise<boolean> => {
    const now = await ops.lstat(dir.path).catch(() => undefined);
    return now !== undefined && now.isDirectory() && sameIdentity(now, dirOpened);
  };
  if (!(await dirIsOpened())) return false;
  const at = await ops.lstat(path.join(dir.path, temp)).catch(() => undefined);
  if (at === undefined || !sameIdentity(at, opened)) return false;
  return dirIsOpened();
}

/**
 * Stores content as `<root>/session-<h>/<random>-<safe-name>`: an exclusive, no-follow
 * 0600 temp file, every byte written, optional fsync, checked after the open, then
 * published with a no-clobber hard link and the temp name removed. Any failure removes
 * what was created and rejects with a SpillError.
 */
export async function save(
  ctx: SaveContext,
  input: Envelope,
  content: ContentSource,
  signal: AbortSignal | undefined,
): Promise<SpillRef> {
  throwIfAborted(signal, 'The save');
  const slots = content.kind === 'stream' ? ctx.streamSlots : undefined;
  const releaseSlot = slots === undefined ? () => undefined : await acquireOrAbort(slots, 1, signal);
  let releasePermits: () => void;
  try {
    releasePermits = await acquireOrAbort(ctx.semaphore, SAVE_FDS, signal);
  } catch (error) {
    releaseSlot();
    throw error;
  }
  const release = (): void => {
    releasePermits();
    releaseSlot();
  };
  // Descriptors are closed in the background once the outcome is settled; the permits go
  // back only when they are closed, so the bound on open descriptors holds.
  const closing: Promise<unknown>[] = [];
  try {
    throwIfAborted(signal, 'The save');
    const dir = await ctx.guard.openSessionDir(sessionDirName(input.owner.sessionId), true);
    if (dir === undefined) throw spillError('SPILL_STORAGE_FAILED', 'The session directory could not be created.');
    return await saveInDir(ctx, dir, input, content, signal, closing);
  } catch (error) {
    throw storageError(error, 'saving the spill file');
  } finally {
    void Promise.allSettled(closing).then(release);
  }
}

async function createTemp(ctx: SaveContext, dir: OpenSessionDir): Promise<{ fd: number; name: string }> {
  for (let attempt = 1; ; attempt++) {
    const name = tempName();
    try {
      const fd = await ctx.ops.open(dir.at(name), TEMP_CREATE_FLAGS, 0o600);
      return { fd, name };
    } catch (error) {
      if (errnoOf(error) === 'EEXIST' && attempt < TEMP_TRIES) continue;
      throw storageError(error, `creating a temp file in ${dir.path}`);
    }
  }
}

/** Writes and publishes in `dir`; closes `dir.fd` and the file, pushing the closes on `closing`. */
async function saveInDir(
  ctx: SaveContext,
  dir: OpenSessionDir,
  input: Envelope,
  content: ContentSource,
  signal: AbortSignal | undefined,
  closing: Promise<unknown>[],
): Promise<SpillRef> {
  const { ops } = ctx;
  let created: { fd: number; name: string };
  try {
    created = await createTemp(ctx, dir);
  } catch (error) {
    closing.push(ops.close(dir.fd));
    throw error;
  }
  const { fd, name: temp } = created;
  let tempLinked = true;
  let published: string | undefined;
  try {
    // Verify after the open (and fix the mode: the umask may have narrowed it below 0600,
    // it can never have widened it).
    const [, opened] = await Promise.all([ops.fchmod(fd, 0o600), ops.fstat(fd)]);
    if (!opened.isFile() || opened.nlink !== 1 || (ctx.guard.euid >= 0 && opened.uid !== ctx.guard.euid) || !(await inPlace(ctx, dir, temp, opened))) {
      // The file may sit wherever a swap pointed: it is still empty. Remove it where the
      // path leads now only if that is the very file opened.
      tempLinked = false;
      const here = await ops.lstat(path.join(dir.path, temp)).catch(() => undefined);
      if (here !== undefined && sameIdentity(here, opened)) await ops.unlink(path.join(dir.path, temp)).catch(() => undefined);
      throw unsafe(`The temp file in ${dir.path} is not where it was created; the session directory was swapped or tampered with. Nothing was written.`);
    }

    const writer = new FileWriter(ops, fd, ctx.writeBufferBytes);
    if (content.kind === 'text') {
      await writer.writeText(content.text);
    } else {
      await pump(writer, content.chunks, signal);
    }
    const bytes = await writer.end();
    if (!ctx.guard.anchored && !(await inPlace(ctx, dir, temp, opened))) {
      // Without /proc a well-timed swap can fool the first check; if this one sees it,
      // wipe the content through the descriptor, wherever the file ended up.
      tempLinked = false;
      await ops.ftruncate(fd, 0).catch(() => undefined);
      throw unsafe(`The session directory ${dir.path} was swapped while the spill file was written; its content was wiped and nothing was published.`);
    }
    if (ctx.durable) await ops.fsync(fd);
    throwIfAborted(signal, 'The save');

    for (let attempt = 1; published === undefined; attempt++) {
      const leaf = leafName(input.suggestedName);
      try {
        await ops.link(dir.at(temp), dir.at(leaf));
        published = leaf;
      } catch (error) {
        if (errnoOf(error) === 'EEXIST' && attempt < PUBLISH_TRIES) continue;
        throw storageError(error, `publishing the spill file in ${dir.path}`);
      }
    }

    // The locator is a path: check it leads to the file written, not through a swap,
    // while the temp name goes (and, when durable, the directory is synced after that).
    const locator = path.join(dir.path, published);
    const [atLocator] = await Promise.all([
      ops.lstat(locator).catch((error: unknown) => {
        throw unsafe(`The published spill file is not reachable at ${locator}; the spill root was tampered with.`, error);
      }),
      ops.unlink(dir.at(temp)).then(async () => {
        tempLinked = false;
        if (ctx.durable) await ops.fsync(dir.fd);
      }),
    ]);
    if (!sameIdentity(atLocator, opened) || !atLocator.isFile() || (!ctx.guard.anchored && !(await inPlace(ctx, dir, published, opened)))) {
      if (!ctx.guard.anchored) await ops.ftruncate(fd, 0).catch(() => undefined);
      throw unsafe(`The path ${locator} does not lead to the spill file that was written; the spill root was tampered with.`);
    }
    return { locator: spillLocator(locator), bytes, retrievalHint: LOCAL_RETRIEVAL_HINT };
  } catch (error) {
    if (published !== undefined) await ops.unlink(dir.at(published)).catch(() => undefined);
    if (tempLinked) await ops.unlink(dir.at(temp)).catch(() => undefined);
    throw error;
  } finally {
    closing.push(ops.close(fd), ops.close(dir.fd));
  }
}
