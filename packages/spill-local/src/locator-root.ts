import path from 'node:path';
import { SESSION_DIR_RE, isLeafName } from './names.js';

/**
 * The root a local locator names, read from its shape alone: for an absolute, normalised
 * `<root>/session-<h>/<leaf>` it answers `<root>`, otherwise `undefined`. Nothing is
 * touched on disk, and nothing is trusted: a backend made on this root checks it like any
 * other root (owner, mode, the directories above it) and resolves the locator inside it.
 * Tools use it to read back a locator printed under another root (`spillway read` does).
 */
export function localRootOf(locator: string): string | undefined {
  if (locator.includes('\0') || !path.isAbsolute(locator) || path.normalize(locator) !== locator || locator.endsWith('/')) {
    return undefined;
  }
  const sessionDir = path.dirname(locator);
  if (!isLeafName(path.basename(locator)) || !SESSION_DIR_RE.test(path.basename(sessionDir))) return undefined;
  const root = path.dirname(sessionDir);
  return root === sessionDir ? undefined : root;
}
