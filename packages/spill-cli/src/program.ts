import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { CliContext, CommonOptions } from './context.js';

/** Adds one command to the program. Every `src/commands/<name>.ts` exports one. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;


const EXAMPLES = `
Examples:
  $ spillway run -- npm test
  $ spillway read /home/me/.local/state/spillway/session-…/…-npm.txt --offset 120 --limit 40
  $ spillway grep "$LOCATOR" 'FAIL|Error' -i
  $ spillway cat "$LOCATOR" > copy.txt
  $ spillway ls --json

Environment:
  SPILLWAY_ROOT     storage root (--root wins); default $XDG_STATE_HOME/spillway
                    or ~/.local/state/spillway, created 0700
  SPILLWAY_STORE    s3://bucket/prefix to use an object store (--store wins);
                    AWS credentials, region and AWS_ENDPOINT_URL_S3 as for any AWS tool
  SPILLWAY_SESSION  session id for run/save (--session wins); default "shell"
  NO_COLOR          disables colour; FORCE_COLOR=0 too, FORCE_COLOR=1 forces it

Exit codes: 0 ok, 1 failure, 2 usage, 3 not found, 4 invalid locator, 5 expired,
6 unsafe root, 7 storage failure, 8 timeout, 9 done but part of the root skipped (ls, gc);
run: the command's code, 126, 127, 128+N.
`;

function version(): string {
  // Read as a file, not required: a JSON require resolves it through the module loader.
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}

/**
 * Builds the `spillway` program: the given commands on a root command that records each
 * command's common options in `ctx` before its action runs. Errors are thrown (commander's
 * `exitOverride`), never turned into `process.exit`, so the caller decides the exit code.
 */
export function buildProgram(ctx: CliContext, commands: readonly RegisterCommand[]): Command {
  const program = new Command('spillway');
  program
    .description('Keep oversized command output out of an LLM agent\'s context: spill it, preview it, read it back.')
    .version(version(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .enablePositionalOptions()
    .exitOverride()
    // Under --json, main() prints usage errors as JSON instead.
    .showHelpAfterError(ctx.jsonRequested ? false : '(add --help for usage)')
    .configureOutput({
      writeOut: (text) => ctx.io.stdout.write(text),
      writeErr: (text) => ctx.io.stderr.write(text),
      // Every error line ends in its code; the parser's own errors are all usage errors. The
      // code goes on the error line itself, before a "(Did you mean …?)" line the parser adds.
      outputError: (text, write) => {
        if (ctx.jsonRequested) return;
        const [first = '', ...rest] = text.trimEnd().split('\n');
        write(`${[`${first.replace(/^error:/, ctx.err.red('spillway: error:'))}${ctx.err.dim(' [USAGE]')}`, ...rest].join('\n')}\n`);
      },
    })
    .addHelpText('after', EXAMPLES)
    .hook('preAction', (_program, action) => {
      ctx.options = action.opts<CommonOptions>();
    });
  for (const register of commands) register(program, ctx);
  return program;
}
