import { type SpillBackend, SpillError, utf8ByteLength } from '@spillway/core';
import { readWholeArtifact, removeUnreferenced } from './artifact.js';
import { ChunkChannel } from './channel.js';
import { lostNotice, previewWithNote, shortLostNotice, shortUnshownNotice, unshownNotice } from './compose.js';
import { formatSpillNotice } from './notice.js';
import type { ResolvedOptions } from './options.js';
import { composeOutline } from './outline.js';
import { isHigh, PreviewCollector } from './preview.js';
import { PreviewScanner } from './scan.js';
import { startSave, timeoutError, type SaveOutcome, type StartedSave } from './save.js';
import { eventNames, saveRequest, screenExecution, spillBlocker, type ExecutionInfo } from './screen.js';
import type { SpillEvent, SpillKeptReason, SpillStream, ToolResult } from './types.js';

/** Code units a stream's queue to the backend may hold, at least, before `push` waits. */
const MIN_HIGH_WATER_UNITS = 64 * 1024;

export { lostNotice } from './compose.js';

/** Creates the stream behind `SpillPolicy.stream`. */
export function createSpillStream(exec: unknown, options: ResolvedOptions, emit: (event: SpillEvent) => void): SpillStream {
  let info: ExecutionInfo | undefined;
  try {
    info = screenExecution(exec, options);
  } catch {
    info = undefined; // a hostile execution object: pass everything through
  }
  return new PolicyStream(info, options, emit);
}

type Held = { readonly reason: SpillKeptReason; readonly error?: unknown };

/**
 * Modes:
 * - `whole`: every chunk is kept. Used while the output is at or under the cap, for the
 *   whole run when the execution is excluded (nothing is measured), and when the output is
 *   over the cap but cannot be spilled (`held` says why).
 * - `spill`: the output crossed the cap; chunks stream into `saveTextStream` through a
 *   bounded queue while only the first and last `cap + 2` code units, and the bounded scan for
 *   salient lines, stay in memory.
 */
export class PolicyStream implements SpillStream {
  readonly #info: ExecutionInfo | undefined;
  readonly #options: ResolvedOptions;
  readonly #emit: (event: SpillEvent) => void;
  readonly #cap: number;
  readonly #window: number;

  #state: 'open' | 'finishing' | 'done' | 'aborted' = 'open';
  #abortError: SpillError = new SpillError('SPILL_ABORTED', 'The spill stream was aborted.');
  #mode: 'whole' | 'spill' = 'whole';
  #bytes = 0;
  #carry = '';
  #pieces: string[] = [];
  #held: Held | undefined;

  #preview: PreviewCollector | undefined;
  #channel: ChunkChannel | undefined;
  #save: StartedSave | undefined;
  #finishing: Promise<ToolResult> | undefined;

  constructor(info: ExecutionInfo | undefined, options: ResolvedOptions, emit: (event: SpillEvent) => void) {
    this.#info = info;
    this.#options = options;
    this.#emit = emit;
    this.#cap = options.cap ?? 0;
    // Enough for the preview cuts, which scan at most `cap - 1` bytes from either end and
    // look one code unit further to keep surrogate pairs whole.
    this.#window = this.#cap + 2;
  }

  /** Code units this stream currently holds (kept chunks, preview buffers, queue). For tests. */
  get retainedUnits(): number {
    let units = this.#carry.length + (this.#preview?.retainedUnits ?? 0) + (this.#channel?.queuedUnits ?? 0);
    for (const piece of this.#pieces) units += piece.length;
    return units;
  }

  push(chunk: string): Promise<void> {
    if (this.#state === 'aborted') return Promise.reject(this.#abortError);
    if (this.#state !== 'open') return Promise.reject(new TypeError('push() was called after finish(); start a new stream.'));
    if (typeof chunk !== 'string') {
      const got = (chunk as unknown) === null ? 'null' : typeof chunk;
      return Promise.reject(new TypeError(`push() takes a string chunk; got ${got}.`));
    }
    let piece = this.#carry + chunk;
    this.#carry = '';
    // Never hand the backend a chunk that ends inside a surrogate pair: encoded alone,
    // each half would become U+FFFD and the stored bytes would differ from the text.
    if (isHigh(piece.charCodeAt(piece.length - 1))) {
      this.#carry = piece.slice(-1);
      piece = piece.slice(0, -1);
    }
    if (piece.length > 0) this.#accept(piece);
    return this.#waitForBackend();
  }

  finish(options: { readonly isError?: boolean } = {}): Promise<ToolResult> {
    if (this.#state === 'aborted') return Promise.reject(this.#abortError);
    if (this.#finishing !== undefined) return this.#finishing;
    this.#state = 'finishing';
    const isError = typeof options === 'object' && (options as unknown) !== null ? options.isError : undefined;
    this.#finishing = this.#finish(isError);
    return this.#finishing;
  }

  async abort(reason?: unknown): Promise<void> {
    if (this.#state === 'aborted' || this.#state === 'done') return;
    this.#state = 'aborted';
    this.#abortError = new SpillError('SPILL_ABORTED', 'The spill stream was aborted, so nothing was stored; start a new stream to retry.', {
      cause: reason,
    });
    this.#pieces = [];
    this.#dropPreview();
    this.#carry = '';
    const save = this.#save;
    if (save === undefined) return;
    save.abort(this.#abortError, 'save-rejected'); // the reason is never reported: abort() emits no event
    this.#channel?.fail(this.#abortError);
    // Wait, within the same time budget as a save, for the backend to notice.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.#options.saveTimeoutMs);
      void save.finished.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  #accept(piece: string): void {
    this.#bytes += utf8ByteLength(piece);
    if (this.#mode === 'whole') {
      this.#pieces.push(piece);
      if (this.#info !== undefined && this.#held === undefined && this.#bytes > this.#cap) this.#startSpill(this.#info);
      return;
    }
    this.#preview?.keep(piece);
    this.#channel?.put(piece);
  }

  #startSpill(info: ExecutionInfo): void {
    const blocker = spillBlocker(info, this.#options, this.#bytes);
    const backend = this.#options.backend;
    if (blocker !== undefined || backend === undefined) {
      this.#held = { reason: blocker ?? 'no-backend' };
      return;
    }
    const pieces = this.#pieces;
    this.#pieces = [];
    const scanner = this.#options.preview === 'head-tail' ? undefined : new PreviewScanner(this.#cap);
    this.#preview = new PreviewCollector(this.#window, scanner);
    this.#preview.seed(pieces);
    const channel = new ChunkChannel(pieces, Math.max(this.#window, MIN_HIGH_WATER_UNITS));
    this.#channel = channel;
    this.#mode = 'spill';
    const request = { ...saveRequest(info), content: channel };
    const save = startSave((signal) => backend.saveTextStream(request, { signal }), () => this.#bytes);
    this.#save = save;
    void save.finished.then(() => {
      this.#onSaveEnded();
    });
    if (save.peek() !== undefined) this.#onSaveEnded(); // it threw synchronously
  }

  /** The save ended (or was given up on) while output may still be coming. */
  #onSaveEnded(): void {
    const save = this.#save;
    const channel = this.#channel;
    if (save === undefined || channel === undefined || this.#state === 'aborted') return;
    if (this.#state === 'open') {
      // A save cannot succeed before its input has ended: any answer now is a failure.
      const outcome = save.peek();
      const failure: Held =
        outcome === undefined || outcome.ok
          ? {
              reason: 'malformed-ref',
              error: new SpillError('SPILL_STORAGE_FAILED', 'The backend finished saving before the output ended; fix the backend.', {
                cause: outcome?.ok === true ? outcome.ref : undefined,
              }),
            }
          : { reason: outcome.reason, error: outcome.error };
      save.abort(failure.error, failure.reason);
      this.#giveUp(failure);
    }
  }

  /**
   * Stops feeding the backend. If it never took a chunk, everything is still queued, so
   * the stream goes back to keeping the whole output (as `apply` would); otherwise what it
   * took is gone and only the preview buffers remain.
   */
  #giveUp(failure: Held): void {
    const channel = this.#channel;
    if (channel === undefined || this.#mode !== 'spill') return;
    if (!channel.pulledAny) {
      this.#pieces = channel.takeAll();
      this.#mode = 'whole';
      this.#held = failure;
      this.#dropPreview();
    }
    channel.fail(failure.error);
  }

  /** Releases the preview's buffers. */
  #dropPreview(): void {
    this.#preview?.drop();
    this.#preview = undefined;
  }

  /** Re-reads the mode (methods called in between may have changed it). */
  #isSpilling(): boolean {
    return this.#mode === 'spill';
  }

  async #waitForBackend(): Promise<void> {
    const channel = this.#channel;
    if (this.#mode !== 'spill' || channel === undefined || channel.queuedUnits <= channel.highWater) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stalled = await Promise.race([
      channel.waitForRoom().then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => {
          resolve(true);
        }, this.#options.saveTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (stalled && this.#state === 'open' && this.#isSpilling()) {
      const error = timeoutError(this.#options.saveTimeoutMs);
      this.#save?.abort(error, 'timeout');
      this.#giveUp({ reason: 'timeout', error });
    }
  }

  async #finish(isError: boolean | undefined): Promise<ToolResult> {
    if (this.#carry.length > 0) {
      const carry = this.#carry;
      this.#carry = '';
      this.#accept(carry);
    }
    const info = this.#info;
    const names = info === undefined ? undefined : eventNames(info);
    let text: string;
    if (this.#mode === 'whole' || names === undefined) {
      text = this.#takeWhole(names);
    } else {
      this.#channel?.close();
      const outcome = (await this.#save?.settle(this.#options.saveTimeoutMs)) as SaveOutcome;
      if (this.#state === 'aborted') throw this.#abortError;
      if (!outcome.ok) this.#giveUp({ reason: outcome.reason, error: outcome.error });
      text = this.#isSpilling() ? await this.#fromPreview(outcome, names) : this.#takeWhole(names);
    }
    if (this.#state === 'aborted') throw this.#abortError;
    this.#state = 'done';
    const block = { type: 'text', text } as const;
    return isError === undefined ? { content: [block] } : { content: [block], isError };
  }

  #takeWhole(names: { toolName: string; callId: string } | undefined): string {
    const text = this.#pieces.join('');
    this.#pieces = [];
    if (this.#held !== undefined && names !== undefined) {
      const { reason, error } = this.#held;
      this.#emit({ type: 'kept', ...names, reason, bytes: this.#bytes, ...(error === undefined ? {} : { error }) });
    }
    return text;
  }

  async #fromPreview(outcome: SaveOutcome, names: { toolName: string; callId: string }): Promise<string> {
    const source = (this.#preview as PreviewCollector).take(this.#bytes);
    this.#preview = undefined;
    const bytes = this.#bytes;
    const cap = this.#cap;
    const previewLimit = this.#options.previewLimit;
    if (!outcome.ok) {
      const lost = previewWithNote(source, cap, previewLimit, [lostNotice, shortLostNotice]);
      this.#emit({ type: 'truncated', ...names, reason: outcome.reason, bytes, shownBytes: lost.shownBytes, error: outcome.error });
      return lost.text;
    }
    const { locator, retrievalHint } = outcome.ref;
    const notice = (omittedBytes: number): string => formatSpillNotice({ omittedBytes, locator, retrievalHint });
    const replacement = composeOutline(source, cap, previewLimit, notice);
    if (replacement !== undefined) {
      this.#emit({ type: 'spilled', ...names, bytes, shownBytes: replacement.shownBytes, locator, ms: outcome.ms });
      return replacement.text;
    }
    // Even the notice is over the cap, so `apply` would keep the original. The stream no
    // longer holds it, but the backend does: read it back, and delete the artifact that
    // nothing will reference, exactly as `apply` does.
    const backend = this.#options.backend as SpillBackend;
    const timeoutMs = this.#options.saveTimeoutMs;
    const whole = await readWholeArtifact(backend, locator, { bytes, head: source.head, tail: source.tail }, timeoutMs);
    if (whole.ok) {
      const removed = await removeUnreferenced(backend, locator, timeoutMs);
      this.#emit({ type: 'kept', ...names, reason: 'notice-too-large', bytes, locator, removed });
      return whole.text;
    }
    // No way back to the original: the most honest answer that fits. The artifact stays,
    // as it is the only full copy, and the event names it.
    const shown = previewWithNote(source, cap, previewLimit, [unshownNotice, shortUnshownNotice]);
    this.#emit({
      type: 'truncated',
      ...names,
      reason: 'notice-too-large',
      bytes,
      shownBytes: shown.shownBytes,
      locator,
      ...(whole.error === undefined ? {} : { error: whole.error }),
    });
    return shown.text;
  }
}
