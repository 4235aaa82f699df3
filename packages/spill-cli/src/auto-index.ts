import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { configFilePath, SPILLWAY_SCRIPT } from './auto-gc.js';
import { startLockedChild } from './lock-file.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The lock a background indexer holds, in the index's directory: one indexer per index. */
export const AUTO_INDEX_LOCK = 'auto-index.lock';

/**
 * The search index directory of a local root: `<root>.search` beside it (the place
 * `@spillway/search` uses; kept here so that a spill does not load the search package).
 */
export function localIndexDir(root: string): string {
  const resolved = resolve(root);
  return join(dirname(resolved), `${basename(resolved)}.search`);
}

/** False with `SPILLWAY_AUTO_INDEX=off` (or `0`, `false`, `no`) or `"autoIndex": false` in the config file. */
export function autoIndexEnabled(env: Env, home: string): boolean {
  const flag = env.SPILLWAY_AUTO_INDEX?.trim().toLowerCase();
  if (flag !== undefined && ['off', '0', 'false', 'no'].includes(flag)) return false;
  try {
    const file = JSON.parse(readFileSync(configFilePath(env, home), 'utf8')) as { autoIndex?: unknown };
    if (file.autoIndex === false) return false;
  } catch {
    // No config file, or one that does not parse: the default.
  }
  return true;
}

/**
 * After a spill into a local root whose store has been searched before (its index exists),
 * brings the index up to date for the spill's session in a detached child
 * (`spillway index-auto`), so that the next search finds it ready. A store nobody searches
 * pays nothing. The lock is taken before forking, so a burst of spills starts one indexer;
 * the child indexes again while new spills arrive. Returns whether a child was started.
 * Never throws.
 */
export function startAutoIndex(root: string, sessionId: string, env: Env, home: string): boolean {
  try {
    const dir = localIndexDir(root);
    if (!existsSync(join(dir, 'index.sqlite')) || !autoIndexEnabled(env, home)) return false;
    return startLockedChild(join(dir, AUTO_INDEX_LOCK), SPILLWAY_SCRIPT, ['index-auto', '--root', root, '--session', sessionId, '--locked'], env);
  } catch {
    return false;
  }
}
