/**
 * Sparse line indexes: for each artifact, the byte offset where every `stride`-th line
 * starts (line 1, stride + 1, 2·stride + 1, …), learnt as a side effect of any scan that
 * walks the artifact from its first byte (a read that skips to a line, a grep), so a
 * later read starts from the nearest checkpoint instead of from byte 0. The indexes of
 * all artifacts share one LRU bound.
 */

/** What is known about one artifact's lines. */
export class LineIndex {
  /** `starts[k]` is the byte offset of line `k * stride + 1`. */
  readonly starts: number[] = [0];
  /** An exact position learnt from the last read: where line `line` starts. */
  hint: { line: number; byte: number } | undefined;

  constructor(readonly stride: number) {}

  /** The best known starting point at or before `line`. */
  nearest(line: number): { line: number; byte: number } {
    const k = Math.min(Math.floor((line - 1) / this.stride), this.starts.length - 1);
    let best = { line: k * this.stride + 1, byte: this.starts[k] ?? 0 };
    const hint = this.hint;
    if (hint !== undefined && hint.line <= line && hint.line > best.line) best = hint;
    return best;
  }

  /**
   * Records that `line` starts at `byte`. Only the next missing checkpoint is appended, so
   * the checkpoints stay contiguous from line 1.
   */
  learn(line: number, byte: number): void {
    if ((line - 1) % this.stride !== 0) return;
    const k = (line - 1) / this.stride;
    if (k === this.starts.length) this.starts.push(byte);
  }

  /** The first line number for which no checkpoint is known yet. */
  get nextCheckpointLine(): number {
    return this.starts.length * this.stride + 1;
  }
}

/** An LRU of {@link LineIndex}es keyed by a byte source's `cacheKey`. */
export class LineIndexCache {
  readonly #entries = new Map<string, LineIndex>();

  /**
   * @param maxArtifacts - how many artifacts keep an index (0 disables caching)
   * @param stride - lines between checkpoints
   */
  constructor(
    readonly maxArtifacts: number,
    readonly stride: number,
  ) {}

  /** The index for `key` (created empty when unknown), or a throwaway one without a key. */
  get(key: string | undefined): LineIndex {
    if (key === undefined || this.maxArtifacts === 0) return new LineIndex(this.stride);
    let index = this.#entries.get(key);
    if (index === undefined) {
      index = new LineIndex(this.stride);
      if (this.#entries.size >= this.maxArtifacts) {
        const oldest = this.#entries.keys().next();
        if (oldest.done !== true) this.#entries.delete(oldest.value);
      }
    } else {
      this.#entries.delete(key);
    }
    this.#entries.set(key, index);
    return index;
  }

  /** How many artifacts have an index now. */
  get size(): number {
    return this.#entries.size;
  }
}
