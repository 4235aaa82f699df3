import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { Command } from 'commander';
import { callId, isSpillError, type SpillFileSinkHandle, type SpillRef } from '@spillway/core';
import { retrievalHintFor } from '@spillway/core/notice';
import type { SpillEvent, SpillSpilledEvent } from '@spillway/policy';
import { exitCodeOf, runChild, type ChildOutcome } from '../child.js';
import { cliMessage } from '../cli-error.js';
import { addCommonOptions, type CliBackend, type CliContext, type CommonOptions } from '../context.js';
import { spillHintLine } from '../format.js';
import { jsonLine, type RunJson } from '../json.js';
import { DEFAULT_MAX_INLINE_BYTES, nonNegativeInt, positiveInt, resolveMaxStoredBytes } from '../options.js';
import { copyOut, looksUtf8, readRange, runIntoSink } from '../sink-run.js';
import { suggestedNameFor } from './save.js';

let policyModule: Promise<typeof import('@spillway/policy')> | undefined;

/**
 * The policy, loaded on first use. The route that stores through a file sink needs it only
 * for the preview, once the command has ended, so it is loaded while the command runs
 * rather than before it starts.
 */
function loadPolicy(): Promise<typeof import('@spillway/policy')> {
  policyModule ??= import('@spillway/policy');
  return policyModule;
}

interface RunOptions extends CommonOptions {
  readonly maxInlineBytes: number;
  readonly session?: string;
  readonly name?: string;
  readonly maxStoredBytes?: number;
}

const EXAMPLES = `
Examples:
  $ spillway run -- npm test
  $ spillway run --max-inline-bytes 8192 --name build -- make -j4
  $ SPILLWAY_SESSION=$CONVERSATION_ID spillway run -- curl -s https://example.com/big.json
  $ spillway run -- sh -c 'make 2>&1 | tail -n 5000'     # pipes need a shell

The command runs without a shell. Its stdout and stderr are merged, stored byte for byte
(as \`> file 2>&1\` would), and printed when it ends: in full when they fit in
--max-inline-bytes, otherwise as a head/tail preview plus a notice telling where the full
output is stored. Past --max-stored-bytes nothing more is stored and the command is
stopped (SIGTERM). When the output cannot be stored, it is printed in full as it arrives.
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
    .passThroughOptions();
  addCommonOptions(command, { json: true });
  command.addHelpText('after', EXAMPLES);
  command.action(async (file: string, args: string[], options: RunOptions) => {
    const sessionId = ctx.session(options.session);
    const backend = ctx.backend(options);
    const rootPath = ctx.root(options).path;
    const onSpawn = (child: { pid?: number | undefined }): void => {
      loadPolicy().catch(() => undefined);
      void ctx.info(`started ${file} (pid ${String(child.pid)})`);
    };

    const toolName = options.name ?? (basename(file) || 'output');
    const maxStoredBytes = resolveMaxStoredBytes(options.maxStoredBytes, ctx.io.env);
    if (backend.fileSink !== undefined) {
      let sink: SpillFileSinkHandle | undefined;
      let failure: unknown;
      try {
        sink = await backend.fileSink.open({
          owner: { sessionId },
          source: { toolName, callId: callId(randomUUID()), label: `output of ${file}` },
          suggestedName: suggestedNameFor(toolName),
        });
      } catch (error) {
        failure = error;
      }
      if (sink !== undefined) {
        try {
          await runWithSink({ ctx, backend, sink, file, args, options, maxStoredBytes, onSpawn });
        } finally {
          await sink.close();
        }
        return;
      }
      if (options.json !== true) {
        await ctx.warn(`${describeError(failure)}: the output is printed in full, without spilling.`);
        await passThrough(ctx, file, args, onSpawn);
        return;
      }
      // --json needs the text as one value: the policy below keeps it when it cannot store.
    }

    // The policy keeps a result it cannot store, so an unusable root would hold the whole
    // output in memory until the end. Find out first, and then stream the output straight
    // through: the same bytes, in bounded memory. (--json needs the text as one value.)
    const unusable = options.json === true ? undefined : await probeRoot(backend);
    if (unusable !== undefined) {
      await ctx.warn(`${describeError(unusable)}: the output is printed in full, without spilling.`);
      await passThrough(ctx, file, args, onSpawn);
      return;
    }

    let spilled: SpillSpilledEvent | undefined;
    const problems: Exclude<SpillEvent, SpillSpilledEvent>[] = [];
    const { createSpillPolicy } = await loadPolicy();
    const policy = createSpillPolicy({
      backend,
      maxInlineBytes: options.maxInlineBytes,
      noticeReader: 'spillway-cli', // a shell reads back with the spillway commands
      skipTools: [],
      onEvent: (event) => {
        if (event.type === 'spilled') spilled = event;
        else problems.push(event);
      },
    });
    const stream = policy.stream({ toolName, callId: randomUUID(), sessionId });
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

/** Runs the command with its output printed as it arrives, byte for byte, and nothing stored. */
async function passThrough(ctx: CliContext, file: string, args: readonly string[], onSpawn: (child: { pid?: number | undefined }) => void): Promise<void> {
  // On the process's own stdout the child writes there directly (`2>&1` included).
  const fd = ctx.stdoutFd;
  const outcome =
    fd === undefined
      ? await runChild(file, args, { onData: (bytes) => ctx.printBytes(bytes), onSpawn })
      : await runChild(file, args, { outputFd: fd, onSpawn });
  await finish(ctx, file, outcome);
}

interface SinkRunInput {
  readonly ctx: CliContext;
  readonly backend: CliBackend;
  readonly sink: SpillFileSinkHandle;
  readonly file: string;
  readonly args: readonly string[];
  readonly options: RunOptions;
  readonly maxStoredBytes: number;
  readonly onSpawn: (child: { pid?: number | undefined }) => void;
}

/** Bytes read from each end of the stored output for the preview: more than any cut can use. */
function previewWindow(cap: number): number {
  return cap + 8;
}

/**
 * The byte-exact route: the output goes into the backend's file sink (straight from the
 * child when the volume has room for the whole limit, through this process otherwise),
 * and only the preview is decoded, from the head and tail read back.
 */
async function runWithSink(input: SinkRunInput): Promise<void> {
  const { ctx, sink, file, args, options, maxStoredBytes, onSpawn } = input;
  const cap = options.maxInlineBytes;
  const free = await sink.freeBytes();
  // Straight into the file only when a full disk cannot cut the output short: the child's
  // own writes would fail, out of spillway's reach.
  const direct = free !== undefined && free > maxStoredBytes;
  void ctx.info(direct ? 'the command writes into the spill file directly' : 'the output passes through spillway into the spill file');
  const run = await runIntoSink(file, args, {
    sink,
    maxStoredBytes,
    direct,
    onSpawn,
    print: (bytes) => ctx.printBytes(bytes),
    onStoreFailed: (error) => ctx.warn(`${describeError(error)}: the output could not be stored under ${ctx.root(options).path}, so it is printed in full.`),
  });
  const { outcome, storedBytes: stored, droppedBytes: dropped } = run;
  if (run.failure !== undefined) {
    await finish(ctx, file, outcome);
    return;
  }
  if (dropped > 0) {
    await ctx.warn(
      `the output went past --max-stored-bytes ${String(maxStoredBytes)}: its first ${String(stored)} bytes are stored, ${String(dropped)} more were dropped, and ${file} was stopped.`,
    );
  }
  const isError = exitCodeOf(outcome) !== 0;
  let shown: { text: string; bytes?: Buffer; ref?: SpillRef; omittedBytes?: number };
  if (stored <= cap) {
    const bytes = await readRange(sink, 0, stored);
    shown = { text: bytes.toString('utf8'), bytes };
  } else {
    shown = await spillFromSink(input, stored, dropped);
  }
  if (shown.ref !== undefined) {
    await ctx.info(`spilled ${String(stored)} bytes to ${shown.ref.locator}`);
  }
  if (options.json === true) {
    const out: RunJson = {
      text: shown.text,
      spilled: shown.ref !== undefined,
      locator: shown.ref?.locator ?? null,
      omittedBytes: shown.omittedBytes ?? null,
      exitCode: outcome.code,
      signal: outcome.signal,
      isError,
    };
    await ctx.print(jsonLine(out));
  } else if (shown.bytes !== undefined) {
    await ctx.printBytes(shown.bytes);
  } else if (shown.ref === undefined) {
    await copyOut(sink, stored, (bytes) => ctx.printBytes(bytes));
  } else {
    // A notice ends without a newline; add one so the shell prompt starts on its own line.
    await ctx.print(shown.text.endsWith('\n') ? shown.text : `${shown.text}\n`);
  }
  // The notice speaks to a model; a person at a terminal also gets the commands to type.
  if (shown.ref !== undefined && ctx.io.stderr.isTTY === true) await ctx.note(spillHintLine(shown.ref.locator));
  await finish(ctx, file, outcome);
}

/**
 * Publishes the stored output and composes the preview and notice with the policy's
 * rules. When the store fails at the end, or the notice does not fit the cap, the output
 * is shown in full instead (read back from the sink), as the policy keeps the original.
 */
async function spillFromSink(
  input: SinkRunInput,
  stored: number,
  dropped: number,
): Promise<{ text: string; bytes?: Buffer; ref?: SpillRef; omittedBytes?: number }> {
  const { ctx, backend, sink, options, maxStoredBytes } = input;
  const cap = options.maxInlineBytes;
  const whole = async (): Promise<{ text: string; bytes?: Buffer }> =>
    options.json === true ? { text: (await readRange(sink, 0, stored)).toString('utf8') } : { text: '' };
  let ref: SpillRef;
  try {
    ref = await sink.publish();
  } catch (error) {
    await ctx.warn(`the output (${String(stored)} bytes) could not be stored under ${ctx.root(options).path} and is printed in full: ${describeError(error)}`);
    return whole();
  }
  const window = previewWindow(cap);
  const head = await readRange(sink, 0, Math.min(window, stored));
  const tail = await readRange(sink, Math.max(0, stored - window), Math.min(window, stored));
  const oneWindow = stored <= window;
  const preface: string[] = [];
  if (!(looksUtf8(head, true, oneWindow) && looksUtf8(tail, oneWindow, true))) {
    preface.push(`(The output is binary or not UTF-8: ${String(stored)} bytes, stored exactly; the preview shows it decoded, with U+FFFD for invalid bytes.)`);
  }
  if (dropped > 0) {
    preface.push(`(Only the first ${String(stored)} bytes were stored: ${String(dropped)} more bytes past the ${String(maxStoredBytes)}-byte limit were dropped and the command was stopped.)`);
  }
  const { composeSpillPreview } = await loadPolicy();
  const preview = composeSpillPreview({
    head: head.toString('utf8'),
    tail: tail.toString('utf8'),
    totalBytes: stored,
    maxInlineBytes: cap,
    locator: ref.locator,
    retrievalHint: retrievalHintFor('spillway-cli'),
    ...(preface.length === 0 ? {} : { preface: preface.join('\n') }),
  });
  if (preview !== undefined) return { text: preview.text, ref, omittedBytes: preview.omittedBytes };
  // Even the notice does not fit: keep the original, as the policy does, and remove the
  // artifact that nothing will reference.
  const removed = await backend.catalog.delete(ref.locator).then(() => true, () => false);
  const leftover = removed ? '' : ` (its stored copy ${ref.locator} is left for spillway gc)`;
  await ctx.warn(`--max-inline-bytes ${String(cap)} cannot hold the spill notice, so the output (${String(stored)} bytes) is printed in full${leftover}.`);
  return whole();
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
