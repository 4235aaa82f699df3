import { defaultLocalRoot, localRootOf } from '@spillway/local';
import { InvalidArgumentError } from 'commander';
import { SpillError, spillLocator, type SpillLocator } from '@spillway/core';
import { CliError } from './cli-error.js';
import { namedRoot } from './root-choice.js';
import { DECIMAL, DEFAULT_MAX_INLINE_BYTES, DEFAULT_MAX_STORED_BYTES, DEFAULT_SESSION_ID, MAX_STORED_ENV, SESSION_ENV, sessionFrom } from './defaults.js';

export { DEFAULT_MAX_INLINE_BYTES, DEFAULT_MAX_STORED_BYTES, DEFAULT_SESSION_ID, MAX_STORED_ENV, SESSION_ENV };

export { ROOT_ENV } from './defaults.js';


function parseInteger(value: string, min: number, what: string): number {
  const n = DECIMAL.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min) {
    throw new InvalidArgumentError(`expected ${what}, got '${value}'.`);
  }
  return n;
}

/** A plain decimal: digits with an optional fraction, or a fraction alone (`.5`); no sign or exponent. */
const SHARE = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;

/**
 * A share written as a bare number between 0 and 1 (`0.1`), or as a percentage between
 * 0% and 100% (`10%`), as a number between 0 and 1; `undefined` for anything else (`2`,
 * `101%`, `1e-1`, `abc`), so that the caller refuses it with its own code.
 */
export function parseShare(value: string): number | undefined {
  const percent = value.endsWith('%');
  const digits = percent ? value.slice(0, -1) : value;
  if (!SHARE.test(digits)) return undefined;
  const share = percent ? Number(digits) / 100 : Number(digits);
  return share >= 0 && share <= 1 ? share : undefined;
}

/** A commander argument parser for integers `>= 0` written in plain decimal. */
export function nonNegativeInt(value: string): number {
  return parseInteger(value, 0, 'a whole number of 0 or more');
}

/** A commander argument parser for integers `>= 1` written in plain decimal. */
export function positiveInt(value: string): number {
  return parseInteger(value, 1, 'a whole number of 1 or more');
}

/**
 * Where the root came from, for messages that say what to change: `locator` when
 * `read`, `grep` or `rm` took it from the locator itself.
 */
export type RootSource = 'option' | 'env' | 'default' | 'locator';

/** The root directory the CLI will use. */
export interface ResolvedRoot {
  /** An absolute path. */
  readonly path: string;
  /** Which setting chose it. */
  readonly source: RootSource;
}

/**
 * Picks the root: `--root`, else `SPILLWAY_ROOT`, else `$XDG_STATE_HOME/spillway`, else
 * `~/.local/state/spillway`. A relative `XDG_STATE_HOME` is ignored, as the XDG spec asks;
 * a relative `--root` or `SPILLWAY_ROOT` is taken from `cwd`.
 */
export function resolveRoot(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  home: string,
): ResolvedRoot {
  if (option === '') throw new CliError('USAGE', '--root needs a directory, got an empty string.');
  // The library's own default, so a harness's artifacts and the CLI's share one root.
  return namedRoot(option, env, cwd) ?? { path: defaultLocalRoot(env, home), source: 'default' };
}

/**
 * The root for a command given a locator (`read`, `grep`, `rm`): `--root` when given,
 * else the root the locator itself names (`<root>/session-<h>/<leaf>`), else as
 * {@link resolveRoot}. A root taken from a locator is checked like any other.
 */
export function resolveRootFor(
  locator: string,
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  home: string,
): ResolvedRoot {
  const configured = resolveRoot(option, env, cwd, home);
  if (configured.source === 'option') return configured;
  const named = localRootOf(locator);
  if (named === undefined || named === configured.path) return configured;
  return { path: named, source: 'locator' };
}

/**
 * Refuses an empty `--session`, which names no session, for every command that takes one.
 * @throws CliError `USAGE` when `option` is the empty string.
 */
export function checkSessionOption(option: string | undefined): void {
  if (option === '') throw new CliError('USAGE', '--session needs a non-empty id.');
}

/** Picks the session id: `--session`, else `SPILLWAY_SESSION`, else {@link DEFAULT_SESSION_ID}. */
export function resolveSession(option: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  checkSessionOption(option);
  return sessionFrom(option, env);
}

/**
 * Brands a locator typed on the command line. Only emptiness is checked here; whether it
 * names an artifact is the backend's call, which treats it as untrusted input.
 */
export function locatorArgument(value: string): SpillLocator {
  if (value === '') {
    throw new SpillError('SPILL_INVALID_LOCATOR', 'The locator is empty: pass the locator printed in a spill notice or by `spillway ls`.');
  }
  return spillLocator(value);
}

/**
 * Picks the most bytes `run` stores: `--max-stored-bytes`, else `SPILLWAY_MAX_STORED_BYTES`,
 * else {@link DEFAULT_MAX_STORED_BYTES}.
 *
 * @throws CliError `USAGE` when the variable is not a whole number of 1 or more.
 */
export function resolveMaxStoredBytes(option: number | undefined, env: Readonly<Record<string, string | undefined>>): number {
  if (option !== undefined) return option;
  const fromEnv = env[MAX_STORED_ENV];
  if (fromEnv === undefined || fromEnv === '') return DEFAULT_MAX_STORED_BYTES;
  try {
    return positiveInt(fromEnv);
  } catch {
    throw new CliError('USAGE', `${MAX_STORED_ENV} must be a whole number of bytes, 1 or more; got '${fromEnv}'.`);
  }
}
