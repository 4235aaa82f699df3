// The health of the store spills go to, for `spillway doctor`: read only, nothing made.
import { lstatSync, statfsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AUTO_GC_STAMP, type AutoGcSettings } from './auto-gc.js';
import { shellWord } from './cli-error.js';

/** Below this much free space a spill may fail; doctor warns. */
export const LOW_SPACE_BYTES = 1024 ** 3;

/** A finding about the store. `STORE_UNSAFE` counts as not covered (spills would fail); `STORE_LOW_SPACE` is a warning. */
export interface StoreFinding {
  readonly code: 'STORE_UNSAFE' | 'STORE_LOW_SPACE';
  readonly message: string;
  /** A command that fixes it, as printed, or `null`. */
  readonly hint: string | null;
}

/** What doctor says about the store. Fields that do not apply are `null`. */
export interface StoreHealth {
  /** `local` (a root) or `object-store` (`--store`/`SPILLWAY_STORE`, not probed). */
  readonly kind: 'local' | 'object-store';
  readonly root: string | null;
  /** Where the root came from: `option`, `env` or `default`. */
  readonly rootSource: string | null;
  readonly url: string | null;
  /** Whether the root exists; `null` when it cannot be checked (see `checkError`). */
  readonly exists: boolean | null;
  /** The code of the error that kept `lstat` from checking the root (`EACCES`, `ENOTDIR`, `ELOOP`…); `null` when it could, or when the root is simply missing (`ENOENT`). */
  readonly checkError: string | null;
  /** The root's mode, as four octal digits. */
  readonly mode: string | null;
  /** Whether the root is a directory of yours that nobody else can enter. */
  readonly private: boolean | null;
  /** Free and total bytes of the filesystem the root is on (`fs.statfs`; the nearest existing folder when the root is missing). */
  readonly freeBytes: number | null;
  readonly totalBytes: number | null;
  /** When the root was last swept automatically (ISO time), or `null` for never. */
  readonly lastAutoCleanup: string | null;
  readonly autoCleanup: { readonly enabled: boolean; readonly maxAgeMs: number; readonly maxTotalBytes: number; readonly intervalMs: number };
  /** The search index file and its size with its journal (`null` when there is none yet). */
  readonly searchIndex: { readonly path: string; readonly bytes: number | null } | null;
  readonly findings: readonly StoreFinding[];
}

function euid(): number | undefined {
  return typeof process.geteuid === 'function' ? process.geteuid() : undefined;
}

function nearestExisting(path: string): string {
  for (let at = path; ; at = dirname(at)) {
    try {
      lstatSync(at);
      return at;
    } catch {
      if (dirname(at) === at) return at;
    }
  }
}

/** The size of an SQLite index with its `-wal` and `-shm` files, or `null` when none exists. */
export function indexBytes(path: string): number | null {
  let total: number | null = null;
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      const st = lstatSync(file);
      if (st.isFile()) total = (total ?? 0) + st.size;
    } catch {
      // Not there.
    }
  }
  return total;
}

/**
 * The health of a local root: whether it exists and is private, the free space under it,
 * the last automatic sweep and the search index's size. A missing root is a finding
 * (`STORE_UNSAFE`) unless it is the default one (`rootSource` `default`), which the first
 * spill makes; a root that `lstat` cannot reach (any error but ENOENT) is one whatever its
 * source. `rootOption` is the `--root` to put in hints (`undefined` when the root is not
 * from `--root`).
 */
export function localStoreHealth(
  root: string,
  rootSource: string,
  rootOption: string | undefined,
  settings: AutoGcSettings,
  indexPath: string,
): StoreHealth {
  const findings: StoreFinding[] = [];
  let exists: boolean | null = false;
  let checkError: string | null = null;
  let mode: string | null = null;
  let isPrivate: boolean | null = null;
  try {
    const st = lstatSync(root);
    exists = true;
    mode = (st.mode & 0o7777).toString(8).padStart(4, '0');
    const me = euid();
    const yours = me === undefined || st.uid === me;
    isPrivate = st.isDirectory() && yours && (st.mode & 0o077) === 0;
    if (!isPrivate) {
      const fixable = st.isDirectory() && yours;
      findings.push({
        code: 'STORE_UNSAFE',
        message: `The root ${root} is ${!st.isDirectory() ? 'not a directory' : !yours ? `another user's (uid ${String(st.uid)})` : `open to other users (mode ${mode})`}; spillway refuses to store there, so nothing is spilled.${fixable ? '' : ' Point SPILLWAY_ROOT at a private directory of yours.'}`,
        hint: fixable ? `chmod 700 ${shellWord(root)}` : null,
      });
    }
  } catch (error) {
    const named = rootSource === 'default' ? undefined : rootSource === 'env' ? 'SPILLWAY_ROOT' : '--root';
    const code = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
    if (code !== 'ENOENT') {
      // Only ENOENT says the root is missing. EACCES, ENOTDIR or ELOOP on the way to it say
      // nothing of the root, and the first spill could not make it either.
      exists = null;
      checkError = code;
      const where = named === undefined ? '' : ` (from ${named})`;
      const fallback = named === undefined ? '' : ' (run, mcp and the hook store in the default root instead)';
      const instead = named === undefined ? 'point SPILLWAY_ROOT at a private directory of yours' : rootSource === 'env' ? 'unset SPILLWAY_ROOT to use the default root' : 'leave --root out to use the default root';
      findings.push({
        code: 'STORE_UNSAFE',
        message: `The root ${root}${where} cannot be checked: lstat failed with ${code}, so every spill there fails${fallback}. Check the directories above it: each must be a directory you may enter (a file on the way gives ENOTDIR, a symbolic link loop ELOOP, a directory you may not search EACCES). Or ${instead}.`,
        hint: null,
      });
    } else if (named !== undefined) {
      // Only the default root is made on the first spill; a named one must exist already.
      findings.push({
        code: 'STORE_UNSAFE',
        message: `The root ${root} (from ${named}) does not exist, and a root named by ${named} is never created: the other commands refuse it (SPILL_UNSAFE_ROOT), and run, mcp and the hook store in the default root instead. Create it with mode 0700, or ${rootSource === 'env' ? 'unset SPILLWAY_ROOT to use the default root' : 'leave --root out to use the default root'}.`,
        hint: `mkdir -m 700 ${shellWord(root)}`,
      });
    }
  }
  let freeBytes: number | null = null;
  let totalBytes: number | null = null;
  try {
    const fs = statfsSync(nearestExisting(root));
    freeBytes = fs.bavail * fs.bsize;
    totalBytes = fs.blocks * fs.bsize;
  } catch {
    // A filesystem that cannot say.
  }
  if (freeBytes !== null && freeBytes < LOW_SPACE_BYTES) {
    const where = rootOption === undefined ? '' : ` --root ${shellWord(rootOption)}`;
    findings.push({
      code: 'STORE_LOW_SPACE',
      message: `Only ${String(freeBytes)} bytes are free under ${root}; a spill that does not fit is not stored.`,
      hint: exists && isPrivate === true ? `spillway gc${where} --older-than 1d` : null,
    });
  }
  let lastAutoCleanup: string | null = null;
  try {
    const stamp = lstatSync(join(root, AUTO_GC_STAMP));
    if (stamp.isFile()) lastAutoCleanup = new Date(stamp.mtimeMs).toISOString();
  } catch {
    // Never swept.
  }
  return {
    kind: 'local',
    root,
    rootSource,
    url: null,
    exists,
    checkError,
    mode,
    private: isPrivate,
    freeBytes,
    totalBytes,
    lastAutoCleanup,
    autoCleanup: { enabled: settings.enabled, maxAgeMs: settings.maxAgeMs, maxTotalBytes: settings.maxTotalBytes, intervalMs: settings.intervalMs },
    searchIndex: { path: indexPath, bytes: indexBytes(indexPath) },
    findings,
  };
}

/** An object store is not probed (that would need credentials and a network): its URL and its index cache. */
export function objectStoreHealth(url: string, settings: AutoGcSettings, indexPath: string): StoreHealth {
  return {
    kind: 'object-store',
    root: null,
    rootSource: null,
    url,
    exists: null,
    checkError: null,
    mode: null,
    private: null,
    freeBytes: null,
    totalBytes: null,
    lastAutoCleanup: null,
    autoCleanup: { enabled: settings.enabled, maxAgeMs: settings.maxAgeMs, maxTotalBytes: settings.maxTotalBytes, intervalMs: settings.intervalMs },
    searchIndex: indexPath === ':memory:' ? null : { path: indexPath, bytes: indexBytes(indexPath) },
    findings: [],
  };
}
