// Temporary directories for this package's tests (excluded from the build by its name).
import { mkdtempSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';

/**
 * A maker of fresh temporary directories named after `prefix`; every directory it made is
 * removed after each test of the calling file.
 */
export function tempDirsPerTest(prefix: string): () => string {
  const made: string[] = [];
  afterEach(async () => {
    // Retried with a growing wait (up to about 11 s each, side by side): a detached child the
    // test started (a cleanup, an indexer) may still be writing there on a loaded machine.
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })));
  }, 30_000);
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/**
 * Makes a fresh temporary directory named after `prefix` before the calling file's tests
 * and removes it after them all; `use` receives it.
 */
export function tempBasePerFile(prefix: string, use: (dir: string) => void | Promise<void>): void {
  let base: string | undefined;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), prefix));
    await use(base);
  });
  afterAll(async () => {
    if (base !== undefined) await rm(base, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
}

/** Creates `dir` readable by its owner alone (0700, whatever the umask), as a spill root must be. */
export async function makePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { mode: 0o700 });
  await chmod(dir, 0o700);
}

/** The directories {@link privateRootPerFile} makes. */
export interface PrivateRootDirs {
  /** The temporary base holding the others, for whatever else a test makes. */
  readonly base: string;
  /** A private (0700) spill root. */
  readonly root: string;
  /** A private (0700) home, so that a run never reaches the real one. */
  readonly home: string;
}

/**
 * Before the calling file's tests: a fresh temporary base (see {@link tempBasePerFile})
 * holding a private `root` and `home`; removed after them all. `use` receives the paths.
 */
export function privateRootPerFile(prefix: string, use: (dirs: PrivateRootDirs) => void): void {
  tempBasePerFile(prefix, async (base) => {
    const dirs = { base, root: join(base, 'root'), home: join(base, 'home') };
    await makePrivateDir(dirs.root);
    await makePrivateDir(dirs.home);
    use(dirs);
  });
}
