/**
 * Shows a preview as the tool's own result, where the host allows it (see `FileDelivery` in
 * `@spillway/hosts/hook`): the preview is written into a private folder of the directory the
 * host reads without asking, and the host is asked to read it there.
 */
import { randomUUID } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync, type Stats } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import type { FileDelivery } from '@spillway/hosts/hook';

/** The folder spillway writes into, inside the host's directory. */
export const DELIVERY_FOLDER = 'spillway';
/** A preview file older than this is removed by the next hook that writes one: the host reads it at once. */
const STALE_MS = 10 * 60_000;
const PREVIEW_FILE = /^preview-[0-9a-f-]{36}\.txt$/;

/** The number of lines of `text` when the host's file tool shows each whole, else `undefined`. */
export function linesForFileTool(delivery: FileDelivery, text: string): number | undefined {
  let lines = 0;
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    const stop = end < 0 ? text.length : end;
    if (stop - start > delivery.maxLineUnits) return undefined;
    lines++;
    start = stop + 1;
  }
  return lines;
}

/**
 * Whether `gid` is this user's private group: their primary group, named after them, with no
 * other member and no other user's primary group (by `/etc/group` and `/etc/passwd`; a group
 * found in neither, say from a directory service, is not). With a umask of 002 a user's
 * folders are writable by such a group, which holds no one else.
 */
function isOwnPrivateGroup(gid: number): boolean {
  if (process.getgid?.() !== gid) return false;
  try {
    const me = userInfo().username;
    const fields = (file: string): string[][] => readFileSync(file, 'utf8').split('\n').map((line) => line.split(':'));
    const group = fields('/etc/group').find((f) => f[2] === String(gid));
    if (group?.[0] !== me || (group[3] ?? '').trim() !== '') return false;
    return !fields('/etc/passwd').some((f) => f[3] === String(gid) && f[0] !== me);
  } catch {
    return false;
  }
}

/**
 * Whether no one but this user (and root) can rename, replace or add to what is in a folder:
 * it is theirs or root's, and no one else may write into it, unless it is sticky (others then
 * cannot rename or remove what is not theirs).
 */
function onlyOursToChange(stat: Stats): boolean {
  const me = process.getuid?.();
  if (me !== undefined && stat.uid !== me && stat.uid !== 0) return false;
  if ((stat.mode & 0o1000) !== 0) return true;
  if ((stat.mode & 0o002) !== 0) return false;
  return (stat.mode & 0o020) === 0 || isOwnPrivateGroup(stat.gid);
}

/**
 * Whether `path` and every folder above it are folders only this user and root can change:
 * a link on the way is allowed (the folder holding it is checked), as the folders of its
 * real path are by a second call.
 */
function safeChain(path: string): boolean {
  for (let p = path; ; p = dirname(p)) {
    const stat = lstatSync(p, { throwIfNoEntry: false });
    if (stat === undefined || !(stat.isDirectory() ? onlyOursToChange(stat) : stat.isSymbolicLink() && p !== path)) return false;
    if (dirname(p) === p) return true;
  }
}

/**
 * Writes `text` where the host reads it and answers the host's request to read it, or
 * answers `undefined` when it cannot (no directory in the input, a folder on the way that
 * someone else could change, a text the file tool would cut, any error): the caller then
 * answers the host's other way. Never throws.
 *
 * The host reads the file by its path later, so everything that path goes through must be
 * out of other users' reach: spillway's folder is this user's, 0700, not a link, and where
 * it should be once links are followed; the folders above it, on the path as given and on
 * its real path, are this user's or root's and writable by no one else (a sticky folder, or
 * one writable only by the user's private group, is fine).
 */
export function deliverThroughFile(delivery: FileDelivery, input: unknown, text: string): Record<string, unknown> | undefined {
  try {
    const lines = linesForFileTool(delivery, text);
    if (lines === undefined || delivery.looksBinary(text)) return undefined;
    const dir = delivery.dir(input);
    if (dir === undefined) return undefined;
    const real = realpathSync(dir);
    if (!safeChain(dir) || !safeChain(real)) return undefined;
    const folder = join(dir, DELIVERY_FOLDER);
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
    }
    const stat = lstatSync(folder);
    if (!stat.isDirectory() || (process.getuid !== undefined && stat.uid !== process.getuid()) || (stat.mode & 0o077) !== 0) return undefined;
    if (realpathSync(folder) !== join(real, DELIVERY_FOLDER)) return undefined;
    removeStale(folder);
    const file = join(folder, `preview-${randomUUID()}.txt`);
    writeFileSync(file, text, { flag: 'wx', mode: 0o600 });
    return delivery.answer(file, lines);
  } catch {
    return undefined;
  }
}

/** Removes preview files the host read long ago. */
function removeStale(folder: string): void {
  const now = Date.now();
  for (const name of readdirSync(folder)) {
    if (!PREVIEW_FILE.test(name)) continue;
    const path = join(folder, name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    // Another hook may be removing it at the same moment.
    if (stat?.isFile() === true && now - stat.mtimeMs > STALE_MS) rmSync(path, { force: true });
  }
}
