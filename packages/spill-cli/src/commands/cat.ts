import { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { addCommonOptions, type CliContext, type CommonOptions } from '../context.js';
import { locatorArgument } from '../options.js';

const EXAMPLES = `
Examples:
  $ spillway cat "$LOCATOR" > copy.txt
  $ spillway cat s3://team-spill/agents/session-…/…-ls.txt --store s3://team-spill/agents | cmp - /usr/bin/ls
  $ spillway cat "$LOCATOR" | tail -n 50

The artifact is copied to stdout whole and byte for byte, binary included, as it was
stored: no line numbers, no cap, nothing decoded. Memory stays bounded however large it is.
For a capped, numbered view use spillway read.
`;

/** Registers `spillway cat <locator>`: copies a whole artifact to stdout, byte for byte. */
export function registerCat(program: Command, ctx: CliContext): void {
  const command = program
    .command('cat')
    .description('Copy a spilled artifact to stdout whole and byte for byte (binary included).')
    .argument('<locator>', 'the locator from a spill notice (for files: the absolute path)');
  addCommonOptions(command, { json: false });
  command.addHelpText('after', EXAMPLES);
  command.action(async (locator: string, options: CommonOptions) => {
    const backend = ctx.backend(options, locator);
    const { reader } = backend;
    if (reader.readBytes === undefined) {
      throw new CliError(
        'BYTES_UNSUPPORTED',
        `The ${backend.name} backend cannot hand back stored bytes exactly (its reader has no readBytes), so nothing was copied; use spillway read to page through the text.`,
      );
    }
    let copied = 0;
    // One chunk at a time, waiting for stdout to drain: memory stays at about one chunk.
    for await (const chunk of reader.readBytes(locatorArgument(locator))) {
      await ctx.printBytes(chunk);
      copied += chunk.length;
    }
    ctx.recordUsage({ kind: 'read', surface: 'cat', artifact: locator });
    await ctx.info(`copied ${String(copied)} bytes from ${locator}`);
  });
}
