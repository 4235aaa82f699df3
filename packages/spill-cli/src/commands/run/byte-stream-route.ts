import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { callId, type SpillRef } from '@spillway/core';
import { runChild, stopRunning } from '../../child.js';
import { suggestedNameFor } from '../save.js';
import { ByteChannel } from './byte-channel.js';
import { failureText, outputScan, previewFromEnds, previewWindow, show, warnPastLimit, type RouteInput, type Shown } from './shared.js';
import type { OutputScan } from './output-scan.js';

/**
 * Output up to this size is also kept here while it is stored, so that a save that fails
 * leaves it printed in full (as the policy keeps a result it cannot store) rather than cut
 * to its head and tail.
 */
const RETAIN_BYTES = 1024 * 1024;

/** The first and last bytes of a stream, at most `window` of each, in bounded memory. */
class Ends {
  readonly #window: number;
  #head: Uint8Array[] = [];
  #headBytes = 0;
  #tail: Uint8Array[] = [];
  #tailBytes = 0;
  constructor(window: number) {
    this.#window = window;
  }
  add(chunk: Uint8Array): void {
    if (this.#headBytes < this.#window) {
      const part = chunk.subarray(0, this.#window - this.#headBytes);
      this.#head.push(part);
      this.#headBytes += part.length;
    }
    this.#tail.push(chunk);
    this.#tailBytes += chunk.length;
    // Drop whole chunks from the front while the rest still covers the window.
    while (this.#tail.length > 1 && this.#tailBytes - (this.#tail[0]?.length ?? 0) >= this.#window) {
      this.#tailBytes -= this.#tail.shift()?.length ?? 0;
    }
  }
  get head(): Buffer {
    return Buffer.concat(this.#head);
  }
  get tail(): Buffer {
    const all = Buffer.concat(this.#tail);
    return all.subarray(Math.max(0, all.length - this.#window));
  }
}

/**
 * The byte-stream route, for a backend that stores bytes exactly but has no file on this
 * host (an object store): output up to the cap stays in memory and is printed as it is;
 * once it passes the cap, everything goes into `saveBytesStream` as it arrives (with
 * backpressure), and only the first and last bytes are kept for the preview. Past
 * --max-stored-bytes nothing more is stored and the command is stopped.
 */
export async function runIntoByteStream(input: RouteInput, save: (content: AsyncIterable<Uint8Array>) => Promise<SpillRef>): Promise<void> {
  const { ctx, file, args, options, maxStoredBytes: limit, onSpawn } = input;
  const cap = options.maxInlineBytes;
  const ends = new Ends(previewWindow(cap));
  // Everything so far, while it is at most RETAIN_BYTES (or the cap); then dropped.
  let retained: Uint8Array[] | undefined = [];
  // The output before the store is opened: at most the cap.
  let early: Uint8Array[] = [];
  const retainBytes = Math.max(cap, RETAIN_BYTES);
  let stored = 0;
  let dropped = 0;
  let child: ChildProcess | undefined;
  let channel: ByteChannel | undefined;
  let saving: Promise<{ ref?: SpillRef; error?: unknown }> | undefined;
  // Every stored byte passes through here, so the preview's scan for salient lines costs
  // no second pass.
  let scan: OutputScan | undefined;
  const stop = (): void => { stopRunning(child); };
  const onData = async (chunk: Buffer): Promise<void> => {
    const keep = chunk.subarray(0, Math.max(0, Math.min(chunk.length, limit - stored)));
    if (keep.length < chunk.length) {
      if (dropped === 0) stop();
      dropped += chunk.length - keep.length;
    }
    if (keep.length === 0) return;
    stored += keep.length;
    ends.add(keep);
    scan ??= await outputScan(cap);
    scan.push(keep);
    if (retained !== undefined) {
      if (stored <= retainBytes) retained.push(keep);
      else retained = undefined;
    }
    if (channel === undefined && stored <= cap) {
      early.push(keep);
      return;
    }
    if (channel === undefined) {
      const opened = new ByteChannel();
      channel = opened;
      saving = save(opened).then(
        (ref) => ({ ref }),
        (error: unknown) => {
          opened.stop();
          return { error };
        },
      );
      void ctx.info('the output passes the cap: it is streamed into the store');
      for (const before of early) await channel.push(before);
      early = [];
    }
    await channel.push(keep);
  };
  const outcome = await runChild(file, args, {
    onData,
    onSpawn: (c) => {
      child = c;
      onSpawn(c);
    },
  });
  if (dropped > 0) {
    await warnPastLimit(ctx, file, limit, stored, dropped);
  }
  if (channel === undefined || saving === undefined) {
    const bytes = Buffer.concat(early);
    await show(input, { text: bytes.toString('utf8'), bytes }, outcome);
    return;
  }
  channel.close();
  const saved = await saving;
  await show(input, await shownFor(input, saved, ends, stored, dropped, retained, scan), outcome);
}

/** What to show once the save has settled: the preview, or head and tail when it failed. */
async function shownFor(
  input: RouteInput,
  saved: { ref?: SpillRef; error?: unknown },
  ends: Ends,
  stored: number,
  dropped: number,
  retained: readonly Uint8Array[] | undefined,
  scan: OutputScan | undefined,
): Promise<Shown> {
  const { ctx, backend, options, maxStoredBytes } = input;
  const cap = options.maxInlineBytes;
  const { head, tail } = ends;
  const { ref } = saved;
  if (ref === undefined && retained !== undefined) {
    await ctx.warn(`the output (${String(stored)} bytes) could not be spilled and is printed in full: ${failureText(saved.error)}`);
    const bytes = Buffer.concat(retained);
    return { text: bytes.toString('utf8'), bytes, storeError: { error: saved.error } };
  }
  if (ref === undefined) {
    // The output went into the store as it came and nothing kept it here: its middle is lost.
    await ctx.warn(`the output (${String(stored)} bytes) could not be stored, so only its head and tail are shown: ${failureText(saved.error)}`);
    const omitted = Math.max(0, stored - head.length - tail.length);
    return { text: `${head.toString('utf8')}\n… [${String(omitted)} bytes not stored and not shown] …\n${tail.toString('utf8')}`, storedBytes: stored, storeError: { error: saved.error } };
  }
  await ctx.info(`spilled ${String(stored)} bytes to ${ref.locator}`);
  const preview = await previewFromEnds({ head, tail, stored, dropped, maxStoredBytes, cap, ref, scan, reader: options.noticeReader });
  if (preview !== undefined) return preview;
  // Even the notice does not fit: show the original, read back from the store, and remove
  // the artifact that nothing will reference.
  const readBytes = backend.reader.readBytes?.bind(backend.reader);
  const remove = async (): Promise<void> => {
    const removed = await backend.catalog.delete(ref.locator).then(() => true, () => false);
    const leftover = removed ? '' : ` (its stored copy ${ref.locator} is left for spillway gc)`;
    await ctx.warn(`--max-inline-bytes ${String(cap)} cannot hold the spill notice, so the output (${String(stored)} bytes) is printed in full${leftover}.`);
  };
  if (readBytes === undefined) {
    await ctx.warn(`--max-inline-bytes ${String(cap)} cannot hold the spill notice; the full output is stored at ${ref.locator}.`);
    return { text: `${head.toString('utf8')}${stored > head.length ? '\n…\n' : ''}` };
  }
  if (options.json === true) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of readBytes(ref.locator)) chunks.push(chunk);
    await remove();
    return { text: Buffer.concat(chunks).toString('utf8') };
  }
  return {
    text: '',
    storedBytes: stored,
    copyOut: async () => {
      for await (const chunk of readBytes(ref.locator)) await ctx.printBytes(chunk);
      await remove();
    },
  };
}

/** The request for the artifact of a run. */
export function byteSaveOf(input: RouteInput): (content: AsyncIterable<Uint8Array>) => Promise<SpillRef> {
  const { backend, sessionId, toolName, file } = input;
  const saveBytesStream = backend.saveBytesStream?.bind(backend);
  if (saveBytesStream === undefined) throw new TypeError('byteSaveOf needs a backend with saveBytesStream');
  return (content) =>
    saveBytesStream({
      owner: { sessionId },
      source: { toolName, callId: callId(randomUUID()), label: `output of ${file}` },
      suggestedName: suggestedNameFor(toolName),
      content,
    });
}
