import { spawn } from 'node:child_process';
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

/**
 * Starts `node <script> ...args` detached from this process, holding `lock` on its behalf
 * (taken here, before forking, so that a burst of callers starts one child; the child
 * releases it when done). Returns whether a child was started; a child that cannot start
 * releases the lock. Never throws.
 */
export function startLockedChild(lock: string, script: string, args: readonly string[], env: Readonly<Record<string, string | undefined>>, now = Date.now()): boolean {
  if (!takeLockFile(lock, now)) return false;
  try {
    const child = spawn(process.execPath, [script, ...args], { detached: true, stdio: 'ignore', env: { ...env } });
    child.on('error', () => {
      releaseLockFile(lock);
    });
    child.unref();
    return true;
  } catch {
    releaseLockFile(lock);
    return false;
  }
}
