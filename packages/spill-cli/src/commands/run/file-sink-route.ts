import { randomUUID } from 'node:crypto';
import { callId, type SpillRef } from '@spillway/core';
import { fileSinkOf, type SpillFileSinkHandle } from '@spillway/core/file-sink';
import type { ChildOutcome } from '../../child.js';
import { fallbackWarning } from '../../fallback-warning.js';
import { copyOut, readRange, runIntoSink, type StoredReader } from '../../sink-run.js';
import { suggestedNameFor } from '../save.js';
import { LiveOutput } from './live-output.js';
import { capFor, failureText, finish, outputScan, previewFromEnds, previewWindow, show, warnPastLimit, type RouteInput, type Shown } from './shared.js';
import type { FinishedScan, OutputScan } from './output-scan.js';

/**
 * Opens the backend's file sink for the output; `undefined` (with the failure) when it
 * cannot be opened, so that the dispatcher can fall back.
 */
export async function openSink(input: RouteInput): Promise<{ sink?: SpillFileSinkHandle; failure?: unknown }> {
  const { backend, sessionId, toolName, file } = input;
  const fileSink = fileSinkOf(backend);
  if (fileSink === undefined) return {};
  try {
    const sink = await fileSink.open({
      owner: { sessionId },
      source: { toolName, callId: callId(randomUUID()), label: `output of ${file}` },
      suggestedName: suggestedNameFor(toolName),
    });
    return { sink };
  } catch (error) {
    return { failure: error };
  }
}

/**
 * The file-sink route: the output goes into the backend's file sink (straight from the
 * child when the volume has room for the whole limit, through this process otherwise),
 * and only the preview is decoded, from the head and tail read back.
 */
export async function runWithSink(input: RouteInput, sink: SpillFileSinkHandle): Promise<void> {
  const { ctx, file, args, options, maxStoredBytes, onSpawn } = input;
  const cap = options.maxInlineBytes;
  const free = await sink.freeBytes();
  // Straight into the file only when a full disk cannot cut the output short: the child's
  // own writes would fail, out of spillway's reach.
  const direct = free !== undefined && free > maxStoredBytes;
  void ctx.info(direct ? 'the command writes into the spill file directly' : 'the output passes through spillway into the spill file');
  const live = options.live === true && direct && options.json !== true ? LiveOutput.open(ctx.stdoutFd, cap) : undefined;
  if (options.live === true && live === undefined) void ctx.info('--live is off: stdout is not an empty regular file (or the output passes through spillway), so the output is printed when the command ends');
  // When the command writes into the file itself, the preview's scan follows it as it grows
  // (on another core, where there is one), so that little is left to scan once it ends.
  const follower = direct ? new SinkScan(sink, cap) : undefined;
  const onSize = (size: number): void => {
    if (live !== undefined) void live.follow(sink, size);
    follower?.follow(size);
  };
  // Under --json the output is one JSON value: once storing fails, what the text route
  // prints as it comes is held here for the document instead.
  const held: Uint8Array[] | undefined = options.json === true ? [] : undefined;
  const run = await runIntoSink(file, args, {
    sink,
    maxStoredBytes,
    direct,
    onSpawn,
    ...(live === undefined && follower === undefined ? {} : { onSize }),
    print: held === undefined ? (bytes) => ctx.printBytes(bytes) : (bytes) => { held.push(bytes); return Promise.resolve(); },
    onStoreFailed: (error) => {
      const given = held === undefined ? 'printed' : 'given in the JSON document';
      return ctx.warn(onFallback(input, error, `the output is ${given} in full.`) ?? `${failureText(error)}: the output could not be stored under ${ctx.root(options).path}, so it is ${given} in full.`);
    },
  });
  const { outcome, storedBytes: stored, droppedBytes: dropped } = run;
  if (run.failure !== undefined) {
    if (held === undefined) await finish(ctx, file, outcome);
    else await show(input, { text: Buffer.concat(held).toString('utf8'), storeError: run.failure }, outcome);
    return;
  }
  if (dropped > 0) {
    await warnPastLimit(ctx, file, maxStoredBytes, stored, dropped);
  }
  await endWithSink(input, sink, { outcome, stored, dropped, live, follower });
}

/**
 * On a fallback root, the warning for its store failing while the output was written or
 * published: why the configured store was given up, the fallback named as refused with this
 * failure, then `outcome`. `undefined` when the configured root took the output.
 */
function onFallback(input: RouteInput, error: unknown, outcome: string): string | undefined {
  const given = input.givenUp;
  return given?.path === undefined ? undefined : fallbackWarning(given.failure, [...given.refused, { path: given.path, error }], outcome);
}

/** Output that can be read back and published as an artifact: a file sink, or an output taken over from stdout. */
export type PublishableOutput = Pick<SpillFileSinkHandle, 'read' | 'publish'>;

/** How the output in a sink came to be there, for {@link endWithSink}. */
export interface SinkEnd {
  /** How the command ended. */
  readonly outcome: ChildOutcome;
  /** Bytes in the sink. */
  readonly stored: number;
  /** Bytes past the limit that were not kept. */
  readonly dropped: number;
  /** stdout, when it shows the output itself (`--live`, or an output taken over from stdout). */
  readonly live?: LiveOutput | undefined;
  /** The scan that followed the output while it was written, if one did: it finishes with the bytes stored. */
  readonly follower?: { finish(stored: number): Promise<FinishedScan> } | undefined;
}

/**
 * Ends a run whose output is in `sink`: an output within the cap is shown whole, a larger
 * one is published and shown as the preview and notice (on `live`, it replaces what stdout
 * holds); the usage log gets the outcome either way.
 */
export async function endWithSink(input: RouteInput, sink: PublishableOutput, end: SinkEnd): Promise<void> {
  const { options } = input;
  const { outcome, stored, dropped, live, follower } = end;
  const cap = options.maxInlineBytes;
  const shownCap = capFor(options, outcome);
  let shown: Shown;
  if (stored <= shownCap) {
    if (live !== undefined) {
      await live.complete(sink, stored);
      await show(input, { text: '', storedBytes: stored }, outcome, { printed: true });
      return;
    }
    const bytes = await readRange(sink, 0, stored);
    shown = { text: bytes.toString('utf8'), bytes };
  } else {
    // A cut output was scanned past its end: scan what is stored again.
    const scanned = (): Promise<FinishedScan> => (follower !== undefined && dropped === 0 ? follower : new SinkScan(sink, cap)).finish(stored);
    shown = await spillFromSink(input, sink, stored, dropped, shownCap, scanned);
  }
  if (shown.locator !== undefined) await input.ctx.info(`spilled ${String(stored)} bytes to ${shown.locator}`);
  if (live !== undefined) {
    if (shown.locator === undefined) await live.complete(sink, stored);
    else await live.replace(shown.text.endsWith('\n') ? shown.text : `${shown.text}\n`);
    await show(input, shown, outcome, { printed: true });
    return;
  }
  await show(input, shown, outcome);
}

/**
 * Publishes the stored output and composes the preview and notice with the policy's
 * rules. When the store fails at the end, or the notice does not fit the cap, the output
 * is shown in full instead (read back from the sink), as the policy keeps the original.
 */
async function spillFromSink(input: RouteInput, sink: PublishableOutput, stored: number, dropped: number, cap: number, scanned: () => Promise<FinishedScan>): Promise<Shown> {
  const { ctx, backend, options, maxStoredBytes } = input;
  const whole = async (storeError?: Shown['storeError']): Promise<Shown> => ({
    ...(options.json === true
      ? { text: (await readRange(sink, 0, stored)).toString('utf8'), storedBytes: stored }
      : { text: '', storedBytes: stored, copyOut: () => copyOut(sink, stored, (bytes) => ctx.printBytes(bytes)) }),
    ...(storeError === undefined ? {} : { storeError }),
  });
  const given = input.givenUp;
  let ref: SpillRef;
  try {
    ref = await sink.publish();
  } catch (error) {
    await ctx.warn(onFallback(input, error, `the output (${String(stored)} bytes) is printed in full.`) ?? `the output (${String(stored)} bytes) could not be stored under ${ctx.root(options).path} and is printed in full: ${failureText(error)}`);
    return whole({ error });
  }
  // Said once the fallback root holds the output, not before: its publish can fail too.
  if (given?.path !== undefined) await ctx.warn(fallbackWarning(given.failure, given.refused, `the output is stored in the fallback root ${given.path} instead.`));
  const window = previewWindow(cap);
  const head = await readRange(sink, 0, Math.min(window, stored));
  const tail = await readRange(sink, Math.max(0, stored - window), Math.min(window, stored));
  const scan = await scanned();
  const preview = await previewFromEnds({ head, tail, stored, dropped, maxStoredBytes, cap, ref, scan, reader: options.noticeReader });
  if (preview !== undefined) return preview;
  // Even the notice does not fit: keep the original, as the policy does, and remove the
  // artifact that nothing will reference.
  const removed = await backend.catalog.delete(ref.locator).then(() => true, () => false);
  const leftover = removed ? '' : ` (its stored copy ${ref.locator} is left for spillway gc)`;
  await ctx.warn(`--max-inline-bytes ${String(cap)} cannot hold the spill notice, so the output (${String(stored)} bytes) is printed in full${leftover}.`);
  return whole();
}

/**
 * The preview's scan of what the sink holds, read back a piece at a time in bounded memory,
 * whatever the size (a huge failing log keeps its first error). `follow` scans up to a size
 * while the command still writes; `finish` scans the rest, up to what was stored.
 */
export class SinkScan {
  readonly #sink: StoredReader;
  readonly #cap: number;
  #scan: Promise<OutputScan> | undefined;
  #scanned = 0;
  #reading: Promise<void> = Promise.resolve();
  #failed = false;
  #buffers: [Buffer, Buffer] | undefined;

  constructor(sink: StoredReader, cap: number) {
    this.#sink = sink;
    // The command's own cap: the one the other routes scan with, before they know how it ends.
    this.#cap = cap;
  }

  /** Scans up to `size` bytes, after what is being scanned already, once the output is past the cap. */
  follow(size: number): void {
    // An output within the cap is shown whole: the policy is not even loaded for it.
    if (size <= this.#cap) return;
    this.#reading = this.#reading.then(() => this.#scanTo(size)).catch(() => {
      this.#failed = true;
    });
  }

  /** Scans the rest, up to `stored`, and answers the scan. */
  async finish(stored: number): Promise<OutputScan> {
    await this.#reading;
    if (this.#failed) throw new Error('the stored output could not be read back for its preview');
    await this.#scanTo(stored);
    this.#scan ??= outputScan(this.#cap);
    return this.#scan;
  }

  async #scanTo(size: number): Promise<void> {
    if (size <= this.#scanned) return;
    this.#scan ??= outputScan(this.#cap);
    const scan = await this.#scan;
    // Two buffers for the whole scan (a new one per call left megabytes of them for the
    // collector): the next piece is read while this one is scanned, so the scan never waits
    // for the thread pool's round trip (a tenth of a second over 64 MiB).
    let [piece, spare] = (this.#buffers ??= [Buffer.allocUnsafe(SCAN_PIECE_BYTES), Buffer.allocUnsafe(SCAN_PIECE_BYTES)]);
    const readAt = (buffer: Buffer, position: number): Promise<number> => this.#sink.read(buffer, 0, Math.min(buffer.length, size - position), position);
    let reading: Promise<number> | undefined = readAt(piece, this.#scanned);
    while (reading !== undefined) {
      const n: number = await reading;
      if (n <= 0) break;
      const next: number = this.#scanned + n;
      reading = next < size ? readAt(spare, next) : undefined;
      scan.push(piece.subarray(0, n));
      this.#scanned = next;
      [piece, spare] = [spare, piece];
    }
  }
}

/**
 * Bytes read back per piece: small enough that each decoded piece stays out of V8's
 * large-object space (1 MiB pieces held a 256 MiB output's run at 181 MiB of RSS; 64 KiB, 89 MiB).
 */
const SCAN_PIECE_BYTES = 64 * 1024;
