import path from 'node:path';
import type { Stats } from 'node:fs';
import { raceAbort, spillLocator, throwIfAborted } from '@spillway/core';
import type { SaveTextSpill, SpillCallOptions, SpillRef } from '@spillway/core';
import type { SpillFileSinkHandle } from '@spillway/core/file-sink';
import { RETRIEVAL_HINTS } from '@spillway/core/notice';
import { ContentStream } from '@spillway/backend-utils';
import type { ContentChunks } from '@spillway/backend-utils';
import { errnoOf, spillError, storageError, unsafe } from './errors.js';
import { FileWriter } from './file-writer.js';
import { SINK_CREATE_FLAGS, TEMP_CREATE_FLAGS } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';
import { INCOMING_DIR, type IncomingFile } from './incoming.js';
import { leafName, sessionDirName, TEMP_RE, tempName } from './names.js';
import { sameIdentity } from './root-guard.js';
import type { OpenSessionDir, RootGuard } from './root-guard.js';
import type { Semaphore } from './semaphore.js';

/** The hint every local locator carries: the model can use its ordinary file tools. */
export const LOCAL_RETRIEVAL_HINT = RETRIEVAL_HINTS['file-tools'];

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

async function pump(writer: FileWriter, chunks: ContentChunks, signal: AbortSignal | undefined): Promise<void> {
  const stream = new ContentStream(chunks);
  try {
    for (let chunk = await stream.next(signal); chunk !== undefined; chunk = await stream.next(signal)) {
      await writer.writeChunk(chunk);
      throwIfAborted(signal, 'The save');
    }
  } catch (error) {
    stream.stop();
    throw error;
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
  const release = await acquireSaveFds(ctx, signal, content.kind === 'stream');
  // Descriptors are closed in the background once the outcome is settled; the permits go
  // back only when they are closed, so the bound on open descriptors holds.
  const closing: Promise<unknown>[] = [];
  try {
    throwIfAborted(signal, 'The save');
    const name = sessionDirName(input.owner.sessionId);
    const lease = await ctx.guard.leaseKnownSessionDir(name);
    if (lease !== undefined) {
      // A session directory checked before: the temp file is created while the directory
      // is verified (one round trip instead of two), and nothing is written until it is.
      const [created, verified] = await Promise.all([
        createTemp(ctx, lease.dir, TEMP_CREATE_FLAGS).then(
          (file) => ({ file }),
          (error: unknown) => ({ error }),
        ),
        lease.verify(),
      ]);
      if (verified && 'file' in created) {
        return await saveInDir(ctx, { dir: lease.dir, release: () => lease.release() }, input, content, signal, closing, created.file);
      }
      if ('file' in created) {
        await ctx.ops.unlink(lease.dir.at(created.file.name)).catch(() => undefined);
        await ctx.ops.close(created.file.fd).catch(() => undefined);
      }
      await lease.release();
      if (verified && 'error' in created) {
        // ENOENT: the directory was removed after it was checked (an emptied session swept
        // by retention, say). Stop sharing it and create it afresh below; anything else fails.
        // (createTemp wraps the system error, so its errno is the cause's.)
        if (errnoOf((created.error as { cause?: unknown }).cause) !== 'ENOENT') throw created.error;
        lease.forget();
      }
    }
    const dir = await openSaveDir(ctx, input);
    return await saveInDir(ctx, { dir, release: () => ctx.ops.close(dir.fd) }, input, content, signal, closing);
  } catch (error) {
    // A failed save closes its descriptors before it rejects, so that nothing of it is
    // still open when the caller learns of the failure (an unmount right after succeeds).
    await Promise.allSettled(closing);
    throw storageError(error, 'saving the spill file');
  } finally {
    void Promise.allSettled(closing).then(release);
  }
}

/**
 * Takes a save's descriptor permits. A long-lived save (a stream, a file sink) first takes
 * one of the stream slots, so that saves waiting on their caller never hold every permit.
 */
async function acquireSaveFds(ctx: SaveContext, signal: AbortSignal | undefined, longLived: boolean): Promise<() => void> {
  throwIfAborted(signal, 'The save');
  const slots = longLived ? ctx.streamSlots : undefined;
  const releaseSlot = slots === undefined ? () => undefined : await acquireOrAbort(slots, 1, signal);
  let releasePermits: () => void;
  try {
    releasePermits = await acquireOrAbort(ctx.semaphore, SAVE_FDS, signal);
  } catch (error) {
    releaseSlot();
    throw error;
  }
  return () => {
    releasePermits();
    releaseSlot();
  };
}

async function openSaveDir(ctx: SaveContext, input: Envelope): Promise<OpenSessionDir> {
  const dir = await ctx.guard.openSessionDir(sessionDirName(input.owner.sessionId), true);
  if (dir === undefined) throw spillError('SPILL_STORAGE_FAILED', 'The session directory could not be created.');
  return dir;
}

async function createTemp(ctx: SaveContext, dir: OpenSessionDir, flags: number): Promise<{ fd: number; name: string }> {
  for (let attempt = 1; ; attempt++) {
    const name = tempName();
    try {
      const fd = await ctx.ops.open(dir.at(name), flags, 0o600);
      return { fd, name };
    } catch (error) {
      if (errnoOf(error) === 'EEXIST' && attempt < TEMP_TRIES) continue;
      throw storageError(error, `creating a temp file in ${dir.path}`);
    }
  }
}

/** A private temp file, created and checked, not yet published. */
interface TempFile {
  readonly fd: number;
  readonly name: string;
  /** What was opened, to compare with what the paths lead to later. */
  readonly opened: Stats;
}

/** Whether the descriptor opened is a private regular file of ours with one link. */
function isPrivateFile(ctx: SaveContext, opened: Stats): boolean {
  return opened.isFile() && opened.nlink === 1 && (ctx.guard.euid < 0 || opened.uid === ctx.guard.euid);
}

/**
 * Verifies a temp file just created (the check after the open). When it fails the file
 * is removed where the path leads now, but only if that is the very file opened (the
 * caller still closes `fd`), and the save is refused.
 */
async function refuseMisplaced(ctx: SaveContext, dir: OpenSessionDir, temp: string, opened: Stats): Promise<never> {
  const here = await ctx.ops.lstat(path.join(dir.path, temp)).catch(() => undefined);
  if (here !== undefined && sameIdentity(here, opened)) await ctx.ops.unlink(path.join(dir.path, temp)).catch(() => undefined);
  throw unsafe(`The temp file in ${dir.path} is not where it was created; the session directory was swapped or tampered with. Nothing was written.`);
}

/**
 * Fixes the mode only when the umask narrowed it below 0600 (it can never widen it), so
 * the common case costs no system call.
 */
async function fixMode(ctx: SaveContext, fd: number, opened: Stats): Promise<void> {
  if ((opened.mode & 0o777) !== 0o600) await ctx.ops.fchmod(fd, 0o600);
}

/**
 * Creates and checks a temp file for a file sink: open for reading and writing, mode
 * exactly 0600, verified to be where it was created. On failure nothing is left.
 */
async function openCheckedTemp(ctx: SaveContext, dir: OpenSessionDir): Promise<TempFile> {
  const { fd, name } = await createTemp(ctx, dir, SINK_CREATE_FLAGS);
  try {
    const opened = await ctx.ops.fstat(fd);
    if (!isPrivateFile(ctx, opened) || !(await inPlace(ctx, dir, name, opened))) return await refuseMisplaced(ctx, dir, name, opened);
    await fixMode(ctx, fd, opened);
    return { fd, name, opened };
  } catch (error) {
    await ctx.ops.close(fd).catch(() => undefined);
    throw error;
  }
}

/**
 * Takes an incoming file (see incoming.ts) over as a sink's temp file: the private regular
 * file of ours, with one link, that `incoming.fd` is open on and that this root's incoming
 * directory holds under `incoming`'s name is linked into the session directory under a
 * fresh temp name, its incoming name removed, and checked where it landed as a created one
 * is. The descriptor is then the sink's. On failure the descriptor stays the caller's, with
 * the output still readable through it.
 */
async function adoptIncoming(ctx: SaveContext, dir: OpenSessionDir, incoming: IncomingFile): Promise<TempFile> {
  const { ops } = ctx;
  const name = path.basename(incoming.path);
  const incomingDir = path.join((await ctx.guard.root()).path, INCOMING_DIR);
  const from = path.join(incomingDir, name);
  const [opened, dirAt, fileAt] = await Promise.all([
    ops.fstat(incoming.fd),
    ops.lstat(incomingDir).catch(() => undefined),
    ops.lstat(from).catch(() => undefined),
  ]);
  const privateDir = dirAt !== undefined && dirAt.isDirectory() && (ctx.guard.euid < 0 || dirAt.uid === ctx.guard.euid) && (dirAt.mode & 0o077) === 0;
  if (!TEMP_RE.test(name) || !privateDir || !isPrivateFile(ctx, opened) || fileAt === undefined || !sameIdentity(fileAt, opened)) {
    throw unsafe(`${incoming.path} is not an incoming file of this root (a private file of ours in ${incomingDir}); nothing was moved.`);
  }
  for (let attempt = 1; ; attempt++) {
    const temp = tempName();
    try {
      await ops.link(from, dir.at(temp));
    } catch (error) {
      if (errnoOf(error) === 'EEXIST' && attempt < TEMP_TRIES) continue;
      throw storageError(error, `moving the incoming file into ${dir.path}`);
    }
    try {
      await ops.unlink(from);
    } catch (error) {
      await ops.unlink(dir.at(temp)).catch(() => undefined);
      throw storageError(error, `removing the incoming file's name ${from}`);
    }
    const moved = await ops.fstat(incoming.fd);
    if (!isPrivateFile(ctx, moved) || !(await inPlace(ctx, dir, temp, moved))) return refuseMisplaced(ctx, dir, temp, moved);
    await fixMode(ctx, incoming.fd, moved);
    return { fd: incoming.fd, name: temp, opened: moved };
  }
}

/**
 * Writes and publishes in `held.dir`; closes the file and releases the directory, pushing
 * both on `closing`.
 */
async function saveInDir(
  ctx: SaveContext,
  held: { readonly dir: OpenSessionDir; readonly release: () => Promise<void> },
  input: Envelope,
  content: ContentSource,
  signal: AbortSignal | undefined,
  closing: Promise<unknown>[],
  precreated?: { fd: number; name: string },
): Promise<SpillRef> {
  const { ops } = ctx;
  const { dir } = held;
  let created: { fd: number; name: string };
  try {
    created = precreated ?? (await createTemp(ctx, dir, TEMP_CREATE_FLAGS));
  } catch (error) {
    closing.push(held.release());
    throw error;
  }
  const { fd, name: temp } = created;
  const state = { tempLinked: true };
  try {
    // A text's encoding needs at most three bytes per code unit: a small save must not
    // allocate the whole batching buffer (64 saves in flight made 64 MiB of garbage).
    const bufferBytes = content.kind === 'text' ? Math.min(ctx.writeBufferBytes, content.text.length * 3) : ctx.writeBufferBytes;
    const writer = new FileWriter(ops, fd, bufferBytes);
    let opened: Stats;
    let bytes: number;
    if (content.kind === 'text' && ctx.guard.anchored) {
      // Created exclusively through the checked directory's own descriptor, the file cannot
      // be anywhere else, so its bytes go out while it is verified. Where its names lead is
      // proved once, after publishing: the locator must lead to this very file. If the
      // check fails, the content is wiped through the descriptor.
      const writing = writer.writeText(content.text).then(() => writer.end());
      writing.catch(() => undefined);
      const checked = await ops.fstat(fd);
      if (!isPrivateFile(ctx, checked)) {
        state.tempLinked = false;
        await writing.catch(() => undefined);
        await ops.ftruncate(fd, 0).catch(() => undefined);
        await refuseMisplaced(ctx, dir, temp, checked);
      }
      opened = checked;
      [bytes] = await Promise.all([writing, fixMode(ctx, fd, opened)]);
    } else {
      opened = await ops.fstat(fd);
      if (!isPrivateFile(ctx, opened) || !(await inPlace(ctx, dir, temp, opened))) {
        // The file may sit wherever a swap pointed: it is still empty.
        state.tempLinked = false;
        await refuseMisplaced(ctx, dir, temp, opened);
      }
      await fixMode(ctx, fd, opened);
      if (content.kind === 'text') {
        await writer.writeText(content.text);
      } else {
        await pump(writer, content.chunks, signal);
      }
      bytes = await writer.end();
    }
    return await publishTemp(ctx, dir, { fd, name: temp, opened }, input.suggestedName, bytes, signal, state);
  } catch (error) {
    if (state.tempLinked) await ops.unlink(dir.at(temp)).catch(() => undefined);
    throw error;
  } finally {
    closing.push(ops.close(fd), held.release());
  }
}

/**
 * Publishes a written temp file: re-checks its place without /proc anchoring, fsyncs when
 * durable, links it to a fresh final name (no clobber), removes the temp name and checks
 * that the locator leads to the file written. On failure the final name is removed;
 * `state.tempLinked` says whether the caller must still remove the temp name.
 */
async function publishTemp(
  ctx: SaveContext,
  dir: OpenSessionDir,
  file: TempFile,
  suggestedName: string,
  bytes: number,
  signal: AbortSignal | undefined,
  state: { tempLinked: boolean },
): Promise<SpillRef> {
  const { ops } = ctx;
  const { fd, name: temp, opened } = file;
  let published: string | undefined;
  try {
    if (!ctx.guard.anchored && !(await inPlace(ctx, dir, temp, opened))) {
      // Without /proc a well-timed swap can fool the first check; if this one sees it,
      // wipe the content through the descriptor, wherever the file ended up.
      state.tempLinked = false;
      await ops.ftruncate(fd, 0).catch(() => undefined);
      throw unsafe(`The session directory ${dir.path} was swapped while the spill file was written; its content was wiped and nothing was published.`);
    }
    if (ctx.durable) await ops.fsync(fd);
    throwIfAborted(signal, 'The save');

    for (let attempt = 1; published === undefined; attempt++) {
      const leaf = leafName(suggestedName);
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
        state.tempLinked = false;
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
    throw error;
  }
}

/**
 * Opens a file sink: the same permits, session directory, exclusive no-follow 0600 temp
 * file and check after the open as a save, with the descriptor open for reading too and
 * handed to the caller. The permits are held until the handle is published or discarded.
 */
export async function openFileSink(ctx: SaveContext, input: Envelope, signal: AbortSignal | undefined, incoming?: IncomingFile): Promise<SpillFileSinkHandle> {
  // A sink's holder writes to its descriptor, not through this backend, so it takes no
  // stream slot: the slots exist for producers that may wait on the backend itself.
  const release = await acquireSaveFds(ctx, signal, false);
  const { ops } = ctx;
  let dir: OpenSessionDir | undefined;
  let file: TempFile;
  try {
    throwIfAborted(signal, 'Opening the file sink');
    dir = await openSaveDir(ctx, input);
    file = incoming === undefined ? await openCheckedTemp(ctx, dir) : await adoptIncoming(ctx, dir, incoming);
  } catch (error) {
    if (dir !== undefined) await ops.close(dir.fd).catch(() => undefined);
    release();
    throw storageError(error, 'opening the spill file');
  }
  const openDir = dir;
  const state = { tempLinked: true };
  let published = false;
  let closed: Promise<void> | undefined;
  const live = (what: string, writing: boolean): void => {
    if (closed !== undefined) throw spillError('SPILL_STORAGE_FAILED', `The file sink is closed; ${what} needs a new one.`);
    if (writing && published) throw spillError('SPILL_STORAGE_FAILED', `The file sink was published, and a published artifact never changes; ${what} needs a new one.`);
  };
  return {
    fd: file.fd,
    async write(bytes: Uint8Array, position: number): Promise<void> {
      live('writing', true);
      let done = 0;
      while (done < bytes.length) {
        let n: number;
        try {
          n = await ops.write(file.fd, bytes, done, bytes.length - done, position + done);
        } catch (error) {
          throw storageError(error, 'writing the spill file');
        }
        if (!Number.isInteger(n) || n <= 0) {
          throw storageError(Object.assign(new Error('write made no progress'), { code: 'EIO' }), 'writing the spill file');
        }
        done += n;
      }
    },
    async read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
      live('reading', false);
      try {
        return await ops.read(file.fd, buffer, offset, length, position);
      } catch (error) {
        throw storageError(error, 'reading the spill file back');
      }
    },
    async size(): Promise<number> {
      live('measuring', false);
      try {
        return (await ops.fstat(file.fd)).size;
      } catch (error) {
        throw storageError(error, 'measuring the spill file');
      }
    },
    async truncate(length: number): Promise<void> {
      live('truncating', true);
      try {
        await ops.ftruncate(file.fd, length);
      } catch (error) {
        throw storageError(error, 'truncating the spill file');
      }
    },
    async freeBytes(): Promise<number | undefined> {
      live('measuring free space', false);
      return ops.freeBytes(openDir.path).catch(() => undefined);
    },
    async publish(options?: SpillCallOptions): Promise<SpillRef> {
      live('publishing', true);
      published = true;
      try {
        const size = (await ops.fstat(file.fd)).size;
        return await publishTemp(ctx, openDir, file, input.suggestedName, size, options?.signal, state);
      } catch (error) {
        if (state.tempLinked) await ops.unlink(openDir.at(file.name)).catch(() => undefined);
        state.tempLinked = false;
        throw storageError(error, 'publishing the spill file');
      }
    },
    close(): Promise<void> {
      closed ??= (async () => {
        if (state.tempLinked) await ops.unlink(openDir.at(file.name)).catch(() => undefined);
        state.tempLinked = false;
        await Promise.allSettled([ops.close(file.fd), ops.close(openDir.fd)]);
        release();
      })();
      return closed;
    },
  };
}
