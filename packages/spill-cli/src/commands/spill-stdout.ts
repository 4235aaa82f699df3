import { Command, Option } from 'commander';
import { addCommonOptions, type CliContext } from '../context.js';
import { DEFAULT_MAX_INLINE_BYTES, nonNegativeInt, positiveInt, resolveMaxStoredBytes } from '../options.js';
import type { RunOptions } from './run/shared.js';

interface SpillStdoutOptions extends RunOptions {
  readonly exitCode: number;
}

/**
 * Registers the hidden `spillway spill-stdout --exit-code N`: the end of a command that a
 * script setup wrote has already run with its output going straight into stdout, a regular
 * file (Claude Code's shell prefix). Past the cap the output is stored whole and the file
 * gets the preview and notice; spillway exits with N. Small outputs never start spillway.
 */
export function registerSpillStdout(program: Command, ctx: CliContext): void {
  const command = program
    .command('spill-stdout', { hidden: true })
    .description('Store the output a command wrote into stdout (a regular file) and leave the preview there when it is too large.')
    .requiredOption('--exit-code <code>', "the command's exit code, which spillway exits with", nonNegativeInt)
    .option('--max-inline-bytes <bytes>', 'largest output, in UTF-8 bytes, left in full', nonNegativeInt, DEFAULT_MAX_INLINE_BYTES)
    .option('--max-inline-bytes-on-failure <bytes>', 'a lower cap when the exit code is not 0', nonNegativeInt)
    .option('--max-stored-bytes <bytes>', 'the most output bytes to store', positiveInt)
    .option('--session <id>', 'the owning session (default: $SPILLWAY_SESSION, else "shell")')
    .option('--name <name>', 'a readable name for the artifact', 'output')
    .addOption(new Option('--notice-reader <reader>', 'who reads the notice, which picks its retrieval hint').choices(['spillway-cli', 'file-tools', 'spill-tools', 'spill-tools-and-search']).default('spillway-cli'));
  addCommonOptions(command, { json: false });
  command.action(async (options: SpillStdoutOptions) => {
    const { takeOverStdout } = await import('./run/taken-output.js');
    const name = options.name ?? 'output';
    await takeOverStdout(
      {
        ctx,
        backend: ctx.backend(options),
        file: name,
        args: [],
        options,
        sessionId: ctx.session(options.session),
        toolName: name,
        maxStoredBytes: resolveMaxStoredBytes(options.maxStoredBytes, ctx.io.env),
        onSpawn: () => undefined,
      },
      { code: options.exitCode, signal: null },
    );
  });
}
