/**
 * Reading and writing a person's host config safely. Setup runs inside whatever project
 * the person is in, and a cloned repository controls that project's files (git stores
 * symlinks), so every config is opened as untrusted: a project file may not lead outside
 * the project, only regular files of bounded size are read (never a FIFO or a device), and
 * a write keeps the file's owner, group and mode exactly.
 */
import { closeSync, constants, fchmodSync, fchownSync, fstatSync, fsyncSync, lstatSync, openSync, readSync, realpathSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, relative, isAbsolute } from 'node:path';
import type { ConfigFileSpec } from './types.js';

import { MAX_CONFIG_BYTES } from './limits.js';

/** Why a config file is left alone; the message says what to do. */
export class ConfigRefusal extends Error {
  override readonly name = 'ConfigRefusal';
}

/** What was found at a config path. */
export interface ConfigFileState {
  /** The file setup reads and writes: the path itself, or the target of a link that may be followed. */
  readonly target: string;
  /** The bytes, or `undefined` when there is no file yet. */
  readonly bytes: Buffer | undefined;
  /** Identity, owner and mode of the file read (absent for a new file). */
  readonly info: { readonly dev: number; readonly ino: number; readonly uid: number; readonly gid: number; readonly mode: number } | undefined;
}

function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The real path a file not yet made would have: the nearest existing folder's, plus the rest. */
function realpathOfNew(path: string): string {
  const rest: string[] = [];
  let at = path;
  for (;;) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(at) === at) throw error;
      rest.push(basename(at));
      at = dirname(at);
    }
  }
}

/** Up to `size` bytes of an opened file, from its start (fewer when it shrank meanwhile). */
export function readOpened(fd: number, size: number): Buffer {
  const bytes = Buffer.alloc(size);
  let done = 0;
  while (done < bytes.length) {
    const n = readSync(fd, bytes, done, bytes.length - done, done);
    if (n === 0) break;
    done += n;
  }
  return bytes.subarray(0, done);
}

function euid(): number {
  return process.geteuid?.() ?? -1;
}

/**
 * Where `spec.path` leads. A user-level config may be a link (a dotfiles checkout) and is
 * written through to its target; a project-level config may be a link only to a file
 * inside the project, so that a cloned repository cannot aim setup at `~/.bashrc`.
 */
function resolveTarget(spec: ConfigFileSpec, projectDir: string): string {
  let isLink = false;
  try {
    isLink = lstatSync(spec.path).isSymbolicLink();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (spec.scope !== 'project') return isLink ? realpathSync(spec.path) : spec.path;
  const project = realpathSync(projectDir);
  let where: string;
  try {
    where = realpathSync(spec.path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (isLink) throw new ConfigRefusal(`${spec.path} is a link to a file that does not exist; setup does not create files through links. Remove the link or point it at a file inside the project.`);
    where = realpathOfNew(spec.path);
  }
  if (!inside(where, project)) {
    throw new ConfigRefusal(`${spec.path} leads outside the project (to ${where}); setup writes a project's config only inside the project. Replace the link with a real file if it is yours.`);
  }
  return where;
}

/**
 * Reads a config file for setup or undo. Refuses (with {@link ConfigRefusal}) a path that
 * is not a regular file, one over {@link MAX_CONFIG_BYTES}, a project file that leads
 * outside the project, and a file owned by another user unless the caller is root.
 */
export function readConfigFile(spec: ConfigFileSpec, projectDir: string): ConfigFileState {
  const target = resolveTarget(spec, projectDir);
  let fd: number;
  try {
    // No following and no waiting: a FIFO or a device must not hang or flood setup.
    fd = openSync(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { target, bytes: undefined, info: undefined };
    if (code === 'ELOOP') throw new ConfigRefusal(`${target} is a link setup will not follow; point the host at a real file.`);
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ConfigRefusal(`${target} is not a regular file (a directory, FIFO or device); setup reads only regular files.`);
    if (stat.size > MAX_CONFIG_BYTES) {
      throw new ConfigRefusal(`${target} is ${String(stat.size)} bytes, more than the ${String(MAX_CONFIG_BYTES)} setup reads; a host config that large is not one setup edits.`);
    }
    const me = euid();
    if (me !== 0 && me !== -1 && stat.uid !== me) {
      throw new ConfigRefusal(`${target} belongs to user ${String(stat.uid)}, not to you; setup edits only your own files.`);
    }
    return { target, bytes: readOpened(fd, stat.size), info: { dev: stat.dev, ino: stat.ino, uid: stat.uid, gid: stat.gid, mode: stat.mode & 0o7777 } };
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `bytes` over a config read by {@link readConfigFile}, atomically: a private temp
 * file beside the target, given the old file's mode exactly (whatever the umask) and, when
 * root writes another user's file, its owner and group, then renamed over it. A read-only
 * file is refused rather than replaced. `mode` (undo's original mode) overrides the old file's.
 */
export function writeConfigFile(state: ConfigFileState, bytes: Uint8Array, mode?: number): void {
  const { target, info } = state;
  if (info !== undefined && (info.mode & 0o200) === 0) {
    throw new ConfigRefusal(`${target} is read-only (mode ${info.mode.toString(8).padStart(4, '0')}); make it writable (chmod u+w) to let setup change it, or leave it as it is.`);
  }
  replaceAtomically(target, bytes, (fd) => {
    fchmodSync(fd, mode ?? info?.mode ?? 0o600);
    if (info !== undefined && euid() === 0) fchownSync(fd, info.uid, info.gid);
  });
}

/**
 * Replaces `target` with `bytes` atomically: an exclusive, no-follow, 0600 temp file beside
 * it, every byte written, `prepare` run on its descriptor (mode, owner), synced, then
 * renamed over the target. On any failure the temp file is removed and nothing changed.
 */
export function replaceAtomically(target: string, bytes: Uint8Array, prepare?: (fd: number) => void): void {
  const temp = join(dirname(target), `.${basename(target)}.spillway-${randomBytes(6).toString('hex')}`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done);
    prepare?.(fd);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
