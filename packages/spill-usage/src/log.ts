import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { xdgBaseDir } from '@spillway/core/xdg';

/** What happened to one tool result, or one read of a spilled artifact. */
export type UsageKind = 'passed' | 'spilled' | 'kept' | 'read';

/** One usage event as a surface reports it. Nothing here is ever content. */
export interface UsageEvent {
  /** `passed`: under the cap, unchanged; `spilled`: stored and previewed; `kept`: over the cap but shown whole; `read`: a spilled artifact was read back. */
  readonly kind: UsageKind;
  /** The surface that saw it: `hook`, `mcp`, `run`, `save`, `read`, `grep`, `cat`, `search`, `ai-sdk`, `langchain`… */
  readonly surface: string;
  /** The agent host, when known (`claude-code`, `gemini`…). */
  readonly host?: string | undefined;
  /** The tool whose result it was (cut to 80 characters). */
  readonly tool?: string | undefined;
  /** The session id; only a digest of it is written. */
  readonly session?: string | undefined;
  /** The artifact's locator; only a digest of it is written, to join reads to spills. */
  readonly artifact?: string | undefined;
  /** UTF-8 size of the whole result. */
  readonly bytes?: number | undefined;
  /** UTF-8 bytes the model was shown instead (spilled results). */
  readonly shownBytes?: number | undefined;
}

/** One event as stored: short keys, digests instead of ids, a time stamp. */
export interface StoredUsageEvent {
  readonly v: 1;
  /** Epoch milliseconds. */
  readonly t: number;
  readonly kind: UsageKind;
  readonly surface: string;
  readonly host?: string;
  readonly tool?: string;
  /** Digest of the session id (see {@link usageDigest}). */
  readonly session?: string;
  /** Digest of the locator (see {@link usageDigest}). */
  readonly artifact?: string;
  readonly bytes?: number;
  readonly shownBytes?: number;
}

/** Where the log is and whether it is on. */
export interface UsageLogOptions {
  /** The directory (default: `$SPILLWAY_USAGE_DIR`, else `$XDG_STATE_HOME/spillway-usage`, else `~/.local/state/spillway-usage`). */
  readonly dir?: string | undefined;
  /** The environment to read `SPILLWAY_USAGE`, `SPILLWAY_USAGE_DIR` and `XDG_STATE_HOME` from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The home directory (default `os.homedir()`). */
  readonly home?: string | undefined;
  /** The largest size of the current file before it is rotated (default {@link DEFAULT_USAGE_FILE_BYTES}). */
  readonly maxFileBytes?: number | undefined;
  /** The clock (default `Date.now`). */
  readonly now?: (() => number) | undefined;
}

/** A usage log: append-only, private, bounded. */
export interface UsageLog {
  /** False when `SPILLWAY_USAGE=off` (or `0`, `false`, `no`), or when the directory is not safe to use. */
  readonly enabled: boolean;
  /** The directory holding `events.jsonl` and its one older generation `events.1.jsonl`. */
  readonly dir: string;
  /** Appends one event. Synchronous, so a short-lived process records before it exits; never throws. */
  record(event: UsageEvent): void;
  /** Every stored event, oldest first (the older generation, then the current file); malformed lines are skipped. */
  read(): StoredUsageEvent[];
  /** {@link read}, with the count of lines that were skipped because they are not events. */
  scan(): { readonly events: StoredUsageEvent[]; readonly skipped: number };
}

/** Rotation threshold of the current file: 1 MiB, so the log never holds more than about 2 MiB. */
export const DEFAULT_USAGE_FILE_BYTES = 1024 * 1024;
/** The name of the current file. */
export const USAGE_FILE = 'events.jsonl';
/** The name of the older generation. */
export const USAGE_OLD_FILE = 'events.1.jsonl';

const OFF = new Set(['off', '0', 'false', 'no']);
const MAX_NAME = 80;

/**
 * A short digest of an id or locator: the first 16 hex digits of its SHA-256. Stats can
 * filter by session and join a read to its spill, and the log never holds the id itself.
 */
export function usageDigest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 16);
}

/** Whether the environment turns the log off (`SPILLWAY_USAGE=off`). */
export function usageDisabled(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.SPILLWAY_USAGE;
  return value !== undefined && OFF.has(value.trim().toLowerCase());
}

/** The log directory these settings name. */
export function usageDir(env: Readonly<Record<string, string | undefined>>, home: string): string {
  const explicit = env.SPILLWAY_USAGE_DIR;
  if (explicit !== undefined && explicit !== '') return explicit;
  return join(xdgBaseDir('state', env, home), 'spillway-usage');
}

function name(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  // Control characters never reach the file; a long name is cut, not stored whole.
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]/g, '?').slice(0, MAX_NAME);
}

function count(value: number | undefined): number | undefined {
  return value !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** The stored form of an event (exported for tests and for tools that write their own). */
export function toStored(event: UsageEvent, t: number): StoredUsageEvent {
  const stored: Record<string, unknown> = { v: 1, t, kind: event.kind, surface: name(event.surface) ?? 'unknown' };
  const host = name(event.host);
  if (host !== undefined) stored.host = host;
  const tool = name(event.tool);
  if (tool !== undefined) stored.tool = tool;
  if (event.session !== undefined && event.session !== '') stored.session = usageDigest(event.session);
  if (event.artifact !== undefined && event.artifact !== '') stored.artifact = usageDigest(event.artifact);
  const bytes = count(event.bytes);
  if (bytes !== undefined) stored.bytes = bytes;
  const shown = count(event.shownBytes);
  if (shown !== undefined) stored.shownBytes = shown;
  return stored as unknown as StoredUsageEvent;
}

const KINDS = new Set<string>(['passed', 'spilled', 'kept', 'read']);

/** A rotation lock older than this was left by a process that died, and is removed. */
const STALE_ROTATION_LOCK_MS = 10_000;

/** The largest log file read: far above the two rotated generations a log holds. */
const MAX_READ_BYTES = 64 * 1024 * 1024;

const optionalString = (value: unknown): boolean => value === undefined || typeof value === 'string';
const optionalCount = (value: unknown): boolean => value === undefined || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0);

/** One stored event, or `undefined` for a line that is not one (another tool's, or damaged). */
function parseLine(line: string): StoredUsageEvent | undefined {
  try {
    const value = JSON.parse(line) as Partial<StoredUsageEvent> | null;
    if (value === null || typeof value !== 'object' || value.v !== 1) return undefined;
    // A time of 1e400 parses as Infinity, and a count stored as a string would be summed as text.
    if (typeof value.t !== 'number' || !Number.isFinite(value.t)) return undefined;
    if (typeof value.kind !== 'string' || !KINDS.has(value.kind) || typeof value.surface !== 'string') return undefined;
    if (![value.host, value.tool, value.session, value.artifact].every(optionalString)) return undefined;
    if (!optionalCount(value.bytes) || !optionalCount(value.shownBytes)) return undefined;
    return value as StoredUsageEvent;
  } catch {
    return undefined;
  }
}

/** A log file's text: only a regular file, opened without following links or waiting on a FIFO. */
function readLogFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    const bytes = Buffer.alloc(Math.min(stat.size, MAX_READ_BYTES));
    let done = 0;
    while (done < bytes.length) {
      const n = readSync(fd, bytes, done, bytes.length - done, done);
      if (n === 0) break;
      done += n;
    }
    return bytes.subarray(0, done).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Whether `dir` is a real directory of ours that nobody else can read or write. */
function privateDir(dir: string): boolean {
  const uid = process.getuid?.();
  const stat = lstatSync(dir);
  return stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o077) === 0;
}

/**
 * Opens (lazily: nothing is created until the first event) the usage log. Every failure
 * to write is swallowed: a usage event never costs a tool call anything but its append.
 */
export function createUsageLog(options: UsageLogOptions = {}): UsageLog {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const dir = options.dir ?? usageDir(env, home);
  // A default directory is made under the home only when that home exists (a service
  // account's home may be missing: nothing is created elsewhere in its name).
  const explicit = options.dir !== undefined || (env.SPILLWAY_USAGE_DIR ?? '') !== '' || (env.XDG_STATE_HOME ?? '').startsWith('/');
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_USAGE_FILE_BYTES;
  const now = options.now ?? Date.now;
  let enabled = !usageDisabled(env);
  let checked = false;
  const file = join(dir, USAGE_FILE);
  const old = join(dir, USAGE_OLD_FILE);

  function ready(): boolean {
    if (checked) return enabled;
    checked = true;
    try {
      if (!explicit && !existsSync(home)) {
        enabled = false;
        return false;
      }
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // A directory someone else owns or can write is refused, not repaired.
      if (!privateDir(dir)) enabled = false;
    } catch {
      enabled = false;
    }
    return enabled;
  }

  const lock = join(dir, 'events.lock');
  /** One rotation at a time; a process that finds the lock held just appends (the file may run a little over). */
  function takeRotationLock(): boolean {
    try {
      closeSync(openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
      return true;
    } catch {
      try {
        // Left by a process that died while rotating: taken over after a while.
        if (Date.now() - lstatSync(lock).mtimeMs > STALE_ROTATION_LOCK_MS) rmSync(lock, { force: true });
      } catch {
        // Gone meanwhile.
      }
      return false;
    }
  }
  function releaseRotationLock(): void {
    rmSync(lock, { force: true });
  }

  function append(line: string): void {
    // Never waits: a FIFO planted at the path fails at once (ENXIO) or is refused below.
    const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    let fd = openSync(file, flags, 0o600);
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile() || stat.nlink !== 1 || (stat.mode & 0o077) !== 0) return;
      if (stat.size > 0 && stat.size + line.length > maxFileBytes && takeRotationLock()) {
        try {
          // Checked again under the lock: another process may have rotated since this one
          // opened the file, and rotating again would replace the older generation with a
          // file of one event.
          const now = lstatSync(file);
          if (now.ino === stat.ino && now.dev === stat.dev) {
            // Rotate: the current file becomes the one older generation (replacing the last).
            renameSync(file, old);
          }
          closeSync(fd);
          fd = -1;
          fd = openSync(file, flags, 0o600);
          const fresh = fstatSync(fd);
          if (!fresh.isFile() || fresh.nlink !== 1 || (fresh.mode & 0o077) !== 0) return;
        } finally {
          releaseRotationLock();
        }
      }
      writeSync(fd, line);
    } finally {
      if (fd !== -1) closeSync(fd);
    }
  }

  return {
    get enabled() {
      return enabled;
    },
    dir,
    record(event) {
      try {
        if (!enabled || !ready()) return;
        append(`${JSON.stringify(toStored(event, now()))}\n`);
      } catch {
        // Best effort: a full disk or a concurrent rotation loses one event, nothing more.
      }
    },
    read() {
      return this.scan().events;
    },
    scan() {
      const events: StoredUsageEvent[] = [];
      let skipped = 0;
      for (const path of [old, file]) {
        const text = readLogFile(path);
        if (text === undefined) continue;
        for (const line of text.split('\n')) {
          if (line === '') continue;
          const event = parseLine(line);
          if (event === undefined) skipped++;
          else events.push(event);
        }
      }
      return { events, skipped };
    },
  };
}

/** The fields of a `@spillway/policy` event that usage needs (structural, so no dependency). */
export interface PolicyEventLike {
  readonly type: string;
  readonly toolName?: string;
  readonly bytes?: number;
  readonly shownBytes?: number;
  readonly locator?: string;
}

/** Where the events of one listener come from. */
export interface UsageSource {
  readonly surface: string;
  readonly host?: string | undefined;
  readonly session?: string | undefined;
}

/**
 * An `onEvent` for `createSpillPolicy` (or anything emitting its events) that records
 * `spilled` and `kept` events in `log`. Pass it wherever a policy takes `onEvent`:
 * `createSpillPolicy({ …, onEvent: usageListener(createUsageLog(), { surface: 'ai-sdk' }) })`.
 * `shownBytes` of a spill is estimated from the preview (the notice adds a few hundred bytes).
 */
export function usageListener(log: UsageLog, source: UsageSource): (event: PolicyEventLike) => void {
  return (event) => {
    if (event.type !== 'spilled' && event.type !== 'kept' && event.type !== 'truncated') return;
    log.record({
      kind: event.type === 'kept' ? 'kept' : 'spilled',
      surface: source.surface,
      host: source.host,
      session: source.session,
      tool: event.toolName,
      artifact: event.type === 'kept' ? undefined : event.locator,
      bytes: event.bytes,
      shownBytes: event.shownBytes,
    });
  };
}
