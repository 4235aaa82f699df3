import { closeSync, constants, fstatSync, futimesSync, lstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { xdgBaseDir } from '@spillway/core/xdg';
import { fileURLToPath } from 'node:url';
import { releaseLockFile, startLockedChild, takeLockFile } from './lock-file.js';

/** Retention without a scheduler: what the proxy and the hooks sweep, and how often. */
export interface AutoGcSettings {
  /** False with `SPILLWAY_AUTO_GC=off` or `"autoGc": false` in the config file. */
  readonly enabled: boolean;
  /** Artifacts older than this are deleted. */
  readonly maxAgeMs: number;
  /** The root is kept at or under this many bytes, oldest first. */
  readonly maxTotalBytes: number;
  /** At most one sweep per root per this many milliseconds. */
  readonly intervalMs: number;
  /** A sweep stops after this long (what it has not reached waits for the next one). */
  readonly budgetMs: number;
}

/** Seven days, 2 GiB, at most once an hour, 30 seconds per sweep. */
export const AUTO_GC_DEFAULTS: AutoGcSettings = {
  enabled: true,
  maxAgeMs: 7 * 24 * 3600_000,
  maxTotalBytes: 2 * 1024 ** 3,
  intervalMs: 3600_000,
  budgetMs: 30_000,
};

/** The stamp whose time says when the root was last swept. */
export const AUTO_GC_STAMP = '.auto-gc-stamp';
/** The lock a sweeping process holds, so that two processes never sweep one root together. */
export const AUTO_GC_LOCK = '.auto-gc-lock';
type Env = Readonly<Record<string, string | undefined>>;

/** The config file: `$XDG_CONFIG_HOME/spillway/config.json`, else `~/.config/spillway/config.json`. */
export function configFilePath(env: Env, home: string): string {
  return join(xdgBaseDir('config', env, home), 'spillway', 'config.json');
}

interface FileSettings {
  readonly autoGc?: boolean | { readonly maxAge?: string; readonly maxBytes?: string; readonly interval?: string };
}

/**
 * The settings: the defaults, then `autoGc` in the config file, then the environment
 * (`SPILLWAY_AUTO_GC=off`, `SPILLWAY_AUTO_GC_MAX_AGE=14d`, `SPILLWAY_AUTO_GC_MAX_BYTES=5GB`,
 * `SPILLWAY_AUTO_GC_INTERVAL=6h`). A value that does not parse keeps the one before it.
 * `parseDuration` and `parseByteSize` are those of `@spillway/retention`.
 */
export function autoGcSettings(
  env: Env,
  home: string,
  parseDuration: (text: string) => number,
  parseByteSize: (text: string) => number,
): AutoGcSettings {
  let settings = { ...AUTO_GC_DEFAULTS };
  const apply = (maxAge: unknown, maxBytes: unknown, interval: unknown): void => {
    const tryParse = (value: unknown, parse: (text: string) => number, fallback: number): number => {
      if (typeof value !== 'string' || value.trim() === '') return fallback;
      try {
        return parse(value);
      } catch {
        return fallback;
      }
    };
    settings = {
      ...settings,
      maxAgeMs: tryParse(maxAge, parseDuration, settings.maxAgeMs),
      maxTotalBytes: tryParse(maxBytes, parseByteSize, settings.maxTotalBytes),
      intervalMs: tryParse(interval, parseDuration, settings.intervalMs),
    };
  };
  try {
    const file = JSON.parse(readFileSync(configFilePath(env, home), 'utf8')) as FileSettings;
    if (file.autoGc === false) settings = { ...settings, enabled: false };
    else if (typeof file.autoGc === 'object') apply(file.autoGc.maxAge, file.autoGc.maxBytes, file.autoGc.interval);
  } catch {
    // No config file (or an unreadable one): the defaults.
  }
  const flag = env.SPILLWAY_AUTO_GC?.trim().toLowerCase();
  if (flag !== undefined && ['off', '0', 'false', 'no'].includes(flag)) settings = { ...settings, enabled: false };
  else if (flag !== undefined && ['on', '1', 'true', 'yes'].includes(flag)) settings = { ...settings, enabled: true };
  apply(env.SPILLWAY_AUTO_GC_MAX_AGE, env.SPILLWAY_AUTO_GC_MAX_BYTES, env.SPILLWAY_AUTO_GC_INTERVAL);
  return settings;
}

/** Whether `root` is due a sweep: its stamp is missing or older than the interval. One `stat`. */
export function autoGcDue(root: string, settings: AutoGcSettings, now = Date.now()): boolean {
  if (!settings.enabled) return false;
  try {
    const stamp = lstatSync(join(root, AUTO_GC_STAMP));
    // A link planted at the stamp is never followed, nor swept through.
    if (!stamp.isFile()) return false;
    return now - stamp.mtimeMs >= settings.intervalMs;
  } catch {
    return true;
  }
}

/** The `spillway` entry script, for the sweeping child. */
export const SPILLWAY_SCRIPT = fileURLToPath(new URL('../bin/spillway.js', import.meta.url));

/**
 * Starts a sweep of `root` in a detached child (`spillway gc-auto`) when one is due, and
 * returns at once: the caller has already answered its tool call, and its own exit never
 * waits for the sweep. Returns whether a child was started. Never throws.
 */
export function startAutoGc(root: string, settings: AutoGcSettings, env: Env, now = Date.now()): boolean {
  try {
    if (!autoGcDue(root, settings, now)) return false;
    // The lock is taken before forking, so a burst of spills (or of hook processes) starts
    // one sweeper, not one each; the child releases it when it is done.
    return startLockedChild(join(root, AUTO_GC_LOCK), SPILLWAY_SCRIPT, ['gc-auto', '--root', root, '--locked'], env, now);
  } catch {
    return false;
  }
}

/** Takes the root's sweep lock, or answers false when another live process holds it. */
export function takeAutoGcLock(root: string, now = Date.now()): boolean {
  return takeLockFile(join(root, AUTO_GC_LOCK), now);
}

/** Releases the lock. */
export function releaseAutoGcLock(root: string): void {
  releaseLockFile(join(root, AUTO_GC_LOCK));
}

/** Marks the root as swept now (creating the stamp when missing). */
export function touchAutoGcStamp(root: string, now = Date.now()): void {
  // Opened without following a link or waiting on a FIFO, and its times set through the descriptor.
  const fd = openSync(join(root, AUTO_GC_STAMP), constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
  try {
    if (!fstatSync(fd).isFile()) return;
    futimesSync(fd, now / 1000, now / 1000);
  } finally {
    closeSync(fd);
  }
}
