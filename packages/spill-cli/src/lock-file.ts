import { closeSync, constants, lstatSync, openSync, unlinkSync, writeSync } from 'node:fs';

/** A lock older than this is taken for one left by a process that died. */
const STALE_LOCK_MS = 10 * 60_000;

/**
 * Takes a lock file (created with `O_EXCL`, never through a link), or answers false when
 * another live process holds it. One left by a dead process (older than ten minutes) is
 * taken over. Never throws.
 */
export function takeLockFile(path: string, now = Date.now()): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      writeSync(fd, `${process.pid} ${now}\n`);
      closeSync(fd);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      try {
        if (now - lstatSync(path).mtimeMs < STALE_LOCK_MS) return false;
        unlinkSync(path);
      } catch {
        return false;
      }
    }
  }
  return false;
}

/** Releases a lock file taken with {@link takeLockFile}. Never throws. */
export function releaseLockFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
