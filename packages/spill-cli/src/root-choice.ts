import { resolve } from 'node:path';
import { ROOT_ENV } from './defaults.js';

/**
 * The root a setting names: `--root`, else `SPILLWAY_ROOT`, either taken from `cwd` when
 * relative; `undefined` when neither names one and the default root applies. Shared by the
 * program and the fast path of `run`, which must not load the program's option parsers.
 */
export function namedRoot(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): { readonly path: string; readonly source: 'option' | 'env' } | undefined {
  if (option !== undefined) return { path: resolve(cwd, option), source: 'option' };
  const fromEnv = env[ROOT_ENV];
  return fromEnv !== undefined && fromEnv !== '' ? { path: resolve(cwd, fromEnv), source: 'env' } : undefined;
}
