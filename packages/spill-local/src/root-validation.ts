import os from 'node:os';
import path from 'node:path';
import type { Stats } from 'node:fs';
import { errnoOf, storageError, unsafe } from './errors.js';
import { aboveRootProblem, prefixes } from './above-root.js';
import { DIR_OPEN_FLAGS } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';

/** The mode of every directory the backend creates. */
export const PRIVATE_DIR_MODE = 0o700;

/** A directory's identity: what was checked, to compare with what is opened later. */
export interface Identity {
  readonly dev: number;
  readonly ino: number;
}

/** The root after validation. */
export interface CheckedRoot extends Identity {
  /** Canonical absolute path (symlinks above it resolved). */
  readonly path: string;
}

/** What the root's validation (and the guard) needs to know. */
export interface RootGuardConfig {
  readonly ops: FsOps;
  /** Absolute configured root, or undefined for a lazily created temp root. */
  readonly root: string | undefined;
  readonly createRoot: boolean;
  /** Directory under which the lazy root is made; defaults to `os.tmpdir()`. */
  readonly tmpDir?: string | undefined;
  /** Force (true/false) or auto-detect (undefined) `/proc/self/fd` anchoring. */
  readonly procFd?: boolean | undefined;
  /** The effective uid to require as owner; defaults to `process.geteuid()`. */
  readonly euid?: number | undefined;
}

/** Whether two stats name the same file (device and inode). */
export function sameIdentity(a: Identity, b: Identity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}


/**
 * The one-time validation of the spill root: resolves it, checks everything above it
 * (OpenSSH style), creates it when allowed (0700 whatever the umask, fixed through a
 * no-follow descriptor), and finds out whether `/proc/self/fd` anchoring works. The
 * {@link RootGuard} runs it once and caches the answer; session directories are its own
 * business.
 */
export class RootValidator {
  readonly #cfg: RootGuardConfig;
  readonly #ops: FsOps;
  /** The effective uid files must belong to. */
  readonly euid: number;
  /** Whether paths are anchored through `/proc/self/fd`; known after the first validation. */
  proc: boolean | undefined;

  constructor(cfg: RootGuardConfig) {
    this.#cfg = cfg;
    this.#ops = cfg.ops;
    this.euid = cfg.euid ?? process.geteuid?.() ?? -1;
    this.proc = cfg.procFd;
  }

  /** The path that names `leaf` inside the directory open as `fd`, whose path is `dirPath`. */
  at(fd: number, dirPath: string, leaf: string): string {
    return this.proc === true ? `/proc/self/fd/${fd}/${leaf}` : path.join(dirPath, leaf);
  }

  /**
   * Checks that `st` is a private directory we own: a directory, owned by the effective
   * uid, with no group or other permission bits.
   */
  privateDirProblem(st: Stats): string | undefined {
    if (!st.isDirectory()) return st.isSymbolicLink() ? 'is a symbolic link' : 'is not a directory';
    if (this.euid >= 0 && st.uid !== this.euid) return `is owned by uid ${st.uid}, not by this process (uid ${this.euid})`;
    if ((st.mode & 0o077) !== 0) return `has mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')}, which lets other users in (want 0700)`;
    return undefined;
  }

  /** Opens a directory just made (or found made by a concurrent save) without following links. */
  async openCreatedDir(target: string, shown: string, created: boolean): Promise<number> {
    try {
      return await this.#ops.open(target, DIR_OPEN_FLAGS);
    } catch (error) {
      const errno = errnoOf(error);
      if (errno === 'EACCES' && created) {
        // The umask removed our own read bit, so the directory cannot be opened to fix its
        // mode through a descriptor, and it is never chmod-ed through a path.
        await this.#ops.rmdir(target).catch(() => undefined);
        throw unsafe(
          `Cannot open the directory ${shown} just created: the process umask removed the owner's permissions. Use a umask such as 077 or 022.`,
          error,
        );
      }
      if (errno === 'ELOOP' || errno === 'ENOTDIR') throw unsafe(`${shown} was replaced by a symbolic link or a non-directory; refusing to use it.`, error);
      throw storageError(error, `opening the directory ${shown}`);
    }
  }

  /** Validates (and creates, when allowed) the root; the caller caches the answer. */
  async validate(): Promise<CheckedRoot> {
    const configured = this.#cfg.root;
    let rootPath: string;
    let created = false;
    if (configured === undefined) {
      const tmp = path.resolve(this.#cfg.tmpDir ?? os.tmpdir());
      const tmpReal = await this.#realpath(tmp, 'the temp directory');
      await this.#checkAncestors(tmp, tmpReal);
      try {
        rootPath = await this.#ops.mkdtemp(path.join(tmpReal, 'spillway-'));
      } catch (error) {
        throw storageError(error, `creating a private spill root under ${tmpReal}`);
      }
      created = true;
    } else {
      rootPath = configured;
      let exists = true;
      try {
        await this.#ops.lstat(rootPath);
      } catch (error) {
        if (errnoOf(error) !== 'ENOENT') throw storageError(error, `checking the spill root ${rootPath}`);
        exists = false;
      }
      if (!exists) {
        if (!this.#cfg.createRoot) {
          throw unsafe(`The spill root ${rootPath} does not exist; create it with mode 0700 or pass createRoot: true.`);
        }
        created = await this.#createMissing(rootPath);
      }
    }

    const parentReal = await this.#realpath(path.dirname(rootPath), 'the spill root\'s parent directory');
    await this.#checkAncestors(path.dirname(rootPath), parentReal);
    const real = path.join(parentReal, path.basename(rootPath));

    let fd: number;
    try {
      fd = await this.#ops.open(real, DIR_OPEN_FLAGS);
    } catch (error) {
      const errno = errnoOf(error);
      // Linux answers ENOTDIR, not ELOOP, for O_DIRECTORY|O_NOFOLLOW on a symlink, so look.
      if (errno === 'ELOOP' || errno === 'ENOTDIR') {
        const isLink = errno === 'ELOOP' || (await this.#ops.lstat(real).then((st) => st.isSymbolicLink(), () => false));
        if (isLink) {
          throw unsafe(
            `The spill root ${real} is a symbolic link, which is never followed. Pass the real directory it points to as the root, or replace the link with a directory of mode 0700.`,
            error,
          );
        }
        throw unsafe(`The spill root ${real} is not a directory. Pass a directory of mode 0700 as the root, or a path that does not exist yet with createRoot: true.`, error);
      }
      if (errno === 'ENOENT') throw unsafe(`The spill root ${real} disappeared while it was being checked.`, error);
      if (errno === 'EACCES' && created && configured === undefined) {
        // A umask without the owner's read bit made the temporary root unopenable; it is
        // never chmod-ed through a path, so remove it and say what to change.
        await this.#ops.rmdir(real).catch(() => undefined);
        throw unsafe(
          `Cannot open the temporary spill root ${real} just created: the process umask removed the owner's permissions. Use a umask such as 077 or 022.`,
          error,
        );
      }
      throw storageError(error, `opening the spill root ${real}`);
    }
    try {
      if (this.proc === undefined) this.proc = await this.#probeProc(fd);
      if (created) await this.#ops.fchmod(fd, PRIVATE_DIR_MODE);
      const st = await this.#ops.fstat(fd);
      const problem = this.privateDirProblem(st);
      if (problem !== undefined) {
        throw unsafe(`The spill root ${real} ${problem}. It is never fixed automatically: run chmod 700 on it (and chown it to this user) or choose another root.`);
      }
      const again = await this.#ops.lstat(real);
      if (!sameIdentity(again, st) || !again.isDirectory()) {
        throw unsafe(`The spill root ${real} changed while it was being checked; refusing to use it.`);
      }
      return { path: real, dev: st.dev, ino: st.ino };
    } finally {
      await this.#ops.close(fd).catch(() => undefined);
    }
  }

  async #realpath(p: string, what: string): Promise<string> {
    try {
      return await this.#ops.realpath(p);
    } catch (error) {
      const errno = errnoOf(error);
      if (errno === 'ENOENT' || errno === 'ENOTDIR' || errno === 'ELOOP') {
        throw unsafe(`Cannot resolve ${what} (${p}): ${errno}.`, error);
      }
      throw storageError(error, `resolving ${what} (${p})`);
    }
  }

  /**
   * OpenSSH-style check of everything above the root, both as written (a symlink on the
   * way must belong to root or us) and as resolved (each directory owned by root or us,
   * and not writable by group or others unless sticky, like /tmp).
   */
  async #checkAncestors(lexical: string, canonical: string): Promise<void> {
    for (const [chain, resolved] of [[lexical, false], [canonical, true]] as const) {
      for (const p of prefixes(chain)) {
        let st: Stats;
        try {
          st = await this.#ops.lstat(p);
        } catch (error) {
          throw storageError(error, `checking ${p} above the spill root`);
        }
        const problem = aboveRootProblem(p, st, this.euid, resolved);
        if (problem !== undefined) throw unsafe(problem);
      }
    }
  }

  /**
   * Creates a missing configured root and any missing parents, each 0700 whatever the
   * umask (fixed through a no-follow descriptor, never through a path).
   */
  async #createMissing(rootPath: string): Promise<boolean> {
    const chain = prefixes(rootPath);
    let firstMissing = chain.length - 1;
    while (firstMissing > 0) {
      const parent = chain[firstMissing - 1];
      if (parent === undefined) break;
      try {
        await this.#ops.lstat(parent);
        break;
      } catch (error) {
        if (errnoOf(error) !== 'ENOENT') throw storageError(error, `checking ${parent}`);
        firstMissing--;
      }
    }
    const existing = chain[firstMissing - 1] ?? '/';
    const existingReal = await this.#realpath(existing, 'the nearest existing parent of the spill root');
    await this.#checkAncestors(existing, existingReal);
    let parentPath = existingReal;
    let createdRoot = false;
    for (const p of chain.slice(firstMissing)) {
      const child = path.basename(p);
      let parentFd: number;
      try {
        parentFd = await this.#ops.open(parentPath, DIR_OPEN_FLAGS);
      } catch (error) {
        if (errnoOf(error) === 'ELOOP') throw unsafe(`${parentPath} became a symbolic link while the spill root was being created.`, error);
        throw storageError(error, `opening ${parentPath} to create the spill root`);
      }
      try {
        if (this.proc === undefined) this.proc = await this.#probeProc(parentFd);
        const target = this.at(parentFd, parentPath, child);
        let created = false;
        try {
          await this.#ops.mkdir(target, PRIVATE_DIR_MODE);
          created = true;
        } catch (error) {
          if (errnoOf(error) !== 'EEXIST') throw storageError(error, `creating ${path.join(parentPath, child)}`);
        }
        const fd = await this.openCreatedDir(target, path.join(parentPath, child), created);
        try {
          if (created) await this.#ops.fchmod(fd, PRIVATE_DIR_MODE);
          const st = await this.#ops.fstat(fd);
          const problem = this.privateDirProblem(st);
          if (problem !== undefined) throw unsafe(`${path.join(parentPath, child)}, on the way to the spill root, ${problem}.`);
        } finally {
          await this.#ops.close(fd).catch(() => undefined);
        }
        createdRoot = created;
      } finally {
        await this.#ops.close(parentFd).catch(() => undefined);
      }
      parentPath = path.join(parentPath, child);
    }
    return createdRoot;
  }

  async #probeProc(fd: number): Promise<boolean> {
    try {
      const [viaProc, direct] = await Promise.all([this.#ops.stat(`/proc/self/fd/${fd}`), this.#ops.fstat(fd)]);
      return sameIdentity(viaProc, direct);
    } catch {
      return false;
    }
  }
}
