import { randomUUID } from 'node:crypto';
import { fstatSync, openSync, read as readCallback, closeSync } from 'node:fs';
import { promisify } from 'node:util';
import { callId, type SpillRef } from '@spillway/core';
import { fileSinkOf } from '@spillway/core/file-sink';
import type { ChildOutcome } from '../../child.js';
import type { CliBackend } from '../../context.js';
import { decodeUtf8 } from '../../decode.js';
import { fallbackWarning, refusalsText } from '../../fallback-warning.js';
import { suggestedNameFor, textOnlyWarning } from '../save.js';
import { endWithSink, type PublishableOutput } from './file-sink-route.js';
import { LiveOutput } from './live-output.js';
import type { RouteInput } from './shared.js';

const read = promisify(readCallback);

/** The size of one piece copied from stdout into the store. */
const COPY_PIECE_BYTES = 1024 * 1024;

/**
 * Takes over the output of a command that already ran with its merged output going straight
 * into stdout, a regular file that was empty when it started (Claude Code's shell prefix runs
 * every command so, and starts spillway only when the output is past the cap). Past the cap,
 * the output is stored whole and the file is cut back to the preview and notice; within it,
 * the file is left as it is. When no store can take it, the file keeps the whole output.
 */
export async function takeOverStdout(input: RouteInput, outcome: ChildOutcome): Promise<void> {
  const { ctx, maxStoredBytes } = input;
  const fd = ctx.stdoutFd;
  const size = fd === undefined ? undefined : sizeOf(fd);
  const live = fd === undefined || size === undefined ? undefined : LiveOutput.taken(fd, size);
  const reader = fd === undefined ? undefined : openForReading(fd);
  if (live === undefined || size === undefined || reader === undefined) {
    await ctx.warn('stdout is not a regular file that can be read back, so the output is left as it is.');
    ctx.exitCode = outcome.code ?? 1;
    return;
  }
  try {
    const stored = Math.min(size, maxStoredBytes);
    const taken = takenOutput(input, reader, stored);
    await endWithSink(input, taken, { outcome, stored, dropped: size - stored, live });
  } finally {
    closeSync(reader);
  }
}

function sizeOf(fd: number): number | undefined {
  try {
    const stat = fstatSync(fd);
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}

/** A descriptor of its own on the file behind `fd`, which a host may have opened write-only. */
function openForReading(fd: number): number | undefined {
  for (const path of [`/proc/self/fd/${String(fd)}`, `/dev/fd/${String(fd)}`]) {
    try {
      return openSync(path, 'r');
    } catch {
      // The next way, if any.
    }
  }
  return undefined;
}

/**
 * An output in a file as the file-sink route's end sees a sink: read from the descriptor
 * `reader` (stdout's file, or an incoming file no sink took over), and published by copying
 * its first `stored` bytes into the store (the fallback root when the configured store
 * fails, as for `spillway run`).
 */
export function takenOutput(input: RouteInput, reader: number, stored: number): PublishableOutput {
  const readAt = async (buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> =>
    (await read(reader, buffer, offset, Math.min(length, Math.max(0, stored - position)), position)).bytesRead;
  return {
    read: readAt,
    publish: async () => {
      try {
        return await storeTaken(input, input.backend, readAt, stored);
      } catch (error) {
        const { fallback, refused } = await input.ctx.usableFallback(input.options);
        // The caller says why the output is printed in full: every root tried, with why.
        if (fallback === undefined) throw new Error(refusalsText(error, refused), { cause: error });
        let ref: SpillRef;
        try {
          ref = await storeTaken(input, fallback.backend, readAt, stored);
        } catch (second) {
          throw new Error(refusalsText(error, [...refused, { path: fallback.path, error: second }]), { cause: error });
        }
        await input.ctx.warn(fallbackWarning(error, refused, `the output is stored in the fallback root ${fallback.path} instead.`));
        return ref;
      }
    },
  };
}

type ReadAt = (buffer: Uint8Array, offset: number, length: number, position: number) => Promise<number>;

/** Copies `length` bytes into `backend`, byte for byte where it can keep bytes. */
async function storeTaken(input: RouteInput, backend: CliBackend, readAt: ReadAt, length: number): Promise<SpillRef> {
  const request = {
    owner: { sessionId: input.sessionId },
    source: { toolName: input.toolName, callId: callId(randomUUID()), label: `output of ${input.file}` },
    suggestedName: suggestedNameFor(input.toolName),
  };
  const fileSink = fileSinkOf(backend);
  if (fileSink !== undefined) {
    const sink = await fileSink.open(request);
    try {
      for await (const piece of pieces(readAt, length)) await sink.write(piece.bytes, piece.position);
      return await sink.publish();
    } finally {
      await sink.close();
    }
  }
  const bytes = async function* (): AsyncGenerator<Uint8Array> {
    for await (const piece of pieces(readAt, length)) yield piece.bytes;
  };
  if (backend.saveBytesStream !== undefined) return backend.saveBytesStream({ ...request, content: bytes() });
  await input.ctx.warn(textOnlyWarning(backend.name, 'the output'));
  return backend.saveTextStream({ ...request, content: decodeUtf8(bytes()) });
}

async function* pieces(readAt: ReadAt, length: number): AsyncGenerator<{ readonly bytes: Uint8Array; readonly position: number }> {
  let position = 0;
  while (position < length) {
    const buffer = Buffer.allocUnsafe(Math.min(COPY_PIECE_BYTES, length - position));
    const n = await readAt(buffer, 0, buffer.length, position);
    if (n <= 0) return;
    yield { bytes: buffer.subarray(0, n), position };
    position += n;
  }
}
