import { Command } from 'commander';
import { DEFAULT_READ_LIMIT, DEFAULT_READ_MAX_BYTES } from '@spillway/core';
import { addCommonOptions, type CliContext, type CommonOptions } from '../context.js';
import { formatReadLines, readStoppedNote, readTrailer } from '../format.js';
import { jsonLine, readJson } from '../json.js';
import { locatorArgument, positiveInt } from '../options.js';

interface ReadOptions extends CommonOptions {
  readonly offset: number;
  readonly limit: number;
  readonly maxBytes: number;
  readonly raw?: boolean;
}

const EXAMPLES = `
Examples:
  $ spillway read /home/me/.local/state/spillway/session-…/…-npm.txt
  $ spillway read "$LOCATOR" --offset 2001 --limit 200
  $ spillway read "$LOCATOR" --json | jq -r .text
  $ spillway cat "$LOCATOR" > copy.txt        # the whole artifact, byte for byte

read shows at most --limit lines and --max-bytes bytes. When it stops before the end it
says so on stderr (and in --json: stoppedEarly, continueWith), with the --offset to go
on with. To copy an artifact out whole, binary included, use spillway cat.
`;

/** Registers `spillway read <locator>`: a numbered line range of an artifact. */
export function registerRead(program: Command, ctx: CliContext): void {
  const command = program
    .command('read')
    .description('Print lines of a spilled artifact, numbered like cat -n, capped in bytes.')
    .argument('<locator>', 'the locator from a spill notice (for files: the absolute path)')
    .option('--offset <line>', 'first line to print, 1-based', positiveInt, 1)
    .option('--limit <lines>', 'how many lines to print at most', positiveInt, DEFAULT_READ_LIMIT)
    .option('--max-bytes <bytes>', 'byte cap on the text printed', positiveInt, DEFAULT_READ_MAX_BYTES)
    .option('--raw', 'print the text verbatim: no line numbers, no trailing hint');
  addCommonOptions(command, { json: true });
  command.addHelpText('after', EXAMPLES);
  command.action(async (locator: string, options: ReadOptions) => {
    const backend = ctx.backend(options, locator);
    const result = await backend.reader.read(locatorArgument(locator), {
      offset: options.offset,
      limit: options.limit,
      maxBytes: options.maxBytes,
    });
    const stopped = readStoppedNote(locator, result, options.maxBytes);
    ctx.recordUsage({ kind: 'read', surface: 'read', artifact: locator });
    if (options.json === true) {
      await ctx.print(jsonLine(readJson(locator, result, stopped)));
    } else if (options.raw === true) {
      await ctx.print(result.text);
    } else {
      await ctx.print(formatReadLines(result, ctx.out));
      const trailer = readTrailer(result, options.maxBytes);
      if (trailer !== undefined) await ctx.print(`${ctx.out.dim(trailer)}\n`);
    }
    // On stderr in every mode, so that a short copy (--raw > file) never passes for a whole one.
    if (stopped !== undefined) await ctx.note(stopped);
  });
}
