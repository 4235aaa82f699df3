import os from 'node:os';
import path from 'node:path';
import { configInteger, configOptions } from '@spillway/backend-utils';
import { assertSaveRequestEnvelope, assertSaveTextRequest, assertSaveTextStreamRequest, SpillError, throwIfAborted } from '@spillway/core';
import type { NodeSpillBackend, OpenFileSinkSpill, SpillFileSink, SpillFileSinkHandle } from '@spillway/core/file-sink';
import { xdgBaseDir } from '@spillway/core/xdg';
import type { ListOptions, SaveBytesStreamSpill, SaveTextSpill, SaveTextStreamSpill, SpillCallOptions, SpillCatalog, SpillEntry, SpillLocator, SpillReader, SpillRef } from '@spillway/core';
import { deleteEntry, listEntries, listingVersion, sweepTemp } from './catalog.js';
import type { CatalogContext } from './catalog.js';
import { storageError } from './errors.js';
import { syncMetadataFsOps } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';
import { openArtifact, resolveLocator } from './locator.js';
import type { SpillByteSource, SpillRetrievalReader } from '@spillway/retrieval';
import { RootGuard } from './root-guard.js';
import { openFileSink, save, streamSlotCount } from './save.js';
import type { SaveContext } from './save.js';
import { Semaphore } from './semaphore.js';
import { saveBytesThroughSink } from './save-bytes.js';
import { WRITE_BUFFER_BYTES } from './file-writer.js';
import type { IncomingFile } from './incoming.js';

/** Options for {@link createLocalBackend}. */
export interface LocalBackendOptions {
  /**
   * The storage root: absolute, or resolved against the working directory when the
   * backend is created. It must be a real directory (not a symlink) owned by this user
   * with mode `& 0o077 == 0`, under directories that only root or this user can change.
   * Omitted: the per-user state root the `spillway` command uses,
   * `$XDG_STATE_HOME/spillway` or `~/.local/state/spillway` (see {@link defaultLocalRoot}),
   * created 0700 when missing and checked like any other root.
   */
  readonly root?: string;
  /**
   * When the configured root does not exist, create it (and missing parents), each
   * exactly 0700. Default false: a missing root is refused with `SPILL_UNSAFE_ROOT`. The
   * default root (no `root`) is always created when missing.
   */
  readonly createRoot?: boolean;
  /**
   * Use a private throwaway root instead: a fresh `mkdtemp` directory under `os.tmpdir()`,
   * made 0700 on first use and never removed by the backend (`backend.root()` names it).
   * `spillway ls` and `gc` do not see it. Cannot be combined with `root` or `createRoot`.
   * Default false.
   */
  readonly temporary?: boolean;
  /** fsync each file before publishing it and its directory after. Default false. */
  readonly durable?: boolean;
  /**
   * The most file descriptors the backend holds at once (each save, read or delete holds
   * two, and so does a listing while it reads one directory; each regex worker thread
   * four). Default 64; at least 2. Operations beyond the bound wait their turn in arrival
   * order.
   */
  readonly maxOpenFiles?: number;
}

/**
 * The catalog of a {@link LocalBackend}: list, delete, and `sweepTemp`, which removes the
 * `.tmp-…` files that a crashed or killed save left in session directories (regular files
 * of this user only; published artifacts are never touched). Pick an age longer than your
 * longest stream, such as an hour: a save in progress keeps its temp file until it publishes.
 * `listingVersion` is the session directory's identity and times, vouched for once they
 * are a second old.
 */
export type LocalCatalog = SpillCatalog & Required<Pick<SpillCatalog, 'sweepTemp' | 'listingVersion'>>;

/**
 * The local backend's file sink: the portable {@link SpillFileSink}, and `adopt`, which takes
 * over an output a command already writes into (see `@spillway/local/incoming`).
 */
export interface LocalFileSink extends SpillFileSink {
  /**
   * Opens a sink whose temp file is `incoming`, an incoming file of this root made by
   * `openIncomingFile` (the same root, its `.incoming` directory): it is moved into the
   * session directory, with the checks a created temp file gets, and written on from where
   * it is. Once this resolves the handle owns `incoming.fd` (close the handle, never the
   * descriptor); when it rejects the descriptor is still the caller's, and the bytes written
   * so far can still be read through it.
   *
   * @throws SpillError `SPILL_UNSAFE_ROOT` when `incoming` is not a private file of this
   * root's incoming directory (nothing is moved), else as `open` does.
   */
  adopt(input: OpenFileSinkSpill, incoming: IncomingFile, options?: SpillCallOptions): Promise<SpillFileSinkHandle>;
}

/**
 * The hardened private-file backend. Beyond the portable `SpillBackend` contract it offers
 * the Node-only file sink (`NodeSpillBackend` of `@spillway/core/file-sink`).
 */
export interface LocalBackend extends NodeSpillBackend {
  readonly name: 'local';
  /** Reads artifacts back by line range and searches them. */
  readonly reader: SpillReader & Required<Pick<SpillReader, 'readBytes'>>;
  /** Lists and deletes artifacts and sweeps leftover temp files. */
  readonly catalog: LocalCatalog;
  /**
   * Byte-exact storage through a descriptor on the private temp file: opened with every
   * check a save makes, published (or discarded) when the writing is done; or an incoming
   * file taken over as that temp file ({@link LocalFileSink.adopt}).
   */
  readonly fileSink: LocalFileSink;
  /** Resolves the root in use (validating it, and creating it when allowed, on first use). */
  root(): Promise<string>;
  /**
   * The directory for a search index of this root's artifacts: `<root>.search`, a sibling
   * of the root (see {@link NodeSpillBackend.indexHome}), so that the index never appears among
   * the artifacts and removing the root's parent removes both. Validates the root first.
   */
  indexHome(options?: SpillCallOptions): Promise<string>;
  /** Stores raw bytes exactly, through the file sink (see {@link NodeSpillBackend.saveBytesStream}). */
  saveBytesStream(input: SaveBytesStreamSpill, options?: SpillCallOptions): Promise<SpillRef>;
}

/** Bytes per positioned read of an artifact. */
const READ_BYTES = 64 * 1024;

/** Default {@link LocalBackendOptions.maxOpenFiles}. */
export const DEFAULT_MAX_OPEN_FILES = 64;
/**
 * The smallest accepted maxOpenFiles: the most descriptors one operation holds at once (a
 * save, a read, a delete or one step of a listing holds two). Any accepted value makes
 * progress, since no operation waits for permits while holding some, and a listing holds
 * none while its consumer works.
 */
export const MIN_MAX_OPEN_FILES = 2;

/**
 * Test seams, deliberately not part of the public API: fault-injecting fs operations,
 * forcing the non-`/proc` fallback, a fake clock.
 */
export interface LocalBackendInternals {
  readonly ops?: FsOps;
  readonly procFd?: boolean;
  readonly now?: () => number;
  /** Where a `temporary` root is made instead of `os.tmpdir()`. */
  readonly tmpDir?: string;
  readonly euid?: number;
  readonly writeBufferBytes?: number;
}

/** Every key {@link LocalBackendOptions} knows; anything else is a typo worth failing on. */
const KNOWN_OPTIONS: readonly string[] = ['root', 'createRoot', 'temporary', 'durable', 'maxOpenFiles'] satisfies readonly (keyof LocalBackendOptions)[];

/** `<root>.search`: the sibling of a root where a search index of its artifacts belongs. */
function indexHomeOf(root: string): string {
  return path.join(path.dirname(root), `${path.basename(root)}.search`);
}

/**
 * The per-user state root that {@link createLocalBackend} uses when no `root` is given,
 * and the `spillway` command too: `$XDG_STATE_HOME/spillway` when `XDG_STATE_HOME` is an
 * absolute path (a relative one is ignored, as the XDG spec asks), else
 * `~/.local/state/spillway`.
 *
 * @param env - the environment to read `XDG_STATE_HOME` from; defaults to `process.env`
 * @param home - the home directory; defaults to `os.homedir()`
 */
export function defaultLocalRoot(
  env: Readonly<Record<string, string | undefined>> = process.env,
  home: string = os.homedir(),
): string {
  return path.join(xdgBaseDir('state', env, home), 'spillway');
}

function checkOptions(options: unknown): {
  root: string | undefined;
  createRoot: boolean;
  durable: boolean;
  maxOpenFiles: number;
} {
  if (options === undefined) return { root: defaultLocalRoot(), createRoot: true, durable: false, maxOpenFiles: DEFAULT_MAX_OPEN_FILES };
  // A misspelt key (`rooot`) would otherwise silently fall back to a default, such as a
  // temporary root that vanishes with the machine.
  const { root, createRoot, temporary, durable, maxOpenFiles: maxOpenFilesOption } = configOptions('createLocalBackend', options, KNOWN_OPTIONS);
  if (temporary !== undefined && typeof temporary !== 'boolean') throw new TypeError('options.temporary must be a boolean.');
  if (temporary === true && (root !== undefined || createRoot !== undefined)) {
    throw new TypeError('options.temporary makes its own throwaway root: pass either temporary or root/createRoot, not both.');
  }
  if (root !== undefined) {
    if (typeof root !== 'string' || root.length === 0) throw new TypeError('options.root must be a non-empty path string.');
    if (root.includes('\0')) throw new TypeError('options.root must not contain a NUL character.');
  }
  if (createRoot !== undefined && typeof createRoot !== 'boolean') throw new TypeError('options.createRoot must be a boolean.');
  if (durable !== undefined && typeof durable !== 'boolean') throw new TypeError('options.durable must be a boolean.');
  const maxOpenFiles = configInteger('createLocalBackend', 'maxOpenFiles', maxOpenFilesOption, { min: MIN_MAX_OPEN_FILES, fallback: DEFAULT_MAX_OPEN_FILES });
  // undefined root below means the throwaway mkdtemp root; no root and no `temporary`
  // means the per-user state root, which is created when missing like the CLI's.
  const defaulted = root === undefined && temporary !== true;
  return {
    root: typeof root === 'string' ? path.resolve(root) : defaulted ? defaultLocalRoot() : undefined,
    createRoot: createRoot === true || defaulted,
    durable: durable === true,
    maxOpenFiles,
  };
}

/**
 * Builds a local backend with test seams. Internal: the package exports
 * {@link createLocalBackend} only.
 */
export function createLocalBackendWith(options: LocalBackendOptions | undefined, internals: LocalBackendInternals = {}): LocalBackend {
  const config = checkOptions(options);
  const ops = internals.ops ?? syncMetadataFsOps;
  const guard = new RootGuard({
    ops,
    root: config.root,
    createRoot: config.createRoot,
    tmpDir: internals.tmpDir,
    procFd: internals.procFd,
    euid: internals.euid,
  });
  const semaphore = new Semaphore(config.maxOpenFiles);
  const saveCtx: SaveContext = {
    ops,
    guard,
    semaphore,
    streamSlots: new Semaphore(streamSlotCount(config.maxOpenFiles)),
    durable: config.durable,
    writeBufferBytes: internals.writeBufferBytes ?? WRITE_BUFFER_BYTES,
  };
  const catalogCtx: CatalogContext = { ops, guard, semaphore, durable: config.durable, now: internals.now ?? Date.now };

  /**
   * Opens a locator as a byte source for the retrieval engine: resolved inside the root,
   * opened no-follow and non-blocking through the checked session directory, then pread.
   * Its two permits are held until the engine closes it.
   */
  async function openSource(locator: SpillLocator, signal: AbortSignal | undefined): Promise<SpillByteSource> {
    throwIfAborted(signal, 'The read');
    const resolved = await resolveLocator(guard, ops, locator);
    const release = await semaphore.acquire(2);
    try {
      const { fd, stats, dir } = await openArtifact(guard, ops, resolved);
      await ops.close(dir.fd).catch(() => undefined);
      return {
        size: stats.size,
        // Published files never change; the inode and mtime catch a replaced one anyway.
        cacheKey: `${resolved.canonical}\u0000${stats.dev}:${stats.ino}:${stats.mtimeMs}:${stats.size}`,
        preferredReadBytes: READ_BYTES,
        async read(position: number, length: number): Promise<Uint8Array> {
          const buffer = Buffer.allocUnsafe(length);
          try {
            const n = await ops.read(fd, buffer, 0, length, position);
            return buffer.subarray(0, n);
          } catch (error) {
            throw storageError(error, 'reading the spill file');
          }
        },
        async readInto(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
          try {
            return await ops.read(fd, buffer, offset, length, position);
          } catch (error) {
            throw storageError(error, 'reading the spill file');
          }
        },
        async close(): Promise<void> {
          await ops.close(fd).catch(() => undefined);
          release();
        },
      };
    } catch (error) {
      release();
      throw storageError(error, 'reading the spill file');
    }
  }

  // The retrieval engine (and its RE2 parser) is loaded on the first read or grep: a
  // process that only saves, such as `spillway run`, starts about 35 ms sooner without it.
  let engine: Promise<SpillRetrievalReader> | undefined;
  const loadEngine = (): Promise<SpillRetrievalReader> => {
    engine ??= import('@spillway/retrieval').then(
      ({ createSpillReader, WORKER_DESCRIPTORS }) =>
        createSpillReader({
          open: (locator, { signal }) => openSource(locator, signal),
          // Regex worker threads hold descriptors too: they take permits from the same
          // budget, and when none are free the grep runs on the linear engine in-process.
          workers: { reserve: () => semaphore.tryAcquire(WORKER_DESCRIPTORS) },
        }),
      (error: unknown) => {
        engine = undefined;
        throw new SpillError('SPILL_STORAGE_FAILED', 'The retrieval engine (@spillway/retrieval) could not be loaded; reinstall @spillway/local.', { cause: error });
      },
    );
    return engine;
  };
  const reader: SpillReader & Pick<SpillRetrievalReader, 'readBytes'> = {
    read: async (locator, options) => (await loadEngine()).read(locator, options),
    grep: async (locator, pattern, options) => (await loadEngine()).grep(locator, pattern, options),
    async *readBytes(locator, options) {
      yield* (await loadEngine()).readBytes(locator, options);
    },
  };

  const catalog: LocalCatalog = {
    list: (options?: ListOptions): AsyncIterable<SpillEntry> => listEntries(catalogCtx, options),
    delete: (locator: SpillLocator, options?: SpillCallOptions): Promise<boolean> => deleteEntry(catalogCtx, locator, options),
    sweepTemp: (options) => sweepTemp(catalogCtx, options),
    listingVersion: (options) => listingVersion(catalogCtx, options),
  };

  const fileSink: LocalFileSink = {
    open(input, options) {
      return (async () => {
        assertSaveRequestEnvelope(input);
        return openFileSink(saveCtx, input, options?.signal);
      })();
    },
    adopt(input, incoming, options) {
      return (async () => {
        assertSaveRequestEnvelope(input);
        // From JavaScript callers too: checked as untrusted input.
        const given = incoming as unknown as { fd?: unknown; path?: unknown } | null;
        if (typeof given !== 'object' || given === null || typeof given.fd !== 'number' || !Number.isInteger(given.fd) || given.fd < 0 || typeof given.path !== 'string') {
          throw new SpillError('SPILL_INVALID_INPUT', 'fileSink.adopt needs the incoming file that openIncomingFile of @spillway/local/incoming made: { fd, path }.');
        }
        return openFileSink(saveCtx, input, options?.signal, incoming);
      })();
    },
  };

  return {
    specificationVersion: 'v1',
    name: 'local',
    reader,
    catalog,
    fileSink,
    async root(): Promise<string> {
      return (await guard.root()).path;
    },
    async indexHome(options?: SpillCallOptions): Promise<string> {
      throwIfAborted(options?.signal, 'Finding the search index directory');
      return indexHomeOf((await guard.root()).path);
    },
    async saveText(input: SaveTextSpill, options?: SpillCallOptions): Promise<SpillRef> {
      assertSaveTextRequest(input);
      return save(saveCtx, input, { kind: 'text', text: input.content }, options?.signal);
    },
    async saveTextStream(input: SaveTextStreamSpill, options?: SpillCallOptions): Promise<SpillRef> {
      assertSaveTextStreamRequest(input);
      return save(saveCtx, input, { kind: 'stream', chunks: input.content }, options?.signal);
    },
    saveBytesStream: (input, options) => saveBytesThroughSink(fileSink, input, options),
  };
}

/**
 * Creates the hardened private-file backend. Files land at
 * `<root>/session-<h>/<random>-<safe-name>`; the locator is that absolute path.
 *
 * With no options the root is the per-user state root ({@link defaultLocalRoot}), shared
 * with the `spillway` command so that `spillway ls` and `gc` manage what a harness saved;
 * `{ temporary: true }` asks for a private throwaway root instead.
 *
 * @example
 * const backend = createLocalBackend({ root: '/home/me/.local/state/spillway', createRoot: true });
 * const ref = await backend.saveText({ owner: { sessionId: sessionId('s1') }, source, suggestedName: 'out.txt', content });
 * const page = await backend.reader.read(ref.locator, { offset: 1, limit: 100 });
 *
 * @throws TypeError when the options are malformed (an unknown key, a bad root, maxOpenFiles
 * below 2…).
 */
export function createLocalBackend(options?: LocalBackendOptions): LocalBackend {
  return createLocalBackendWith(options);
}
