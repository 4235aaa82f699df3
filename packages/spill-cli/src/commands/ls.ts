import { Command } from 'commander';
import { addCommonOptions, type CliContext, type CommonOptions } from '../context.js';
import { lsHeader, lsRow, lsSummary } from '../format.js';
import { lsEntryJson } from '../json.js';

interface LsOptions extends CommonOptions {
  readonly session?: string;
}

const EXAMPLES = `
Examples:
  $ spillway ls
  $ spillway ls --session "$SPILLWAY_SESSION"
  $ spillway ls --json | jq -r '.entries[].locator'

Without --session every session's artifacts are listed. Sessions appear as the backend's
opaque key (session-<hash>): the id itself is not stored.
`;

/** Registers `spillway ls`: the artifacts under the root, streamed. */
export function registerLs(program: Command, ctx: CliContext): void {
  const command = program
    .command('ls')
    .description('List spilled artifacts: when, how large, which session, and their locators.')
    .option('--session <id>', 'only this session\'s artifacts (default: every session)');
  addCommonOptions(command, { json: true });
  command.addHelpText('after', EXAMPLES);
  command.action(async (options: LsOptions) => {
    const backend = ctx.backend(options);
    const listing = backend.catalog.list(options.session === undefined ? {} : { sessionId: ctx.session(options.session) });
    let count = 0;
    let totalBytes = 0;
    if (options.json === true) {
      // Streamed so a large catalog never sits in memory; the document is still one line.
      await ctx.print('{"entries":[');
      for await (const entry of listing) {
        await ctx.print(`${count === 0 ? '' : ','}${JSON.stringify(lsEntryJson(entry))}`);
        count++;
        totalBytes += entry.bytes;
      }
      await ctx.print(`],"count":${count},"totalBytes":${totalBytes}}\n`);
      return;
    }
    for await (const entry of listing) {
      if (count === 0) await ctx.print(lsHeader(ctx.out));
      await ctx.print(lsRow(entry));
      count++;
      totalBytes += entry.bytes;
    }
    await ctx.print(lsSummary(count, totalBytes));
  });
}
