import { homedir } from 'node:os';
import { inspect } from 'node:util';
import { CommanderError } from 'commander';
import { describeError } from './cli-error.js';
import { loadStoreSupport } from './store.js';
import { CliContext, type BackendFactory, type CliIO, type StoreFactory } from './context.js';
import { EXIT_CODES } from './exit-codes.js';
import { jsonLine, type ErrorJson } from './json.js';
import { buildProgram, type RegisterCommand } from './program.js';

/** The real process environment. */
export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // Node makes the stdin stream on first access, a cost a command that never reads it need not pay.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    homedir: homedir(),
  };
}

/** Whether `flag` is among the options, looking only before a `--`. */
function hasFlag(args: readonly string[], flag: string): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes(flag);
}

/** Whether `--json` is among the options, looking only before a `--`. */
export function wantsJson(args: readonly string[]): boolean {
  return hasFlag(args, '--json');
}

/** Options for {@link main}, for embedding and tests. */
export interface MainOptions {
  /** The commands to offer. Default: every command of `spillway` (`COMMANDS`), loaded on first use. */
  readonly commands?: readonly RegisterCommand[];
  /** How to open the backend. Default: the local backend on the resolved root. */
  readonly backend?: BackendFactory;
  /** How to open an object store named by `--store`. Default: the S3 backend. */
  readonly store?: StoreFactory;
}

// Help or the version on request (exit code 0). Help shown because a command is missing
// comes with exit code 1 from commander: that one is a usage error.
const HELP_CODES = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

/**
 * Runs `spillway` with `args` (without the node and script paths) and resolves with the
 * exit code. Never rejects and never calls `process.exit`: every failure becomes one line
 * on stderr (one JSON document under `--json`) and a documented exit code.
 */
export async function main(
  args: readonly string[],
  io: CliIO = processIO(),
  options: MainOptions = {},
): Promise<number> {
  const json = wantsJson(args);
  const ctx = new CliContext(io, json, options.backend, options.store);
  try {
    await loadStoreSupport(args, io.env);
    const program = buildProgram(ctx, options.commands ?? (await import('./commands.js')).COMMANDS);
    await program.parseAsync([...args], { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (HELP_CODES.has(error.code) && error.exitCode === 0) return EXIT_CODES.OK;
      // commander has printed the message already, unless --json silenced it.
      if (json) {
        const out: ErrorJson = {
          error: { code: 'USAGE', message: error.message.replace(/^error: /, ''), exitCode: EXIT_CODES.USAGE },
        };
        io.stderr.write(jsonLine(out));
      }
      return EXIT_CODES.USAGE;
    }
    const described = describeError(error);
    // Once parsing is done the command's own options say; before that, a scan of the
    // arguments (which cannot tell `run`'s --json from its command's).
    if (ctx.options === undefined ? json : ctx.options.json === true) {
      const out: ErrorJson = { error: described };
      io.stderr.write(jsonLine(out));
    } else {
      const code = described.code === 'INTERNAL' ? '' : ` [${described.code}]`;
      io.stderr.write(`${ctx.err.red('spillway: error:')} ${described.message}${ctx.err.dim(code)}\n`);
    }
    if (ctx.options === undefined ? hasFlag(args, '--debug') : ctx.options.debug === true) {
      io.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : inspect(error)}\n`);
      if (error instanceof Error && error.cause !== undefined) io.stderr.write(`caused by: ${inspect(error.cause)}\n`);
    }
    return described.exitCode;
  }
}
