/**
 * Setup's undo records: what setup changed in each config file, so that undo takes back
 * exactly that. They hold the file's original bytes (possibly secrets in a server's `env`),
 * so they live in spillway's private state, never beside the person's files: a directory
 * of the user's own, 0700, and files 0600 opened without following links. A record names
 * the file it belongs to (its path, device and inode) and the user and machine that wrote
 * it; undo trusts no other.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, rmSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { xdgBaseDir } from '@spillway/core/xdg';
import { ConfigRefusal, readOpened, replaceAtomically } from './config-file.js';
import type { ConfigPath, HostId, SetupEnvironment } from './types.js';

/** What setup recorded about one file. */
export interface UndoRecord {
  readonly version: 2;
  readonly host: HostId;
  /** The config path as setup named it. */
  readonly configPath: string;
  /** The file written (a user config may be a link to it). */
  readonly target: string;
  /**
   * Identity of the file setup last wrote, for diagnosis only: hosts replace their own
   * configs (Claude Code rewrites `.claude.json` by renaming a new file over it), so a new
   * inode is no reason to refuse. The content hash ({@link UndoRecord.after}) decides
   * whether the original bytes come back whole.
   */
  readonly dev: number;
  readonly ino: number;
  /** Who wrote the record, and where. */
  readonly uid: number;
  readonly machine: string;
  /** Whether the file existed before the first setup. */
  readonly existed: boolean;
  /** The bytes before the first setup (base64), or `null` once a later setup ran on a file the host had changed. */
  readonly original: string | null;
  /** The mode the file had before the first setup. */
  readonly originalMode: number | null;
  /** SHA-256 of the bytes setup last wrote. */
  readonly after: string;
  /** The servers wrapped. */
  readonly servers: readonly { readonly path: ConfigPath; readonly hadArgs: boolean }[];
  /** The hooks added; `created` is the key setup created to hold them, if any. */
  readonly hooks: readonly { readonly path: ConfigPath; readonly command: string; readonly created: ConfigPath | null }[];
  /**
   * The hook matchers setup widened in place (`from` an earlier setup's, `to` today's), so
   * that undo gives a group the person has since added hooks to its old matcher back
   * (absent in older records).
   */
  readonly matchers?: readonly { readonly path: ConfigPath; readonly from: string; readonly to: string }[];
  /** The settings written; `created` is the key setup created to hold them, if any (absent in older records). */
  readonly settings?: readonly { readonly path: ConfigPath; readonly created: ConfigPath | null }[];
}

/** Where spillway keeps its private state: `$XDG_STATE_HOME/spillway`, else `~/.local/state/spillway`. */
export function spillwayStateDir(env: SetupEnvironment): string {
  if (env.stateDir !== undefined) return env.stateDir;
  return join(xdgBaseDir('state', env.env, env.home), 'spillway');
}

/** The directory of undo records. */
export function undoRecordDir(env: SetupEnvironment): string {
  return join(spillwayStateDir(env), 'setup-undo');
}

/** The undo record's path for a config file: named by a hash of the file's absolute path. */
export function undoRecordPath(env: SetupEnvironment, configPath: string): string {
  const key = createHash('sha256').update(resolve(configPath)).digest('hex').slice(0, 40);
  return join(undoRecordDir(env), `${key}.json`);
}

function euid(): number {
  return process.geteuid?.() ?? -1;
}

/** Makes `dir` and its parent if missing (0700), and checks both are the user's own private, real directories. */
function privateDir(dir: string): void {
  // Above the state directory, ordinary directories (`~/.local/state`) are made as usual.
  mkdirSync(join(dir, '..', '..'), { recursive: true, mode: 0o700 });
  for (const d of [join(dir, '..'), dir]) {
    try {
      mkdirSync(d, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const stat = lstatSync(d);
    const me = euid();
    if (!stat.isDirectory() || (me !== -1 && stat.uid !== me) || (stat.mode & 0o077) !== 0) {
      throw new ConfigRefusal(`${d} must be a private directory of your own (0700, not a link) to hold setup's undo records; fix or remove it.`);
    }
  }
}

function isMatcherRecord(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const m = value as { path?: unknown; from?: unknown; to?: unknown };
  return Array.isArray(m.path) && typeof m.from === 'string' && typeof m.to === 'string';
}

/** The record of a config file, `undefined` when there is none; a record undo cannot trust is a {@link ConfigRefusal}. */
export function readUndoRecord(env: SetupEnvironment, configPath: string): UndoRecord | undefined {
  const path = undoRecordPath(env, configPath);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new ConfigRefusal(`The undo record ${path} is a link, which setup never writes; remove it.`);
    throw error;
  }
  let text: string;
  try {
    const stat = fstatSync(fd);
    const me = euid();
    if (!stat.isFile() || stat.nlink !== 1 || (me !== -1 && stat.uid !== me) || (stat.mode & 0o077) !== 0 || stat.size > 64 * 1024 * 1024) {
      throw new ConfigRefusal(`The undo record ${path} was not written by setup (not a private 0600 file of yours); it is ignored. Remove it.`);
    }
    text = readOpened(fd, stat.size).toString('utf8');
  } finally {
    closeSync(fd);
  }
  let record: UndoRecord;
  try {
    record = JSON.parse(text) as UndoRecord;
  } catch {
    throw new ConfigRefusal(`The undo record ${path} is damaged (not JSON); remove it, and remove spillway's wrappers from ${configPath} by hand (the lines with "mcp --max-inline-bytes").`);
  }
  const sound =
    (record.version as number) === 2 &&
    record.configPath === resolve(configPath) &&
    Array.isArray(record.servers) &&
    Array.isArray(record.hooks) &&
    (record.settings === undefined || Array.isArray(record.settings)) &&
    (record.matchers === undefined || (Array.isArray(record.matchers) && (record.matchers as unknown[]).every(isMatcherRecord))) &&
    typeof record.after === 'string' &&
    record.uid === euid() &&
    record.machine === hostname();
  if (!sound) {
    throw new ConfigRefusal(`The undo record ${path} was not written for ${configPath} by your user on this host; remove it, and remove spillway's wrappers from ${configPath} by hand (the lines with "mcp --max-inline-bytes").`);
  }
  return record;
}

/** Writes a record atomically (0600, no links followed). */
export function writeUndoRecord(env: SetupEnvironment, record: UndoRecord): void {
  const dir = undoRecordDir(env);
  privateDir(dir);
  const path = undoRecordPath(env, record.configPath);
  replaceAtomically(path, Buffer.from(`${JSON.stringify(record, null, 2)}\n`));
}

/** Removes a config file's record, if any. */
export function removeUndoRecord(env: SetupEnvironment, configPath: string): void {
  try {
    unlinkSync(undoRecordPath(env, configPath));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** The user and machine a record is bound to. */
export function recordOwner(): { readonly uid: number; readonly machine: string } {
  return { uid: euid(), machine: hostname() };
}

/** How long setup waits for another setup of the same user to finish. */
const LOCK_WAIT_MS = 10_000;
/** A lock older than this was left by a setup that died, and is taken over. */
const STALE_LOCK_MS = 60_000;

/**
 * Runs `fn` while holding the user's setup lock, so that two setups (or a setup and an
 * undo) never interleave their reads and writes of a config and its record.
 */
export function withSetupLock<T>(env: SetupEnvironment, fn: () => T): T {
  const dir = undoRecordDir(env);
  privateDir(dir);
  const lock = join(dir, 'setup.lock');
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      try {
        if (Date.now() - lstatSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { force: true });
      } catch {
        // Gone meanwhile: try again.
      }
      if (Date.now() > deadline) throw new ConfigRefusal(`Another spillway setup is running (${lock} is held); try again when it has finished, or remove the file if none is.`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { force: true });
  }
}
