#!/usr/bin/env node
import { main } from './main.js';

// A reader that goes away (`spillway read … | head`) is not a failure worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// `spillway run` starts on every shell command of a host whose commands run through it:
// it loads only its own command, which halves its start-up.
const args = process.argv.slice(2);
const commands = args[0] === 'run' ? [(await import('./commands/run.js')).registerRun] : undefined;
process.exitCode = await main(args, undefined, commands === undefined ? {} : { commands });
