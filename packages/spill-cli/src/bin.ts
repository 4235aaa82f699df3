#!/usr/bin/env node
import { exitOnBrokenPipe } from './broken-pipe.js';
import { COMMAND_LOADERS } from './command-loaders.js';
import { main } from './main.js';

exitOnBrokenPipe();

// A process runs one command: it loads only that command's module (a search, for one,
// never loads setup's config parsers or the audit), and every command for anything else.
const args = process.argv.slice(2);
const load = args[0] === undefined || !Object.hasOwn(COMMAND_LOADERS, args[0]) ? undefined : COMMAND_LOADERS[args[0]];
const commands = load === undefined ? undefined : [await load()];
process.exitCode = await main(args, undefined, commands === undefined ? {} : { commands });
