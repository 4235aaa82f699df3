import { fstatSync, ftruncateSync, writeSync } from 'node:fs';
import { readRange, type StoredReader } from '../../sink-run.js';

/**
 * `spillway run --live`: the head of the output is copied to stdout while the command runs,
 * so that whoever watches stdout (a host's progress view, a model reading a background
 * command's output file) sees it come. Only a stdout that is a regular file, empty at the
 * start, qualifies: when the whole output does not fit, the file is cut back to nothing at
 * the end and gets the preview instead, so it ends exactly as without `--live`.
 *
 * Every write names its position, so the file never gets a hole, whether or not it was
 * opened for appending.
 */
export class LiveOutput {
  readonly #fd: number;
  readonly #limit: number;
  #printed = 0;
  #copying: Promise<void> = Promise.resolve();

  private constructor(fd: number, limit: number) {
    this.#fd = fd;
    this.#limit = limit;
  }

  /** A live output on `fd` that copies at most `limit` bytes, or `undefined` when `fd` does not qualify. */
  static open(fd: number | undefined, limit: number): LiveOutput | undefined {
    if (fd === undefined) return undefined;
    try {
      const stat = fstatSync(fd);
      return stat.isFile() && stat.size === 0 ? new LiveOutput(fd, limit) : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The live output of a command that already wrote all of its output, `size` bytes, to `fd`
   * (a regular file of that size); `undefined` when `fd` is not such a file.
   */
  static taken(fd: number, size: number): LiveOutput | undefined {
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile() || stat.size !== size) return undefined;
    } catch {
      return undefined;
    }
    const live = new LiveOutput(fd, size);
    live.#printed = size;
    return live;
  }

  /** Copies what the sink holds past what was copied, up to the limit; one copy at a time. */
  follow(sink: StoredReader, size: number): Promise<void> {
    this.#copying = this.#copying.then(async () => {
      const end = Math.min(size, this.#limit);
      if (end <= this.#printed) return;
      const bytes = await readRange(sink, this.#printed, end - this.#printed);
      this.#write(bytes);
    }).catch(() => {
      // Best effort while the command runs: the end writes from where the copy stopped.
    });
    return this.#copying;
  }

  /** The output fits: copies the rest of it, so stdout holds it whole. */
  async complete(sink: StoredReader, stored: number): Promise<void> {
    await this.#copying;
    if (stored > this.#printed) this.#write(await readRange(sink, this.#printed, stored - this.#printed));
  }

  /** The output was spilled: stdout is emptied and holds `text` (the preview and notice) alone. */
  async replace(text: string): Promise<void> {
    await this.#copying;
    ftruncateSync(this.#fd, 0);
    this.#printed = 0;
    this.#write(Buffer.from(text, 'utf8'));
  }

  #write(bytes: Uint8Array): void {
    let done = 0;
    while (done < bytes.length) done += writeSync(this.#fd, bytes, done, bytes.length - done, this.#printed + done);
    this.#printed += bytes.length;
  }
}
