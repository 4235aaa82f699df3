/**
 * Whether a project's config file is shared through git. Such a file reaches other
 * computers, so setup writes a portable command into it rather than absolute paths.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Whether git tracks `file`: `git ls-files --error-unmatch` run in the file's directory
 * (`git` names the program; tests name a missing one). A file with no `.git` in any folder
 * above it is not in a checkout, and git is not asked. When git cannot answer (not
 * installed, a repository it refuses), a file in a checkout counts as tracked, so that a
 * machine's paths never leak into a repository by default. The repository's own config
 * cannot run anything here: fsmonitor and hooks are turned off for the call.
 */
export function isTrackedByGit(file: string, git = 'git'): boolean {
  const dir = dirname(file);
  if (!existsSync(file) || !insideGitCheckout(dir)) return false;
  const result = spawnSync(git, ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', 'ls-files', '--error-unmatch', '--', basename(file)], {
    cwd: dir,
    stdio: 'ignore',
    timeout: 10_000,
    env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
  });
  if (result.error === undefined && result.status === 0) return true;
  if (result.error === undefined && result.status === 1) return false;
  return true;
}

function insideGitCheckout(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return true;
    if (dirname(at) === at) return false;
  }
}
