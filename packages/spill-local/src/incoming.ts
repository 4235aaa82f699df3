/**
 * Incoming files: a file a command writes its output into before anyone knows whether the
 * output will be stored. `spillway run` gives one to the command as its stdout, so that an
 * output past the cap is already on disk, written by the kernel, and the backend's file
 * sink takes the very file over ({@link LocalFileSink.adopt}) instead of copying it; an
 * output within the cap is read back and the file discarded.
 *
 * They live in `<root>/.incoming/`, a private directory of the root that no listing shows,
 * named as temp files are (`.tmp-` and 32 hex digits), so that `sweepTemp` removes one a
 * killed process left behind. This entry imports only Node's own modules: a command that
 * starts on every tool call loads it.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, realpathSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { aboveRootProblem, prefixes } from './above-root.js';

/** The root's directory of incoming files. */
export const INCOMING_DIR = '.incoming';

/** An incoming file: its descriptor, open for reading and writing, and its path. */
export interface IncomingFile {
  /** Open for reading and writing at offset 0; give it to a child as stdout and stderr. */
  readonly fd: number;
  /** `<root>/.incoming/.tmp-<32 hex digits>`. */
  readonly path: string;
}

const CREATE_FLAGS = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NOCTTY;
const TRIES = 4;

/**
 * Creates an incoming file in `root`, an absolute path to a private directory of this
 * user's, under which nobody else could swap it (the rule the backend checks the
 * directories above its root with). Makes `<root>/.incoming/` (mode 0700) when it is
 * missing, and refuses one that is not a private directory of this user's. Synchronous: a
 * few dozen system calls, no more.
 *
 * @throws Error with the system's code when the directory or the file cannot be made, or
 * `EACCES` when the root, a directory above it or the incoming directory fails the checks.
 */
export function openIncomingFile(root: string): IncomingFile {
  const problem = rootProblem(root);
  if (problem !== undefined) throw Object.assign(new Error(problem), { code: 'EACCES' });
  const dir = join(root, INCOMING_DIR);
  try {
    mkdirSync(dir, { mode: 0o700 });
    // Exactly 0700 whatever the umask, fixed through a descriptor that follows no link.
    const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    try {
      fchmodSync(fd, 0o700);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const st = lstatSync(dir);
  if (!st.isDirectory() || (process.geteuid !== undefined && st.uid !== process.geteuid()) || (st.mode & 0o077) !== 0) {
    throw Object.assign(new Error(`${dir} is not a private directory of this user's`), { code: 'EACCES' });
  }
  for (let attempt = 1; ; attempt++) {
    const path = join(dir, `.tmp-${randomBytes(16).toString('hex')}`);
    let fd: number;
    try {
      fd = openSync(path, CREATE_FLAGS, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= TRIES) throw error;
      continue;
    }
    const file = { fd, path };
    try {
      // Exactly 0600 whatever the umask, as the backend's own temp files.
      if ((fstatSync(fd).mode & 0o777) !== 0o600) fchmodSync(fd, 0o600);
    } catch (error) {
      discardIncomingFile(file);
      throw error;
    }
    return file;
  }
}

/** What keeps `root` from holding incoming files, or `undefined`. */
function rootProblem(root: string): string | undefined {
  if (!isAbsolute(root)) return `${root} is not an absolute path`;
  const euid = process.geteuid?.() ?? -1;
  const above = dirname(root);
  for (const [chain, resolved] of [[above, false], [realpathSync(above), true]] as const) {
    for (const p of prefixes(chain)) {
      const problem = aboveRootProblem(p, lstatSync(p), euid, resolved);
      if (problem !== undefined) return problem;
    }
  }
  const st = lstatSync(root);
  return st.isDirectory() && st.uid === euid && (st.mode & 0o077) === 0 ? undefined : `${root} is not a private directory of this user's`;
}

/** Removes an incoming file that nothing took over and closes its descriptor. Never throws. */
export function discardIncomingFile(file: IncomingFile): void {
  try {
    unlinkSync(file.path);
  } catch {
    // Gone already; sweepTemp would remove a leftover.
  }
  try {
    closeSync(file.fd);
  } catch {
    // Closed already.
  }
}
