import os from 'node:os';
import path from 'node:path';
import type { Stats } from 'node:fs';
import type { SpillErrorCode } from '@spillway/core';
import { errnoOf, spillError, storageError, unsafe } from './errors.js';
import { DIR_OPEN_FLAGS } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';

const S_ISVTX = 0o1000;
/** How many checked session directories the fast path remembers. */
const MAX_KNOWN_SESSIONS = 1024;
const PRIVATE_DIR_MODE = 0o700;

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

/** A session directory held open for one operation. */
export interface OpenSessionDir {
  /** The open directory descriptor. */
  readonly fd: number;
  /** Its canonical path, used to build locators. */
  readonly path: string;
  /** `session-<h>`. */
  readonly name: string;
  /** The path that reaches `leaf` inside exactly this directory (see {@link RootGuard.at}). */
  at(leaf: string): string;
}

/**
 * A session directory shared by the saves in flight at once (see
 * {@link RootGuard.leaseKnownSessionDir}). Nothing may be written through it until
 * `verify` resolves true.
 */
export interface SessionDirLease {
  readonly dir: OpenSessionDir;
  /** Whether the directory is the very one checked before; a recent answer is shared. */
  verify(): Promise<boolean>;
  /** Gives the lease back; the descriptor is closed when its last holder gives it back. */
  release(): Promise<void>;
  /** Stops sharing this directory (it was found removed); holders still release it. */
  forget(): void;
}

/** A shared, open session directory and how many saves hold it. */
interface SharedSessionDir {
  readonly dir: OpenSessionDir;
  /** The identity the directory had when it was first checked. */
  readonly known: Identity;
  refs: number;
  /** Set when the last holder gave it back and the descriptor was closed. */
  closed: boolean;
  /** The latest verification and when it started; joiners share it while it is fresh. */
  verified: Promise<boolean> | undefined;
  verifiedAt: number;
}

/**
 * How long one verification of a shared session directory answers for the saves that join
 * it. The checks are cheap, but under load they were a third of a small save's system
 * calls; the window is far shorter than any save that could race with a swap.
 */
const SHARED_VERIFY_MS = 50;

/** What the guard needs to know. */
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

/** The components of an absolute path: `/a/b` → `['/', '/a', '/a/b']`. */
function prefixes(absolute: string): string[] {
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
 * Validates the storage root and hands out session directories opened so that nothing
 * between the check and the use can redirect them.
 *
 * Where Linux's `/proc/self/fd` is available every path below the root is reached through
 * the magic link of an already-verified directory descriptor (`/proc/self/fd/<n>/name`),
 * which the kernel resolves to that exact directory however the path is renamed or
 * replaced afterwards; this is `openat(2)` for Node. Elsewhere the guard falls back to
 * plain paths and relies on the identity checks done after each open.
 */
export class RootGuard {
  readonly #cfg: RootGuardConfig;
  readonly #ops: FsOps;
  readonly #euid: number;
  #checked: Promise<CheckedRoot> | undefined;
  #proc: boolean | undefined;
  /** Session directories checked through the anchored root: name → identity, oldest first. */
  readonly #sessions = new Map<string, Identity>();
  /** Session directories open for saves in flight: name → the shared descriptor. */
  readonly #shared = new Map<string, Promise<SharedSessionDir | undefined>>();

  constructor(cfg: RootGuardConfig) {
    this.#cfg = cfg;
    this.#ops = cfg.ops;
    this.#euid = cfg.euid ?? process.geteuid?.() ?? -1;
    this.#proc = cfg.procFd;
  }

  /** Whether paths are anchored through `/proc/self/fd` (known after the first check). */
  get anchored(): boolean {
    return this.#proc === true;
  }

  /** The effective uid files must belong to. */
  get euid(): number {
    return this.#euid;
  }

  /** The path that names `leaf` inside the directory open as `fd`, whose path is `dirPath`. */
  at(fd: number, dirPath: string, leaf: string): string {
    return this.#proc === true ? `/proc/self/fd/${fd}/${leaf}` : path.join(dirPath, leaf);
  }

  /** The validated root; validates (and creates, when allowed) on first use. */
  root(): Promise<CheckedRoot> {
    if (this.#checked === undefined) {
      const pending = this.#validate();
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
    this.#shared.clear();
  }

  /**
   * Checks that `st` is a private directory we own: a directory, owned by the effective
   * uid, with no group or other permission bits.
   */
  privateDirProblem(st: Stats): string | undefined {
    if (!st.isDirectory()) return st.isSymbolicLink() ? 'is a symbolic link' : 'is not a directory';
    if (this.#euid >= 0 && st.uid !== this.#euid) return `is owned by uid ${st.uid}, not by this process (uid ${this.#euid})`;
    if ((st.mode & 0o077) !== 0) return `has mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')}, which lets other users in (want 0700)`;
    return undefined;
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
        fd = await this.#openCreatedDir(target, path.join(root.path, name), created);
      }
      if (created) await this.#ops.fchmod(fd, PRIVATE_DIR_MODE);
      const st = await this.#ops.fstat(fd);
      const problem = this.privateDirProblem(st);
      if (problem !== undefined) {
        throw spillError(problemCode, `The session directory ${path.join(root.path, name)} ${problem}; refusing to use it. Remove it so that it can be recreated privately.`);
      }
      if (this.#proc !== true) {
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
      if (this.#proc === true) this.#remember(name, st);
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
    if (known === undefined || this.#proc !== true) return undefined;
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
   * descriptor and, for {@link SHARED_VERIFY_MS}, one verification, instead of opening,
   * checking and closing the directory each. What a race could change after the check is
   * still caught per save: the file is created through the descriptor, checked after the
   * open, and its locator is checked to lead to it after publishing. Resolves undefined
   * when the directory was never checked (the caller takes the full path).
   */
  async leaseKnownSessionDir(name: string): Promise<SessionDirLease | undefined> {
    for (;;) {
      let pending = this.#shared.get(name);
      if (pending === undefined) {
        if (this.#proc !== true || !this.#sessions.has(name)) return undefined;
        // Opened once for every save that arrives meanwhile.
        pending = this.#openShared(name);
        this.#shared.set(name, pending);
      }
      const entry = await pending;
      if (entry === undefined) {
        if (this.#shared.get(name) === pending) this.#shared.delete(name);
        return undefined;
      }
      // Its last holder gave it back while this save waited: open it afresh.
      if (entry.closed) continue;
      return this.#lease(name, entry, pending);
    }
  }

  async #openShared(name: string): Promise<SharedSessionDir | undefined> {
    const known = this.#sessions.get(name);
    const opened = await this.openKnownSessionDir(name);
    if (opened === undefined) return undefined;
    if (known === undefined) {
      await this.#ops.close(opened.dir.fd).catch(() => undefined);
      return undefined;
    }
    return { dir: opened.dir, known, refs: 0, closed: false, verified: opened.verify(), verifiedAt: Date.now() };
  }

  #lease(name: string, entry: SharedSessionDir, pending: Promise<SharedSessionDir | undefined>): SessionDirLease {
    entry.refs++;
    let released = false;
    const forget = (): void => {
      if (this.#shared.get(name) === pending) this.#shared.delete(name);
    };
    return {
      dir: entry.dir,
      forget,
      verify: () => {
        const now = Date.now();
        if (entry.verified === undefined || now - entry.verifiedAt > SHARED_VERIFY_MS || now < entry.verifiedAt) {
          entry.verifiedAt = now;
          entry.verified = this.#verifyShared(name, entry);
          // A directory that failed its check is shared no more; its holders still release it.
          void entry.verified.then((ok) => { if (!ok) forget(); });
        }
        return entry.verified;
      },
      release: async () => {
        if (released) return;
        released = true;
        entry.refs--;
        if (entry.refs > 0) return;
        entry.closed = true;
        forget();
        await this.#ops.close(entry.dir.fd).catch(() => undefined);
      },
    };
  }

  /** The checks of {@link openKnownSessionDir}'s `verify`, on a descriptor already open. */
  async #verifyShared(name: string, entry: SharedSessionDir): Promise<boolean> {
    try {
      const root = await this.root();
      // The descriptor is held across saves, so unlike a fresh open it does not show where
      // the path leads now: look at the path too.
      const [st, rootNow, atPath] = await Promise.all([
        this.#ops.fstat(entry.dir.fd),
        this.#ops.lstat(root.path),
        this.#ops.lstat(entry.dir.path),
      ]);
      if (
        sameIdentity(rootNow, root) &&
        this.privateDirProblem(rootNow) === undefined &&
        sameIdentity(st, entry.known) &&
        sameIdentity(atPath, st) &&
        atPath.isDirectory() &&
        this.privateDirProblem(st) === undefined &&
        entry.dir.path === path.join(root.path, name)
      ) {
        return true;
      }
    } catch {
      // fall through: the caller takes the full path
    }
    this.#sessions.delete(name);
    return false;
  }

  /** Opens a directory just made (or found made by a concurrent save) without following links. */
  async #openCreatedDir(target: string, shown: string, created: boolean): Promise<number> {
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

  async #validate(): Promise<CheckedRoot> {
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
      if (this.#proc === undefined) this.#proc = await this.#probeProc(fd);
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
    for (const p of prefixes(lexical)) {
      let st: Stats;
      try {
        st = await this.#ops.lstat(p);
      } catch (error) {
        throw storageError(error, `checking ${p} above the spill root`);
      }
      if (st.isSymbolicLink()) {
        if (st.uid !== 0 && st.uid !== this.#euid) {
          throw unsafe(`${p}, above the spill root, is a symbolic link owned by another user (uid ${st.uid}); refusing to go through it.`);
        }
      } else {
        this.#checkAncestorDir(p, st);
      }
    }
    for (const p of prefixes(canonical)) {
      let st: Stats;
      try {
        st = await this.#ops.lstat(p);
      } catch (error) {
        throw storageError(error, `checking ${p} above the spill root`);
      }
      if (st.isSymbolicLink()) throw unsafe(`${p}, above the spill root, changed into a symbolic link while it was being checked.`);
      this.#checkAncestorDir(p, st);
    }
  }

  #checkAncestorDir(p: string, st: Stats): void {
    if (!st.isDirectory()) throw unsafe(`${p}, above the spill root, is not a directory.`);
    if (st.uid !== 0 && st.uid !== this.#euid) {
      throw unsafe(`${p}, above the spill root, is owned by another user (uid ${st.uid}), who could swap the root; choose a root under a directory you or root own.`);
    }
    if ((st.mode & 0o022) !== 0 && (st.mode & S_ISVTX) === 0) {
      throw unsafe(`${p}, above the spill root, is writable by group or others and not sticky, so others could swap the root; choose another root.`);
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
        if (this.#proc === undefined) this.#proc = await this.#probeProc(parentFd);
        const target = this.at(parentFd, parentPath, child);
        let created = false;
        try {
          await this.#ops.mkdir(target, PRIVATE_DIR_MODE);
          created = true;
        } catch (error) {
          if (errnoOf(error) !== 'EEXIST') throw storageError(error, `creating ${path.join(parentPath, child)}`);
        }
        const fd = await this.#openCreatedDir(target, path.join(parentPath, child), created);
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
