import { basename } from 'node:path';
import { Command, Option } from 'commander';
import { fileSinkOf } from '@spillway/core/file-sink';
import type { CliBackend, CliContext } from '../context.js';
import { addCommonOptions } from '../context.js';
import { fallbackWarning } from '../fallback-warning.js';
import { DEFAULT_MAX_INLINE_BYTES, nonNegativeInt, positiveInt, resolveMaxStoredBytes } from '../options.js';
import { textOnlyWarning } from './save.js';
import { byteSaveOf, runIntoByteStream } from './run/byte-stream-route.js';
import { openSink, runWithSink } from './run/file-sink-route.js';
import { passThrough } from './run/pass-through.js';
import { runThroughPolicy } from './run/policy-route.js';
import type { RouteInput, RunOptions } from './run/shared.js';

const EXAMPLES = `
Examples:
  $ spillway run -- npm test
  $ spillway run --max-inline-bytes 8192 --name build -- make -j4
  $ SPILLWAY_SESSION=$CONVERSATION_ID spillway run -- curl -s https://example.com/big.json
  $ spillway run -- sh -c 'make 2>&1 | tail -n 5000'     # pipes need a shell

The command runs without a shell. Its stdout and stderr are merged, stored byte for byte
(as \`> file 2>&1\` would; binary output too, on a root and on an object store), and
printed when it ends: in full when they fit in --max-inline-bytes, otherwise as a
head/tail preview plus a notice telling where the full output is stored (spillway cat
copies it out). Past --max-stored-bytes nothing more is stored and the command is stopped
(SIGTERM). When the root or store cannot take the output, it goes to the private per-user
root instead, else to spillway-<uid> in the temp directory (said on stderr); only when no
store can be written is it printed in full.
spillway exits with the command's exit code (128+N when signal N ended it); SIGINT,
SIGTERM and SIGHUP are passed on to it.
`;

/** Registers `spillway run -- <command> [args…]`: runs a command through the spill policy. */
export function registerRun(program: Command, ctx: CliContext): void {
  const command = program
    .command('run')
    .description('Run a command and print its output, spilling it to storage when it is too large.')
    .argument('<command>', 'the program to run (looked up on PATH, no shell)')
    .argument('[args...]', 'its arguments')
    .option('--max-inline-bytes <bytes>', 'largest output, in UTF-8 bytes, printed in full', nonNegativeInt, DEFAULT_MAX_INLINE_BYTES)
    .option('--session <id>', 'the owning session (default: $SPILLWAY_SESSION, else "shell")')
    .option('--name <name>', 'a readable name for the artifact (default: the command\'s base name)')
    .option('--max-stored-bytes <bytes>', 'the most output bytes to store; past it the command is stopped (default: $SPILLWAY_MAX_STORED_BYTES, else 1 GiB)', positiveInt)
    .option('--max-inline-bytes-on-failure <bytes>', 'a lower cap for a command that fails (exits non-zero or by a signal), for hosts that cut failing output shorter', nonNegativeInt)
    .option('--live', 'copy the head of the output to stdout as it comes, when stdout is an empty regular file (rewritten with the preview if the output does not fit)')
    .addOption(new Option('--notice-reader <reader>', 'who reads the notice, which picks its retrieval hint').choices(['spillway-cli', 'file-tools', 'spill-tools', 'spill-tools-and-search']).default('spillway-cli'))
    .passThroughOptions();
  addCommonOptions(command, { json: true });
  command.addHelpText('after', EXAMPLES);
  command.action(async (file: string, args: string[], options: RunOptions) => {
    const input: RouteInput = {
      ctx,
      backend: ctx.backend(options),
      file,
      args,
      options,
      sessionId: ctx.session(options.session),
      toolName: options.name ?? (basename(file) || 'output'),
      maxStoredBytes: resolveMaxStoredBytes(options.maxStoredBytes, ctx.io.env),
      // The policy is loaded only once the output is past the cap: most commands print less.
      onSpawn: (child) => {
        void ctx.info(`started ${file} (pid ${String(child.pid)})`);
      },
    };
    await dispatch(input);
  });
}

/**
 * Picks the route: the backend's file sink (byte for byte, zero-copy), else its
 * `saveBytesStream` (byte for byte, streamed), else the policy stream (text only, said
 * before anything is stored); the output passes through unstored when storage is unusable.
 */
async function dispatch(input: RouteInput): Promise<void> {
  const { ctx, backend, file, args, options, onSpawn } = input;
  const printInFull = async (failure: unknown): Promise<void> => {
    // No flood while any store can be written: the private per-user root takes the output.
    const given = input.givenUp;
    if (given === undefined) {
      const { fallback, refused } = await ctx.usableFallback(options);
      if (fallback !== undefined) return dispatch({ ...input, backend: fallback.backend, fallenBack: true, givenUp: { failure, refused, path: fallback.path } });
      // --json needs the text as one value: the policy keeps it whole when it cannot store,
      // and says so once the output is past the cap.
      if (options.json === true) return runThroughPolicy({ ...input, givenUp: { failure, refused } });
      await ctx.warn(fallbackWarning(failure, refused, 'the output is printed in full, without spilling.'));
    } else {
      // The fallback root passed its check but failed here: it is refused too.
      const refused = given.path === undefined ? given.refused : [...given.refused, { path: given.path, error: failure }];
      if (options.json === true) return runThroughPolicy({ ...input, givenUp: { failure: given.failure, refused } });
      await ctx.warn(fallbackWarning(given.failure, refused, 'the output is printed in full, without spilling.'));
    }
    await passThrough(ctx, file, args, onSpawn);
  };
  if (fileSinkOf(backend) !== undefined) {
    const { sink, failure } = await openSink(input);
    if (sink !== undefined) {
      try {
        await runWithSink(input, sink);
      } finally {
        await sink.close();
      }
      return;
    }
    return printInFull(failure);
  }
  // A store that cannot be used would otherwise fail only once the output is past the
  // cap. Find out first, and then stream the output straight through, in bounded memory.
  const unusable = await probeRoot(backend);
  if (unusable !== undefined) return printInFull(unusable);
  if (backend.saveBytesStream !== undefined) return runIntoByteStream(input, byteSaveOf(input));
  await ctx.warn(textOnlyWarning(backend.name, 'the output'));
  return runThroughPolicy(input);
}

/** Checks the storage root, when the backend can; resolves with the failure, if any. */
async function probeRoot(backend: CliBackend): Promise<unknown> {
  if (typeof backend.root !== 'function') return undefined;
  try {
    await backend.root();
    return undefined;
  } catch (error) {
    return error;
  }
}
