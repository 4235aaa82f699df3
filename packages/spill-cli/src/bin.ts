#!/usr/bin/env node
import { COMMAND_LOADERS } from './command-loaders.js';
import { main } from './main.js';

// A reader that goes away (`spillway read … | head`) is not a failure worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// A process runs one command: it loads only that command's module (a search, for one,
// never loads setup's config parsers or the audit), and every command for anything else.
const args = process.argv.slice(2);
const load = args[0] === undefined || !Object.hasOwn(COMMAND_LOADERS, args[0]) ? undefined : COMMAND_LOADERS[args[0]];
const commands = load === undefined ? undefined : [await load()];
process.exitCode = await main(args, undefined, commands === undefined ? {} : { commands });
