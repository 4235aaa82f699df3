/**
 * Where an index lives on disk, with the local backend's rules for private files: the
 * directory is created 0700, the database file 0600 (SQLite gives its journal files the
 * database's mode), and an existing path is used only when it is ours and private. A
 * symbolic link, a file owned by someone else, a group- or world-accessible directory or
 * a file with more than one link is refused with `SPILL_UNSAFE_ROOT`.
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, type Stats } from 'node:fs';
import path from 'node:path';
import { SpillError } from '@spillway/core';

/** The file name of an index inside its directory. */
export const INDEX_FILE_NAME = 'index.sqlite';

/**
 * The index directory for a local backend's root: a sibling of the root, named after it
 * (`<root>.search`), so that the index never appears among the artifacts and removing the
 * root's parent removes both. It is what the local backend's `indexHome` answers, for a
 * caller that has the root's path but no backend open.
 */
export function indexDirFor(localRoot: string): string {
  const resolved = path.resolve(localRoot);
  return path.join(path.dirname(resolved), `${path.basename(resolved)}.search`);
}

function euid(): number | undefined {
  return typeof process.geteuid === 'function' ? process.geteuid() : undefined;
}

function unsafe(message: string, cause?: unknown): SpillError {
  return new SpillError('SPILL_UNSAFE_ROOT', message, cause === undefined ? {} : { cause });
}

function errno(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/** The path's own status (a link is not followed), or `undefined` when nothing is there. */
function lstatOrNone(p: string): Stats | undefined {
  return lstatSync(p, { throwIfNoEntry: false });
}

// Metadata calls made synchronously: each takes microseconds, and the index is opened once
// per process, where the first asynchronous call would also start libuv's thread pool.
function ensurePrivateDir(dir: string): void {
  let st = lstatOrNone(dir);
  if (st === undefined) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if (errno(error) !== 'EEXIST') {
        throw new SpillError('SPILL_STORAGE_FAILED', `Cannot create the search index directory ${dir}: ${String(error)}`, { cause: error });
      }
    }
    st = lstatSync(dir);
  }
  const uid = euid();
  if (st.isSymbolicLink() || !st.isDirectory()) throw unsafe(`The search index directory ${dir} is not a directory (a symbolic link is refused). Remove it or pick another path.`);
  if (uid !== undefined && st.uid !== uid) throw unsafe(`The search index directory ${dir} belongs to another user. Remove it or pick another path.`);
  if ((st.mode & 0o077) !== 0) throw unsafe(`The search index directory ${dir} is accessible to other users (mode ${(st.mode & 0o777).toString(8)}); it must be 0700. Run: chmod 700 ${dir}`);
}

/**
 * Makes sure `file` can be opened as a private index: its directory is private (created
 * 0700 when missing) and the file is either absent (then created empty, 0600, without
 * following links) or a regular private file of ours with one link.
 */
export function preparePrivateIndexFile(file: string): void {
  ensurePrivateDir(path.dirname(file));
  let st = lstatOrNone(file);
  if (st === undefined) {
    try {
      closeSync(openSync(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600));
      return;
    } catch (error) {
      if (errno(error) !== 'EEXIST') {
        throw new SpillError('SPILL_STORAGE_FAILED', `Cannot create the search index ${file}: ${String(error)}`, { cause: error });
      }
    }
    st = lstatSync(file);
  }
  const uid = euid();
  if (st.isSymbolicLink() || !st.isFile()) throw unsafe(`The search index ${file} is not a regular file (a symbolic link is refused). Remove it; the index is rebuilt from the store.`);
  if (uid !== undefined && st.uid !== uid) throw unsafe(`The search index ${file} belongs to another user. Remove it; the index is rebuilt from the store.`);
  if (st.nlink !== 1) throw unsafe(`The search index ${file} has ${String(st.nlink)} links. Remove it; the index is rebuilt from the store.`);
  if ((st.mode & 0o077) !== 0) throw unsafe(`The search index ${file} is readable by other users (mode ${(st.mode & 0o777).toString(8)}). Remove it; the index is rebuilt from the store.`);
}
