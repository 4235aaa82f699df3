import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { Command } from 'commander';
import { isSpillError } from '@spillway/core';
import { createSpillPolicy, type SpillEvent, type SpillSpilledEvent } from '@spillway/policy';
import { exitCodeOf, runChild, type ChildOutcome } from '../child.js';
import { cliMessage } from '../cli-error.js';
import { addCommonOptions, type CliBackend, type CliContext, type CommonOptions } from '../context.js';
import { spillHintLine } from '../format.js';
import { jsonLine, type RunJson } from '../json.js';
import { DEFAULT_MAX_INLINE_BYTES, nonNegativeInt } from '../options.js';

interface RunOptions extends CommonOptions {
  readonly maxInlineBytes: number;
  readonly session?: string;
  readonly name?: string;
}

const EXAMPLES = `
Examples:
  $ spillway run -- npm test
  $ spillway run --max-inline-bytes 8192 --name build -- make -j4
  $ SPILLWAY_SESSION=$CONVERSATION_ID spillway run -- curl -s https://example.com/big.json
  $ spillway run -- sh -c 'make 2>&1 | tail -n 5000'     # pipes need a shell

The command runs without a shell. Its stdout and stderr are merged and printed when it
ends: in full when they fit in --max-inline-bytes, otherwise as a head/tail preview plus
a notice telling where the full output is stored. spillway exits with the command's exit
code (128+N when signal N ended it); SIGINT, SIGTERM and SIGHUP are passed on to it.
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
    .passThroughOptions();
  addCommonOptions(command, { json: true });
  command.addHelpText('after', EXAMPLES);
  command.action(async (file: string, args: string[], options: RunOptions) => {
    const sessionId = ctx.session(options.session);
    const backend = ctx.backend(options);
    const rootPath = ctx.root(options).path;
    const onSpawn = (child: { pid?: number | undefined }): void => {
      void ctx.info(`started ${file} (pid ${String(child.pid)})`);
    };

    // The policy keeps a result it cannot store, so an unusable root would hold the whole
    // output in memory until the end. Find out first, and then stream the output straight
    // through: the same bytes, in bounded memory. (--json needs the text as one value.)
    const unusable = options.json === true ? undefined : await probeRoot(backend);
    if (unusable !== undefined) {
      await ctx.warn(`${describeError(unusable)}: the output is printed in full, without spilling.`);
      const outcome = await runChild(file, args, { onText: (text) => ctx.print(text), onSpawn });
      await finish(ctx, file, outcome);
      return;
    }

    let spilled: SpillSpilledEvent | undefined;
    const problems: Exclude<SpillEvent, SpillSpilledEvent>[] = [];
    const policy = createSpillPolicy({
      backend,
      maxInlineBytes: options.maxInlineBytes,
      skipTools: [],
      onEvent: (event) => {
        if (event.type === 'spilled') spilled = event;
        else problems.push(event);
      },
    });
    const stream = policy.stream({ toolName: options.name ?? (basename(file) || 'output'), callId: randomUUID(), sessionId });
    let outcome: ChildOutcome;
    try {
      outcome = await runChild(file, args, { onText: (text) => stream.push(text), onSpawn });
    } catch (error) {
      await stream.abort(error);
      throw error;
    }
    const isError = exitCodeOf(outcome) !== 0;
    const result = await stream.finish({ isError });
    const text = result.content.map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : '')).join('');
    for (const event of problems) await ctx.warn(describeProblem(event, rootPath, options.maxInlineBytes));
    if (spilled !== undefined) {
      await ctx.info(`spilled ${String(spilled.bytes)} bytes (${String(spilled.shownBytes)} shown) to ${spilled.locator} in ${spilled.ms.toFixed(0)} ms`);
    }
    if (options.json === true) {
      const out: RunJson = {
        text,
        spilled: spilled !== undefined,
        locator: spilled?.locator ?? null,
        omittedBytes: spilled === undefined ? null : spilled.bytes - spilled.shownBytes,
        exitCode: outcome.code,
        signal: outcome.signal,
        isError,
      };
      await ctx.print(jsonLine(out));
    } else {
      // A notice ends without a newline; add one so the shell prompt starts on its own line.
      await ctx.print(spilled !== undefined && !text.endsWith('\n') ? `${text}\n` : text);
    }
    // The notice speaks to a model; a person at a terminal also gets the commands to type.
    if (spilled !== undefined && ctx.io.stderr.isTTY === true) await ctx.note(spillHintLine(spilled.locator));
    await finish(ctx, file, outcome);
  });
}

async function finish(ctx: CliContext, file: string, outcome: ChildOutcome): Promise<void> {
  ctx.exitCode = exitCodeOf(outcome);
  if (outcome.signal !== null) await ctx.info(`${file} was ended by ${outcome.signal}`);
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

function describeError(error: unknown): string {
  if (isSpillError(error)) return `${cliMessage(error.code, error.message)} [${error.code}]`;
  return error instanceof Error ? error.message : String(error);
}

/** One warning line for a spill that did not happen as it should have. */
function describeProblem(event: Exclude<SpillEvent, SpillSpilledEvent>, root: string, cap: number): string {
  const size = `the output (${String(event.bytes)} bytes)`;
  if (event.type === 'truncated') {
    if (event.reason === 'notice-too-large') {
      // Stored, but neither its notice nor the whole output fits: the person at the
      // terminal gets the locator the model could not be given.
      const why = event.error === undefined ? '' : `: ${describeError(event.error)}`;
      return `--max-inline-bytes ${String(cap)} cannot hold the spill notice and ${size} could not be read back, so only its head and tail are shown; the full output is stored at ${event.locator ?? 'an unknown locator'}${why}`;
    }
    return `${size} could not be stored under ${root}, so only its head and tail are shown: ${describeError(event.error ?? event.reason)}`;
  }
  if (event.reason === 'notice-too-large') {
    // The policy kept the original, as apply does; an artifact it stored first and could
    // not delete is left for `spillway gc`.
    const leftover = event.locator !== undefined && event.removed !== true ? ` (its stored copy ${event.locator} is left for spillway gc)` : '';
    return `--max-inline-bytes ${String(cap)} cannot hold the spill notice, so ${size} is printed in full${leftover}.`;
  }
  return `${size} could not be spilled under ${root} and is printed in full: ${describeError(event.error ?? event.reason)}`;
}
