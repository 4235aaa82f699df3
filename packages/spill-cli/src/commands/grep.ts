import { Command } from 'commander';
import { DEFAULT_GREP_MAX_MATCHES } from '@spillway/core';
import { addCommonOptions, type CliContext, type CommonOptions } from '../context.js';
import { formatGrepMatches, grepTrailer } from '../format.js';
import { grepJson, jsonLine } from '../json.js';
import { locatorArgument, positiveInt } from '../options.js';

interface GrepOptions extends CommonOptions {
  readonly ignoreCase?: boolean;
  readonly literal?: boolean;
  readonly max: number;
}

const EXAMPLES = `
Examples:
  $ spillway grep "$LOCATOR" 'ERROR|FAIL'
  $ spillway grep "$LOCATOR" -i 'timeout' --max 20
  $ spillway grep "$LOCATOR" -F 'a.b[0]'          # literal text, not a regular expression
  $ spillway grep "$LOCATOR" 'warn' --json | jq '.matches[].line'

The pattern is a regular expression in RE2 syntax (as ripgrep's) unless -F is given. A
search that runs out of its time budget stops with exit code 8 instead of hanging.

No match is not a failure: it prints "… no lines match." (under --json, "matches": [])
and exits 0, unlike grep(1), whose 1 would read as a failure here (1 is spillway's code
for an unexpected failure).
`;

/** Registers `spillway grep <locator> <pattern>`: numbered matching lines. */
export function registerGrep(program: Command, ctx: CliContext): void {
  const command = program
    .command('grep')
    .description('Print the lines of a spilled artifact that match a pattern, numbered like grep -n.')
    .argument('<locator>', 'the locator from a spill notice')
    .argument('<pattern>', 'a regular expression in RE2 syntax (or literal text with -F)')
    .option('-i, --ignore-case', 'match without regard to case')
    .option('-F, --literal', 'treat the pattern as literal text')
    .option('--max <matches>', 'stop after this many matching lines', positiveInt, DEFAULT_GREP_MAX_MATCHES);
  addCommonOptions(command, { json: true });
  command.addHelpText('after', EXAMPLES);
  command.action(async (locator: string, pattern: string, options: GrepOptions) => {
    const backend = ctx.backend(options, locator);
    const result = await backend.reader.grep(locatorArgument(locator), pattern, {
      maxMatches: options.max,
      ignoreCase: options.ignoreCase === true,
      literal: options.literal === true,
    });
    ctx.recordUsage({ kind: 'read', surface: 'grep', artifact: locator });
    if (options.json === true) {
      await ctx.print(jsonLine(grepJson(locator, pattern, result)));
      return;
    }
    await ctx.print(formatGrepMatches(result, ctx.out));
    const trailer = grepTrailer(result, options.max);
    if (trailer !== undefined) await ctx.print(`${ctx.out.dim(trailer)}\n`);
  });
}
