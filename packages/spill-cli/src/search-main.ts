/**
 * `spillway search` in a process of its own: the program with the search command alone,
 * as `bin.ts` runs it, from an entry that the build bundles into one CommonJS file
 * (scripts/bundle-fast-paths.mjs), so that a search does not pay Node's ES module loader
 * for each of the hundred-odd files it would load.
 */
import { homedir } from 'node:os';
import { exitOnBrokenPipeOf } from './broken-pipe.js';
import { registerSearch } from './commands/search.js';
import type { CliIO } from './context.js';
import { fdOutput } from './fd-output.js';
import { main } from './main.js';

/**
 * The process's environment, with stdout and stderr written on their descriptors (see
 * {@link fdOutput}): Node builds either stream only when it is needed, each then with the
 * broken-pipe handler that `bin.ts` gives both.
 */
function searchIO(): CliIO {
  return {
    stdout: fdOutput(1, () => exitOnBrokenPipeOf(process.stdout)),
    stderr: fdOutput(2, () => exitOnBrokenPipeOf(process.stderr)),
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    homedir: homedir(),
  };
}

/** Runs `spillway` with `args` (`search` first, as on the command line) and sets the exit code. */
export async function runSearchProcess(args: readonly string[]): Promise<void> {
  process.exitCode = await main(args, searchIO(), { commands: [registerSearch] });
}
