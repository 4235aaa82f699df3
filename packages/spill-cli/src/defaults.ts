/**
 * The defaults and environment names that the full CLI and its fast paths (`run-fast.ts`)
 * both need, in a module with no imports, so that a fast path loads nothing else.
 */

/** `--max-inline-bytes` of `spillway run` when not given: 32 KiB. */
export const DEFAULT_MAX_INLINE_BYTES = 32_768;

/** The session id used when neither `--session` nor `SPILLWAY_SESSION` gives one. */
export const DEFAULT_SESSION_ID = 'shell';

/** Environment variable naming the session (`--session` wins over it). */
export const SESSION_ENV = 'SPILLWAY_SESSION';

/** Environment variable naming the root (`--root` wins over it). */
export const ROOT_ENV = 'SPILLWAY_ROOT';

/** `--max-stored-bytes` when neither the option nor `SPILLWAY_MAX_STORED_BYTES` sets it: 1 GiB. */
export const DEFAULT_MAX_STORED_BYTES = 1024 * 1024 * 1024;

/** Environment variable for the most bytes `spillway run` stores (`--max-stored-bytes` wins over it). */
export const MAX_STORED_ENV = 'SPILLWAY_MAX_STORED_BYTES';

/** A byte count as an option value: a plain decimal integer. */
export const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

/** The session id for a non-empty `--session` value or none: the option, else `SPILLWAY_SESSION`, else {@link DEFAULT_SESSION_ID}. */
export function sessionFrom(option: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  if (option !== undefined) return option;
  const fromEnv = env[SESSION_ENV];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : DEFAULT_SESSION_ID;
}
