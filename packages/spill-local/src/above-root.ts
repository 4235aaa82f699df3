/**
 * The rule for what lies above a root (OpenSSH's, for the directories above a key file):
 * nobody but this user or root may be able to swap the root. Written once for the root's
 * validation and for incoming files (`incoming.ts`), which must not load the rest of the
 * backend; so this module imports only Node's own.
 */
import path from 'node:path';
import type { Stats } from 'node:fs';

const S_ISVTX = 0o1000;

/** The components of an absolute path: `/a/b` → `['/', '/a', '/a/b']`. */
export function prefixes(absolute: string): string[] {
  const out: string[] = [];
  let current = absolute;
  for (;;) {
    out.push(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return out.reverse();
}

/**
 * What is wrong with `p`, above the root, as `st` (its `lstat`) shows it to user `euid`;
 * `undefined` when nothing. On the path as written (`resolved` false) a symbolic link may
 * be passed through when root or this user owns it; on the resolved path none may appear.
 * Each directory must be owned by root or this user, and not writable by group or others
 * unless sticky (like /tmp).
 */
export function aboveRootProblem(p: string, st: Stats, euid: number, resolved: boolean): string | undefined {
  if (st.isSymbolicLink()) {
    if (resolved) return `${p}, above the spill root, changed into a symbolic link while it was being checked.`;
    return st.uid !== 0 && st.uid !== euid ? `${p}, above the spill root, is a symbolic link owned by another user (uid ${String(st.uid)}); refusing to go through it.` : undefined;
  }
  if (!st.isDirectory()) return `${p}, above the spill root, is not a directory.`;
  if (st.uid !== 0 && st.uid !== euid) {
    return `${p}, above the spill root, is owned by another user (uid ${String(st.uid)}), who could swap the root; choose a root under a directory you or root own.`;
  }
  if ((st.mode & 0o022) !== 0 && (st.mode & S_ISVTX) === 0) {
    return `${p}, above the spill root, is writable by group or others and not sticky, so others could swap the root; choose another root.`;
  }
  return undefined;
}
