import { Command } from 'commander';
import { SpillError } from '@spillway/core';
import { addCommonOptions, type CliContext, type CommonOptions } from '../context.js';
import { jsonLine, type RmJson } from '../json.js';
import { locatorArgument } from '../options.js';
import { gcSearchIndex } from '../search-support.js';
import { indexWarning } from './gc.js';

interface RmOptions extends CommonOptions {
  readonly force?: boolean;
}

const EXAMPLES = `
Examples:
  $ spillway rm "$LOCATOR"
  $ spillway rm --force "$LOCATOR"     # no error when it is already gone

When a search index exists (see spillway search), the artifact leaves it too, and the index
is compacted so that its words are gone from the file; a failure there is a warning.
`;

/** Registers `spillway rm <locator>`: deletes one artifact. */
export function registerRm(program: Command, ctx: CliContext): void {
  const command = program
    .command('rm')
    .description('Delete one spilled artifact.')
    .argument('<locator>', 'the locator from a spill notice or from spillway ls')
    .option('-f, --force', 'succeed even when the artifact is already gone');
  addCommonOptions(command, { json: true });
  command.addHelpText('after', EXAMPLES);
  command.action(async (locator: string, options: RmOptions) => {
    const backend = ctx.backend(options, locator);
    const removed = await backend.catalog.delete(locatorArgument(locator));
    if (!removed && options.force !== true) {
      throw new SpillError('SPILL_NOT_FOUND', `Nothing to remove at ${locator}: it is already gone. Use --force to ignore this.`);
    }
    if (removed) {
      // The index answers only what the store lists, but its file would keep the words.
      const index = await gcSearchIndex(backend, ctx.searchIndexPlace(options) ?? (await ctx.searchIndexLocation(options, backend)));
      const warning = indexWarning(index);
      if (warning !== undefined) await ctx.warn(warning);
    }
    if (options.json === true) {
      const out: RmJson = { locator, removed };
      await ctx.print(jsonLine(out));
      return;
    }
    await ctx.print(removed ? `removed ${locator}\n` : `already gone: ${locator}\n`);
  });
}
