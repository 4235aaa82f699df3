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
import { closeSync, constants, lstatSync, mkdirSync, openSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

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
 * Creates an incoming file in `root` (which must be a private directory of this user's; the
 * caller checks). Makes `<root>/.incoming/` (mode 0700) when it is missing, and refuses one
 * that is not a private directory of this user's. Synchronous: a few system calls.
 *
 * @throws Error with the system's code when the directory or the file cannot be made, or
 * `EACCES` when the directory is not private.
 */
export function openIncomingFile(root: string): IncomingFile {
  const dir = join(root, INCOMING_DIR);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const st = lstatSync(dir);
  if (!st.isDirectory() || (process.geteuid !== undefined && st.uid !== process.geteuid()) || (st.mode & 0o077) !== 0) {
    throw Object.assign(new Error(`${dir} is not a private directory of this user's`), { code: 'EACCES' });
  }
  for (let attempt = 1; ; attempt++) {
    const path = join(dir, `.tmp-${randomBytes(16).toString('hex')}`);
    try {
      return { fd: openSync(path, CREATE_FLAGS, 0o600), path };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= TRIES) throw error;
    }
  }
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
