import { Command } from 'commander';
import { sessionId as toSessionId } from '@spillway/core';
import { AUTO_INDEX_LOCK, autoIndexEnabled, localIndexDir } from '../auto-index.js';
import type { CliContext, CommonOptions } from '../context.js';
import { releaseLockFile, takeLockFile } from '../lock-file.js';

/** Refreshes at most this many times in a row while new spills keep arriving. */
const MAX_ROUNDS = 5;

/**
 * Registers the hidden `spillway index-auto --root DIR --session ID`: brings the search index
 * of a local root up to date for one session, started in a detached child after a spill (see
 * docs/search.md). It holds the index's lock, prints nothing and always exits 0.
 */
export function registerIndexAuto(program: Command, ctx: CliContext): void {
  program
    .command('index-auto', { hidden: true })
    .description('Bring the search index up to date for one session (started after a spill).')
    .option('--root <dir>', 'storage root')
    .option('--session <id>', 'the session that spilled')
    .option('--locked', "the starting process holds the lock on this indexer's behalf")
    .action(async (options: CommonOptions & { readonly session?: string; readonly locked?: boolean }) => {
      const root = ctx.root(options).path;
      const lock = `${localIndexDir(root)}/${AUTO_INDEX_LOCK}`;
      if (options.locked !== true && !takeLockFile(lock)) return;
      try {
        if (!autoIndexEnabled(ctx.io.env, ctx.io.homedir) || options.session === undefined || options.session === '') return;
        const { createBackendSearch } = await import('@spillway/search');
        const searcher = await createBackendSearch(ctx.backend(options));
        try {
          // A spill that came while this one indexed found the lock taken: look again.
          for (let round = 0; round < MAX_ROUNDS; round++) {
            const done = await searcher.refresh({ sessionId: toSessionId(options.session) });
            if (done.indexed === 0 || done.busy) break;
          }
        } finally {
          await searcher.close();
        }
      } catch {
        // Best effort: the next search indexes what this did not.
      } finally {
        releaseLockFile(lock);
      }
    });
}
