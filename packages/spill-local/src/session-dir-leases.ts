import path from 'node:path';
import type { Stats } from 'node:fs';
import type { FsOps } from './fs-ops.js';
import { sameIdentity } from './root-validation.js';
import type { CheckedRoot, Identity } from './root-validation.js';

/** A session directory held open for one operation. */
export interface OpenSessionDir {
  /** The open directory descriptor. */
  readonly fd: number;
  /** Its canonical path, used to build locators. */
  readonly path: string;
  /** `session-<h>`. */
  readonly name: string;
  /** The path that reaches `leaf` inside exactly this directory (see `RootGuard.at`). */
  at(leaf: string): string;
}

/**
 * A session directory shared by the saves in flight at once (see
 * {@link SessionDirLeases.lease}). Nothing may be written through it until
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

/** What the leases need from the guard that checked the session directories. */
export interface LeaseSource {
  readonly ops: FsOps;
  /** Whether paths are anchored through `/proc/self/fd` (known once the root was checked). */
  anchored(): boolean;
  /** The identity a session directory had when it was checked, if it was. */
  knownSessionDir(name: string): Identity | undefined;
  /** Forgets a checked session directory: the next use takes the full path. */
  forgetSessionDir(name: string): void;
  /** Opens a checked session directory with a `verify` to call before writing through it. */
  openKnownSessionDir(name: string): Promise<{ dir: OpenSessionDir; verify: () => Promise<boolean> } | undefined>;
  root(): Promise<CheckedRoot>;
  privateDirProblem(st: Stats): string | undefined;
}

/**
 * Session directories shared by the saves in flight at once in one session: one
 * descriptor and, for {@link SHARED_VERIFY_MS}, one verification, instead of opening,
 * checking and closing the directory per save.
 */
export class SessionDirLeases {
  readonly #source: LeaseSource;
  /** Session directories open for saves in flight: name → the shared descriptor. */
  readonly #shared = new Map<string, Promise<SharedSessionDir | undefined>>();

  constructor(source: LeaseSource) {
    this.#source = source;
  }

  /** Stops sharing every directory; holders keep their descriptors until they release them. */
  clear(): void {
    this.#shared.clear();
  }

  /**
   * `RootGuard.openKnownSessionDir` for saves: saves in flight at once in one session share one
   * descriptor and, for {@link SHARED_VERIFY_MS}, one verification, instead of opening,
   * checking and closing the directory each. What a race could change after the check is
   * still caught per save: the file is created through the descriptor, checked after the
   * open, and its locator is checked to lead to it after publishing. Resolves undefined
   * when the directory was never checked (the caller takes the full path).
   */
  async lease(name: string): Promise<SessionDirLease | undefined> {
    for (;;) {
      let pending = this.#shared.get(name);
      if (pending === undefined) {
        if (!this.#source.anchored() || this.#source.knownSessionDir(name) === undefined) return undefined;
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
    const known = this.#source.knownSessionDir(name);
    const opened = await this.#source.openKnownSessionDir(name);
    if (opened === undefined) return undefined;
    if (known === undefined) {
      await this.#source.ops.close(opened.dir.fd).catch(() => undefined);
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
        await this.#source.ops.close(entry.dir.fd).catch(() => undefined);
      },
    };
  }

  /** The checks of `RootGuard.openKnownSessionDir`'s `verify`, on a descriptor already open. */
  async #verifyShared(name: string, entry: SharedSessionDir): Promise<boolean> {
    try {
      const root = await this.#source.root();
      // The descriptor is held across saves, so unlike a fresh open it does not show where
      // the path leads now: look at the path too.
      const [st, rootNow, atPath] = await Promise.all([
        this.#source.ops.fstat(entry.dir.fd),
        this.#source.ops.lstat(root.path),
        this.#source.ops.lstat(entry.dir.path),
      ]);
      if (
        sameIdentity(rootNow, root) &&
        this.#source.privateDirProblem(rootNow) === undefined &&
        sameIdentity(st, entry.known) &&
        sameIdentity(atPath, st) &&
        atPath.isDirectory() &&
        this.#source.privateDirProblem(st) === undefined &&
        entry.dir.path === path.join(root.path, name)
      ) {
        return true;
      }
    } catch {
      // fall through: the caller takes the full path
    }
    this.#source.forgetSessionDir(name);
    return false;
  }

}
