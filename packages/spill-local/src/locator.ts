import path from 'node:path';
import type { Stats } from 'node:fs';
import { errnoOf, spillError, storageError } from './errors.js';
import { READ_OPEN_FLAGS } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';
import { SESSION_DIR_RE, isLeafName } from './names.js';
import { sameIdentity } from './root-guard.js';
import type { OpenSessionDir, RootGuard } from './root-guard.js';

/** A locator that passed the lexical checks: which session directory, which leaf. */
export interface ResolvedLocator {
  readonly session: string;
  readonly leaf: string;
  /** The canonical locator (`<root>/<session>/<leaf>`). */
  readonly canonical: string;
}

/** An artifact opened for reading, with the session directory it was opened through. */
export interface OpenArtifact {
  readonly fd: number;
  readonly stats: Stats;
  readonly dir: OpenSessionDir;
  readonly locator: ResolvedLocator;
}

/** The longest locator worth looking at: Linux's PATH_MAX. */
export const MAX_LOCATOR_LENGTH = 4096;

function invalid(message: string, cause?: unknown): Error {
  return spillError('SPILL_INVALID_LOCATOR', message, cause);
}

/** A short, printable rendering of untrusted input for error messages. */
function show(value: string): string {
  const clipped = value.length > 120 ? `${value.slice(0, 120)}…` : value;
  return JSON.stringify(clipped);
}

/**
 * Checks an untrusted locator without touching the artifact: an absolute, normalised path
 * (no `.`/`..` segments, no doubled or trailing slash, no NUL) whose parent resolves to
 * exactly `<root>/session-<h>`, compared as path components after resolution (never as a
 * string prefix: `/tmp/root-evil` is not inside `/tmp/root`), and whose last segment has
 * the shape of a published leaf.
 */
export async function resolveLocator(guard: RootGuard, ops: FsOps, locator: unknown): Promise<ResolvedLocator> {
  if (typeof locator !== 'string' || locator.length === 0) {
    throw invalid('A locator must be the non-empty path string returned by a save.');
  }
  // Longer than any path the system accepts: refuse before any work over its length.
  if (locator.length > MAX_LOCATOR_LENGTH) {
    throw invalid(`The locator is ${locator.length} characters long, longer than any spill file's path (at most ${MAX_LOCATOR_LENGTH}).`);
  }
  if (locator.includes('\0')) throw invalid('A locator must not contain a NUL character.');
  if (!path.isAbsolute(locator)) {
    throw invalid(`The locator ${show(locator)} is not an absolute path; pass the full path returned by the save.`);
  }
  if (path.normalize(locator) !== locator || locator.endsWith('/')) {
    throw invalid(`The locator ${show(locator)} has '.', '..' or repeated slashes; pass the exact path returned by the save.`);
  }
  const root = await guard.root();
  const leaf = path.basename(locator);
  const parent = path.dirname(locator);
  if (!isLeafName(leaf)) throw invalid(`The locator ${show(locator)} does not name a spill file of this backend.`);

  let session: string | undefined;
  if (path.dirname(parent) === root.path && SESSION_DIR_RE.test(path.basename(parent))) {
    session = path.basename(parent);
  } else {
    // Another spelling of the root (a symlinked parent, say): resolve and compare parts.
    let real: string;
    try {
      real = await ops.realpath(parent);
    } catch (error) {
      throw invalid(`The locator ${show(locator)} is not inside the spill root ${root.path}.`, error);
    }
    const rel = path.relative(root.path, real);
    const parts = rel.split(path.sep);
    const first = parts[0];
    if (parts.length === 1 && first !== undefined && !path.isAbsolute(rel) && SESSION_DIR_RE.test(first)) {
      session = first;
    }
  }
  if (session === undefined) throw invalid(`The locator ${show(locator)} is not inside the spill root ${root.path}.`);
  return { session, leaf, canonical: path.join(root.path, session, leaf) };
}

/**
 * Opens a resolved locator through the checked session directory: no-follow, non-blocking
 * (a FIFO cannot hang the open), then requires a regular file owned by the effective uid
 * with exactly one link. The caller closes `fd` and `dir.fd`.
 */
export async function openArtifact(guard: RootGuard, ops: FsOps, resolved: ResolvedLocator): Promise<OpenArtifact> {
  const dir = await guard.openSessionDir(resolved.session, false, 'SPILL_INVALID_LOCATOR');
  if (dir === undefined) throw spillError('SPILL_NOT_FOUND', `Nothing is stored at ${resolved.canonical} (its session has no files).`);
  let fd: number | undefined;
  try {
    try {
      fd = await ops.open(dir.at(resolved.leaf), READ_OPEN_FLAGS);
    } catch (error) {
      const errno = errnoOf(error);
      if (errno === 'ENOENT') throw spillError('SPILL_NOT_FOUND', `Nothing is stored at ${resolved.canonical}; it may have been deleted.`, error);
      if (errno === 'ELOOP') throw invalid(`${resolved.canonical} is a symbolic link, not a spill file; refusing to follow it.`, error);
      if (errno === 'EISDIR' || errno === 'ENOTDIR' || errno === 'ENXIO') throw invalid(`${resolved.canonical} is not a regular spill file.`, error);
      throw storageError(error, `opening ${resolved.canonical}`);
    }
    const stats = await ops.fstat(fd);
    if (!stats.isFile()) throw invalid(`${resolved.canonical} is not a regular file (a FIFO, device, socket or directory); refusing to read it.`);
    if (guard.euid >= 0 && stats.uid !== guard.euid) throw invalid(`${resolved.canonical} belongs to another user (uid ${stats.uid}); refusing to read it.`);
    // Unlinked between our open and fstat (a concurrent delete): gone, not forged.
    if (stats.nlink === 0) throw spillError('SPILL_NOT_FOUND', `Nothing is stored at ${resolved.canonical}; it was deleted while it was being opened.`);
    if (stats.nlink !== 1) throw invalid(`${resolved.canonical} has ${stats.nlink} hard links, so it may be someone else's file; refusing to use it.`);
    if (!guard.anchored) {
      // Without /proc anchoring the open went through a path: check after it that the
      // session directory is still the one opened and the name still leads to this file.
      const [dirNow, dirOpened, leafNow] = await Promise.all([
        ops.lstat(dir.path).catch(() => undefined),
        ops.fstat(dir.fd),
        ops.lstat(path.join(dir.path, resolved.leaf)).catch(() => undefined),
      ]);
      if (dirNow === undefined || leafNow === undefined || !sameIdentity(dirNow, dirOpened) || !sameIdentity(leafNow, stats)) {
        throw invalid(`${resolved.canonical} changed while it was being opened (its directory was swapped); refusing to read it.`);
      }
    }
    return { fd, stats, dir, locator: resolved };
  } catch (error) {
    if (fd !== undefined) await ops.close(fd).catch(() => undefined);
    await ops.close(dir.fd).catch(() => undefined);
    throw error;
  }
}
