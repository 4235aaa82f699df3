/**
 * `spillway search` in a process of its own: the program with the search command alone,
 * as `bin.ts` runs it, from an entry that the build bundles into one CommonJS file
 * (scripts/bundle-fast-paths.mjs), so that a search does not pay Node's ES module loader
 * for each of the hundred-odd files it would load.
 */
import { exitOnBrokenPipe } from './broken-pipe.js';
import { registerSearch } from './commands/search.js';
import { main } from './main.js';

/** Runs `spillway` with `args` (`search` first, as on the command line) and sets the exit code. */
export async function runSearchProcess(args: readonly string[]): Promise<void> {
  exitOnBrokenPipe();
  process.exitCode = await main(args, undefined, { commands: [registerSearch] });
}
