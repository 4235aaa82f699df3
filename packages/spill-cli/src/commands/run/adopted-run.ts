import type { ChildProcess } from 'node:child_process';
import { homedir } from 'node:os';
import { basename } from 'node:path';
import type { SpillFileSinkHandle } from '@spillway/core/file-sink';
import type { ChildOutcome } from '../../child.js';
import { CliContext, type CliIO } from '../../context.js';
import { resolveMaxStoredBytes } from '../../options.js';
import type { FastRun, OutputTakeover } from '../../run-fast.js';
import { cappedSinkWriter } from '../../sink-run.js';
import { endWithSink, openSink } from './file-sink-route.js';
import { describeError, finish, outputScan, type RouteInput } from './shared.js';
import type { OutputScan } from './output-scan.js';

/** What {@link adoptRun} takes over: the fast path's command, and its child once started. */
export interface AdoptedRunSpec extends FastRun {
  readonly child: () => ChildProcess | undefined;
}

/**
 * Takes over a `spillway run` that the fast path started, once its output is past the cap:
 * the output goes on into the backend's file sink (the fallback root's when the root cannot
 * be used), as on the full program's piped route, and ends as that route does. When no root
 * can be written, the output is printed in full.
 */
export async function adoptRun(spec: AdoptedRunSpec): Promise<OutputTakeover> {
  const io: CliIO = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd(), homedir: homedir() };
  const ctx = new CliContext(io);
  const options = { ...spec.options, live: false, json: false };
  const base: RouteInput = {
    ctx,
    backend: ctx.backend(options),
    file: spec.file,
    args: spec.args,
    options,
    sessionId: ctx.session(options.session),
    toolName: options.name ?? (basename(spec.file) || 'output'),
    maxStoredBytes: resolveMaxStoredBytes(options.maxStoredBytes, io.env),
    onSpawn: () => undefined,
  };
  let input = base;
  const opened = await openSink(base);
  const failure = opened.failure;
  let sink = opened.sink;
  if (sink === undefined) {
    const fallback = await ctx.usableFallback(options);
    const second = fallback === undefined ? undefined : await openSink({ ...base, backend: fallback.backend, fallenBack: true });
    if (fallback !== undefined && second?.sink !== undefined) {
      await ctx.warn(`${describeError(failure)}: the output is stored in the fallback root ${fallback.path} instead.`);
      input = { ...base, backend: fallback.backend, fallenBack: true };
      sink = second.sink;
    } else {
      await ctx.warn(`${describeError(failure)}: the output is printed in full, without spilling.`);
    }
  }
  return sink === undefined ? printedInFull(ctx, spec.file) : intoSink(input, sink, spec.child, await outputScan(options.maxInlineBytes));
}

/** No store can take the output: it is printed as it comes. */
function printedInFull(ctx: CliContext, file: string): OutputTakeover {
  return {
    write: (chunk) => ctx.printBytes(chunk),
    end: async (outcome) => {
      await finish(ctx, file, outcome);
      return ctx.exitCode;
    },
  };
}

/**
 * The output goes into `sink`; past `--max-stored-bytes` the rest is dropped and the command
 * is stopped, and when a write fails what is stored is printed, then the rest as it comes.
 * Every stored piece passes through `scan` on its way, while it is written, so the preview
 * needs no second pass over the output.
 */
function intoSink(input: RouteInput, sink: SpillFileSinkHandle, child: () => ChildProcess | undefined, scan: OutputScan): OutputTakeover {
  const { ctx, file, maxStoredBytes: limit, options } = input;
  const stop = (): void => {
    const c = child();
    if (c !== undefined && c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  };
  const writer = cappedSinkWriter(sink, limit, {
    stop,
    print: (bytes) => ctx.printBytes(bytes),
    onStoreFailed: (error) => ctx.warn(`${describeError(error)}: the output could not be stored under ${ctx.root(options).path}, so it is printed in full.`),
    onKept: (bytes) => {
      scan.push(bytes);
    },
  });
  return {
    write: (chunk) => writer.write(chunk),
    end: async (outcome: ChildOutcome) => {
      try {
        const { position, dropped } = writer;
        if (writer.failure !== undefined) {
          await finish(ctx, file, outcome);
        } else {
          if (dropped > 0) {
            await ctx.warn(
              `the output went past --max-stored-bytes ${String(limit)}: its first ${String(position)} bytes are stored, ${String(dropped)} more were dropped, and ${file} was stopped.`,
            );
          }
          await endWithSink(input, sink, { outcome, stored: position, dropped, follower: { finish: () => Promise.resolve(scan) } });
        }
      } finally {
        await sink.close();
      }
      return ctx.exitCode;
    },
  };
}
