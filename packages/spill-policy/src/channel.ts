/**
 * A single-producer queue of string chunks that a backend consumes as an
 * `AsyncIterable<string>`. The producer can wait for room (backpressure), and can fail
 * the queue, which makes the consumer's next read reject so that the backend publishes
 * nothing.
 */
export class ChunkChannel implements AsyncIterableIterator<string> {
  readonly #items: string[] = [];
  #first = 0;
  #units = 0;
  #closed = false;
  #failed = false;
  #failure: Error = new Error('The channel failed.');
  #pulled = false;
  #abandoned = false;
  readonly #readers: {
    resolve: (result: IteratorResult<string, undefined>) => void;
    reject: (error: unknown) => void;
  }[] = [];
  #roomWaiters: (() => void)[] = [];

  /**
   * @param initial - chunks already waiting
   * @param highWater - code units the queue may hold before {@link waitForRoom} waits
   */
  constructor(
    initial: readonly string[],
    readonly highWater: number,
  ) {
    for (const item of initial) this.put(item);
  }

  /** True once the consumer has taken at least one chunk. */
  get pulledAny(): boolean {
    return this.#pulled;
  }

  /** Code units waiting in the queue. */
  get queuedUnits(): number {
    return this.#units;
  }

  /**
   * Adds a chunk. Ignored once the channel failed or the input was closed, and once the
   * consumer stopped after reading something (those chunks could never be recovered);
   * a consumer that stopped before reading anything leaves them queued for `takeAll`.
   */
  put(item: string): void {
    if (this.#failed || this.#closed || (this.#abandoned && this.#pulled)) return;
    const reader = this.#readers.shift();
    if (reader !== undefined) {
      this.#pulled = true;
      reader.resolve({ value: item, done: false });
      return;
    }
    this.#items.push(item);
    this.#units += item.length;
  }

  /** Ends the input: the consumer sees `done` after the queued chunks. */
  close(): void {
    if (this.#closed || this.#failed) return;
    this.#closed = true;
    for (const reader of this.#readers.splice(0)) reader.resolve({ value: undefined, done: true });
    this.#wakeRoomWaiters();
  }

  /** Drops the queue; the consumer's pending and next reads reject with `error` (wrapped unless an Error). */
  fail(error: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#failure = error instanceof Error ? error : new Error('The spill was cancelled.', { cause: error });
    this.#items.length = 0;
    this.#first = 0;
    this.#units = 0;
    for (const reader of this.#readers.splice(0)) reader.reject(error);
    this.#wakeRoomWaiters();
  }

  /** Removes and returns every chunk still queued (the consumer never saw them). */
  takeAll(): string[] {
    const rest = this.#items.slice(this.#first);
    this.#items.length = 0;
    this.#first = 0;
    this.#units = 0;
    this.#wakeRoomWaiters();
    return rest;
  }

  /** Resolves when the queue is at or under its high-water mark, or can never drain. */
  waitForRoom(): Promise<void> {
    if (this.#units <= this.highWater || this.#failed || this.#closed || this.#abandoned) return Promise.resolve();
    return new Promise((resolve) => this.#roomWaiters.push(resolve));
  }

  /** The consumer's read. */
  next(): Promise<IteratorResult<string, undefined>> {
    if (this.#failed) return Promise.reject(this.#failure);
    if (this.#abandoned) return Promise.resolve({ value: undefined, done: true });
    if (this.#first < this.#items.length) {
      const item = this.#items[this.#first] as string;
      this.#items[this.#first] = ''; // release it now, not when the array is compacted
      this.#first++;
      this.#units -= item.length;
      if (this.#first > 1024 && this.#first * 2 > this.#items.length) {
        this.#items.splice(0, this.#first);
        this.#first = 0;
      }
      this.#pulled = true;
      if (this.#units <= this.highWater) this.#wakeRoomWaiters();
      return Promise.resolve({ value: item, done: false });
    }
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => this.#readers.push({ resolve, reject }));
  }

  /** The consumer stopped early (`break`, or it failed): nobody will drain the queue. */
  return(): Promise<IteratorResult<string, undefined>> {
    this.#abandoned = true;
    if (this.#pulled) {
      this.#items.length = 0;
      this.#first = 0;
      this.#units = 0;
    }
    this.#wakeRoomWaiters();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  #wakeRoomWaiters(): void {
    for (const wake of this.#roomWaiters.splice(0)) wake();
  }
}
