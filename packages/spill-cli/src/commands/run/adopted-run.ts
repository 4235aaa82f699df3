import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fstatSync, read as readCallback } from 'node:fs';
import { homedir } from 'node:os';
import { basename } from 'node:path';
import { promisify } from 'node:util';
import { callId } from '@spillway/core';
import { fileSinkOf, type SpillFileSinkHandle } from '@spillway/core/file-sink';
import type { LocalFileSink } from '@spillway/local';
import { discardIncomingFile, type IncomingFile } from '@spillway/local/incoming';
import { stopRunning, type ChildOutcome } from '../../child.js';
import { CliContext, type CliIO } from '../../context.js';
import { fallbackWarning } from '../../fallback-warning.js';
import type { FastRun, FileTakeover, OutputTakeover } from '../../run-fast.js';
import { cappedSinkWriter, type StoredReader } from '../../sink-run.js';
import { suggestedNameFor } from '../save.js';
import { endWithSink, openSink, SinkScan, type PublishableOutput } from './file-sink-route.js';
import { failureText, finish, outputScan, warnPastLimit, type RouteInput } from './shared.js';
import type { OutputScan } from './output-scan.js';
import { takenOutput } from './taken-output.js';

const read = promisify(readCallback);

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
  const base = routeInput(spec);
  const { ctx, options } = base;
  let input = base;
  const opened = await openSink(base);
  const failure = opened.failure;
  let sink = opened.sink;
  if (sink === undefined) {
    const { fallback, refused } = await ctx.usableFallback(options);
    const second = fallback === undefined ? undefined : await openSink({ ...base, backend: fallback.backend, fallenBack: true });
    if (fallback !== undefined && second?.sink !== undefined) {
      await ctx.warn(fallbackWarning(failure, refused, `the output is stored in the fallback root ${fallback.path} instead.`));
      input = { ...base, backend: fallback.backend, fallenBack: true };
      sink = second.sink;
    } else {
      // A fallback root that passed its check but whose sink would not open is refused too.
      const all = fallback === undefined ? refused : [...refused, { path: fallback.path, error: second?.failure ?? 'it has no file sink' }];
      await ctx.warn(fallbackWarning(failure, all, 'the output is printed in full, without spilling.'));
    }
  }
  return sink === undefined ? printedInFull(ctx, spec.file) : intoSink(input, sink, spec.child, await outputScan(options.maxInlineBytes));
}

/** What a takeover works with: the context and options the full program's routes take. */
function routeInput(spec: AdoptedRunSpec): RouteInput {
  const io: CliIO = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd(), homedir: homedir() };
  const ctx = new CliContext(io);
  const options = { ...spec.options, live: false, json: false };
  return {
    ctx,
    backend: ctx.backend(options),
    file: spec.file,
    args: spec.args,
    options,
    sessionId: ctx.session(options.session),
    toolName: options.name ?? (basename(spec.file) || 'output'),
    maxStoredBytes: spec.maxStoredBytes,
    onSpawn: () => undefined,
  };
}

/** What {@link adoptFileRun} takes over: the fast path's command, writing into `incoming`. */
export interface AdoptedFileRunSpec extends AdoptedRunSpec {
  /** The incoming file the command writes into; from here on this takeover removes or publishes it. */
  readonly incoming: IncomingFile;
}

/**
 * Takes over a `spillway run` whose command writes into an incoming file of the root, once
 * its output is past the cap: the backend's file sink adopts the very file, the preview's
 * scan follows it as it grows, and the run ends as the full program's direct route does
 * (past `--max-stored-bytes` the command is stopped and the file cut back). When the sink
 * cannot adopt it, the output is read from the file and copied into the store, or the
 * fallback root, when the command ends; when nothing can store it, it is printed in full.
 */
export async function adoptFileRun(spec: AdoptedFileRunSpec): Promise<FileTakeover> {
  const input = routeInput(spec);
  const { ctx, maxStoredBytes: limit, options } = input;
  const sink = await adoptIncoming(input, spec.incoming);
  const fromFile: StoredReader = {
    read: async (buffer, offset, length, position) => (await read(spec.incoming.fd, buffer, offset, length, position)).bytesRead,
  };
  const follower = new SinkScan(sink ?? fromFile, options.maxInlineBytes);
  let stopped = false;
  return {
    follow(size) {
      follower.follow(Math.min(size, limit));
      if (size > limit && !stopped) {
        stopped = true;
        stopRunning(spec.child());
      }
    },
    end: async (outcome) => {
      try {
        const size = fstatSync(spec.incoming.fd).size;
        const stored = Math.min(size, limit);
        const dropped = size - stored;
        if (dropped > 0) {
          if (sink !== undefined) await sink.truncate(stored);
          await warnPastLimit(ctx, spec.file, limit, stored, dropped);
        }
        const output: PublishableOutput = sink ?? takenOutput(input, spec.incoming.fd, stored);
        await endWithSink(input, output, { outcome, stored, dropped, follower });
      } finally {
        if (sink !== undefined) await sink.close();
        else discardIncomingFile(spec.incoming);
      }
      return ctx.exitCode;
    },
  };
}

/**
 * The backend's file sink with `incoming` as its temp file, or `undefined` (with a warning
 * when the sink refused it) when the backend has no such sink or cannot take the file.
 */
async function adoptIncoming(input: RouteInput, incoming: IncomingFile): Promise<SpillFileSinkHandle | undefined> {
  const sink = fileSinkOf(input.backend) as Partial<LocalFileSink> | undefined;
  if (typeof sink?.adopt !== 'function') return undefined;
  try {
    return await sink.adopt(
      {
        owner: { sessionId: input.sessionId },
        source: { toolName: input.toolName, callId: callId(randomUUID()), label: `output of ${input.file}` },
        suggestedName: suggestedNameFor(input.toolName),
      },
      incoming,
    );
  } catch (error) {
    await input.ctx.warn(`${failureText(error)}: the output is copied out of ${incoming.path} once ${input.file} ends.`);
    return undefined;
  }
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
  const stop = (): void => { stopRunning(child()); };
  const writer = cappedSinkWriter(sink, limit, {
    stop,
    print: (bytes) => ctx.printBytes(bytes),
    onStoreFailed: (error) => ctx.warn(`${failureText(error)}: the output could not be stored under ${ctx.root(options).path}, so it is printed in full.`),
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
            await warnPastLimit(ctx, file, limit, position, dropped);
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
