/**
 * Shows a preview as the tool's own result, where the host allows it (see `FileDelivery` in
 * `@spillway/hosts/hook`): the preview is written into a private folder of the directory the
 * host reads without asking, and the host is asked to read it there.
 */
import { randomUUID } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** A directory of this user that no one else may write into, not reached through a link. */
function isPrivateDir(path: string): boolean {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined || !stat.isDirectory()) return false;
  const uid = process.getuid?.();
  return (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0;
}

/**
 * Writes `text` where the host reads it and answers the host's request to read it, or
 * answers `undefined` when it cannot (no directory in the input, a directory someone else
 * may write into, a text the file tool would cut, any error): the caller then answers the
 * host's other way. Never throws.
 */
export function deliverThroughFile(delivery: FileDelivery, input: unknown, text: string): Record<string, unknown> | undefined {
  try {
    const lines = linesForFileTool(delivery, text);
    if (lines === undefined || delivery.looksBinary(text)) return undefined;
    const dir = delivery.dir(input);
    if (dir === undefined || !isPrivateDir(dir)) return undefined;
    const folder = join(dir, DELIVERY_FOLDER);
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
    }
    const stat = lstatSync(folder);
    if (!stat.isDirectory() || (process.getuid !== undefined && stat.uid !== process.getuid()) || (stat.mode & 0o077) !== 0) return undefined;
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
