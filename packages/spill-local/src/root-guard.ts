import path from 'node:path';
import type { Stats } from 'node:fs';
import type { SpillErrorCode } from '@spillway/core';
import { errnoOf, spillError, storageError, unsafe } from './errors.js';
import { DIR_OPEN_FLAGS } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';
import { PRIVATE_DIR_MODE, RootValidator, sameIdentity } from './root-validation.js';
import type { CheckedRoot, Identity, RootGuardConfig } from './root-validation.js';
import { SessionDirLeases } from './session-dir-leases.js';
import type { OpenSessionDir, SessionDirLease } from './session-dir-leases.js';

export { sameIdentity };
export type { CheckedRoot, Identity, OpenSessionDir, RootGuardConfig, SessionDirLease };

/** How many checked session directories the fast path remembers. */
const MAX_KNOWN_SESSIONS = 1024;

/**
 * Validates the storage root (once, through {@link RootValidator}) and hands out session
 * directories opened so that nothing between the check and the use can redirect them,
 * remembering the ones it checked (and sharing them between saves in flight through
 * {@link SessionDirLeases}).
 *
 * Where Linux's `/proc/self/fd` is available every path below the root is reached through
 * the magic link of an already-verified directory descriptor (`/proc/self/fd/<n>/name`),
 * which the kernel resolves to that exact directory however the path is renamed or
 * replaced afterwards; this is `openat(2)` for Node. Elsewhere the guard falls back to
 * plain paths and relies on the identity checks done after each open.
 */
export class RootGuard {
  readonly #check: RootValidator;
  readonly #ops: FsOps;
  #checked: Promise<CheckedRoot> | undefined;
  /** Session directories checked through the anchored root: name → identity, oldest first. */
  readonly #sessions = new Map<string, Identity>();
  readonly #leases: SessionDirLeases;

  constructor(cfg: RootGuardConfig) {
    this.#check = new RootValidator(cfg);
    this.#ops = cfg.ops;
    this.#leases = new SessionDirLeases({
      ops: cfg.ops,
      anchored: () => this.anchored,
      knownSessionDir: (name) => this.#sessions.get(name),
      forgetSessionDir: (name) => {
        this.#sessions.delete(name);
      },
      openKnownSessionDir: (name) => this.openKnownSessionDir(name),
      root: () => this.root(),
      privateDirProblem: (st) => this.privateDirProblem(st),
    });
  }

  /** Whether paths are anchored through `/proc/self/fd` (known after the first check). */
  get anchored(): boolean {
    return this.#check.proc === true;
  }

  /** The effective uid files must belong to. */
  get euid(): number {
    return this.#check.euid;
  }

  /** The path that names `leaf` inside the directory open as `fd`, whose path is `dirPath`. */
  at(fd: number, dirPath: string, leaf: string): string {
    return this.#check.at(fd, dirPath, leaf);
  }

  /** The validated root; validates (and creates, when allowed) on first use. */
  root(): Promise<CheckedRoot> {
    if (this.#checked === undefined) {
      const pending = this.#check.validate();
      this.#checked = pending;
      // A failed check is not cached: the next call checks again.
      pending.catch(() => {
        if (this.#checked === pending) this.#checked = undefined;
      });
    }
    return this.#checked;
  }

  /** Forgets the cached root so that the next use re-validates it from scratch. */
  invalidate(): void {
    this.#checked = undefined;
    this.#sessions.clear();
    // Holders keep their descriptors until they release them; nobody new joins.
    this.#leases.clear();
  }

  /**
   * Checks that `st` is a private directory we own: a directory, owned by the effective
   * uid, with no group or other permission bits.
   */
  privateDirProblem(st: Stats): string | undefined {
    return this.#check.privateDirProblem(st);
  }

  /**
   * Opens the root's directory and checks it is the one validated: same identity, still
   * private. If it changed (deleted and recreated, say) the root is re-validated once.
   * The caller closes the returned descriptor.
   */
  async openRoot(): Promise<{ root: CheckedRoot; fd: number }> {
    for (let attempt = 0; ; attempt++) {
      const root = await this.root();
      let fd: number;
      try {
        fd = await this.#ops.open(root.path, DIR_OPEN_FLAGS);
      } catch (error) {
        const errno = errnoOf(error);
        if (attempt === 0 && (errno === 'ENOENT' || errno === 'ELOOP' || errno === 'ENOTDIR')) {
          this.invalidate();
          continue;
        }
        if (errno === 'ELOOP' || errno === 'ENOTDIR') throw unsafe(`The spill root ${root.path} was replaced by something that is not a directory; refusing to use it.`, error);
        throw storageError(error, `opening the spill root ${root.path}`);
      }
      try {
        const st = await this.#ops.fstat(fd);
        const problem = this.privateDirProblem(st);
        if (problem !== undefined) throw unsafe(`The spill root ${root.path} ${problem}; fix it (chmod 700, chown to this user) or choose another root.`);
        if (!sameIdentity(st, root)) {
          if (attempt === 0) {
            this.invalidate();
            await this.#ops.close(fd).catch(() => undefined);
            continue;
          }
          throw unsafe(`The spill root ${root.path} changed while it was being opened; refusing to use it.`);
        }
        return { root, fd };
      } catch (error) {
        await this.#ops.close(fd).catch(() => undefined);
        throw error;
      }
    }
  }

  /**
   * Opens `<root>/<name>` (a session directory), creating it 0700 when `create` is set,
   * and checks it: a real directory (never followed through a symlink), owned by us, mode
   * `& 0o077 == 0`. Resolves `undefined` when it does not exist and `create` is false.
   * Problems with the session directory itself are raised with `problemCode` (the reader
   * passes `SPILL_INVALID_LOCATOR`). The caller closes the returned descriptor.
   */
  async openSessionDir(
    name: string,
    create: boolean,
    problemCode: SpillErrorCode = 'SPILL_UNSAFE_ROOT',
  ): Promise<OpenSessionDir | undefined> {
    const fast = await this.#openKnownSessionDir(name);
    if (fast !== undefined) return fast;
    const { root, fd: rootFd } = await this.openRoot();
    let fd: number | undefined;
    try {
      const target = this.at(rootFd, root.path, name);
      let created = false;
      try {
        fd = await this.#ops.open(target, DIR_OPEN_FLAGS);
      } catch (error) {
        const errno = errnoOf(error);
        if (errno === 'ELOOP' || errno === 'ENOTDIR') {
          throw spillError(problemCode, `The session directory ${path.join(root.path, name)} is a symbolic link or not a directory; refusing to use it. Remove it.`, error);
        }
        if (errno !== 'ENOENT') throw storageError(error, `opening the session directory ${path.join(root.path, name)}`);
        if (!create) return undefined;
        try {
          await this.#ops.mkdir(target, PRIVATE_DIR_MODE);
          created = true;
        } catch (mkdirError) {
          if (errnoOf(mkdirError) !== 'EEXIST') throw storageError(mkdirError, `creating the session directory ${path.join(root.path, name)}`);
        }
        fd = await this.#check.openCreatedDir(target, path.join(root.path, name), created);
      }
      if (created) await this.#ops.fchmod(fd, PRIVATE_DIR_MODE);
      const st = await this.#ops.fstat(fd);
      const problem = this.privateDirProblem(st);
      if (problem !== undefined) {
        throw spillError(problemCode, `The session directory ${path.join(root.path, name)} ${problem}; refusing to use it. Remove it so that it can be recreated privately.`);
      }
      if (this.#check.proc !== true) {
        // Without descriptor anchoring, check after the open that the path still leads to
        // what was opened and that the root is still the checked one.
        const [atPath, rootNow] = await Promise.all([
          this.#ops.lstat(path.join(root.path, name)),
          this.#ops.lstat(root.path),
        ]);
        if (!sameIdentity(atPath, st) || !sameIdentity(rootNow, root)) {
          throw spillError(problemCode, `The session directory ${path.join(root.path, name)} changed while it was being opened; refusing to use it.`);
        }
      }
      if (this.#check.proc === true) this.#remember(name, st);
      return this.#sessionDir(fd, root, name);
    } catch (error) {
      if (fd !== undefined) await this.#ops.close(fd).catch(() => undefined);
      throw error;
    } finally {
      await this.#ops.close(rootFd).catch(() => undefined);
    }
  }

  #sessionDir(fd: number, root: CheckedRoot, name: string): OpenSessionDir {
    const dirPath = path.join(root.path, name);
    return { fd, path: dirPath, name, at: (leaf) => this.at(fd, dirPath, leaf) };
  }

  /** Remembers a session directory's identity once it was checked through the anchored root. */
  #remember(name: string, st: Identity): void {
    this.#sessions.delete(name);
    this.#sessions.set(name, { dev: st.dev, ino: st.ino });
    if (this.#sessions.size > MAX_KNOWN_SESSIONS) {
      const oldest = this.#sessions.keys().next();
      if (oldest.done !== true) this.#sessions.delete(oldest.value);
    }
  }

  /**
   * The fast path for a session directory already checked through the anchored root: open
   * it by path (no-follow) while re-checking the root's path, and accept it only if it is
   * the very directory checked before (same device and inode), still private, under a root
   * that is still the checked one and still private. Anything else answers undefined and
   * the caller takes the full path, which re-validates and reports precisely.
   */
  async #openKnownSessionDir(name: string): Promise<OpenSessionDir | undefined> {
    const opened = await this.openKnownSessionDir(name);
    if (opened === undefined) return undefined;
    if (await opened.verify()) return opened.dir;
    await this.#ops.close(opened.dir.fd).catch(() => undefined);
    return undefined;
  }

  /**
   * The fast path in two halves, so that a save can create its temp file while the
   * directory is verified: opens a known session directory (see above) and hands it back
   * with `verify`, which resolves whether it is the very directory checked before. Until
   * `verify` says true nothing may be written through it; when it says false the caller
   * removes what it created there, closes the descriptor, and takes the full path.
   */
  async openKnownSessionDir(name: string): Promise<{ dir: OpenSessionDir; verify: () => Promise<boolean> } | undefined> {
    const known = this.#sessions.get(name);
    if (known === undefined || this.#check.proc !== true) return undefined;
    const root = await this.root();
    const [fd, rootNow] = await Promise.all([
      this.#ops.open(path.join(root.path, name), DIR_OPEN_FLAGS).catch(() => undefined),
      this.#ops.lstat(root.path).catch(() => undefined),
    ]);
    if (fd === undefined) return undefined;
    const verify = async (): Promise<boolean> => {
      try {
        const st = await this.#ops.fstat(fd);
        if (
          rootNow !== undefined &&
          sameIdentity(rootNow, root) &&
          this.privateDirProblem(rootNow) === undefined &&
          sameIdentity(st, known) &&
          this.privateDirProblem(st) === undefined
        ) {
          return true;
        }
      } catch {
        // fall through to the full path
      }
      this.#sessions.delete(name);
      return false;
    };
    return { dir: this.#sessionDir(fd, root, name), verify };
  }


  /**
   * {@link openKnownSessionDir} for saves: saves in flight at once in one session share one
   * descriptor and, for a short while, one verification (see {@link SessionDirLeases}).
   * Resolves undefined when the directory was never checked (the caller takes the full path).
   */
  leaseKnownSessionDir(name: string): Promise<SessionDirLease | undefined> {
    return this.#leases.lease(name);
  }
}
