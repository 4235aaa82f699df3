/**
 * A weighted, first-come-first-served counting semaphore. The backend takes permits for
 * the descriptors an operation holds at once, so thousands of concurrent saves queue here
 * instead of running the process out of file descriptors (EMFILE).
 */
export class Semaphore {
  #available: number;
  readonly #capacity: number;
  readonly #waiters: { weight: number; wake: () => void }[] = [];
  #head = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
    this.#available = capacity;
  }

  /** Permits not currently held. */
  get available(): number {
    return this.#available;
  }

  /**
   * Waits for `weight` permits and resolves with a release function (idempotent).
   * A waiter is never overtaken by a later one, so a heavy request cannot starve.
   */
  async acquire(weight = 1): Promise<() => void> {
    const w = Math.min(weight, this.#capacity);
    if (this.#head === this.#waiters.length && this.#available >= w) {
      this.#available -= w;
    } else {
      await new Promise<void>((resolve) => {
        this.#waiters.push({ weight: w, wake: resolve });
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#available += w;
      this.#drain();
    };
  }

  /**
   * Takes `weight` permits only if they are free now and nobody is waiting; returns the
   * release function (idempotent), or undefined.
   */
  tryAcquire(weight = 1): (() => void) | undefined {
    const w = Math.min(weight, this.#capacity);
    if (this.#head !== this.#waiters.length || this.#available < w) return undefined;
    this.#available -= w;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#available += w;
      this.#drain();
    };
  }

  /** Runs `fn` while holding `weight` permits. */
  async use<T>(weight: number, fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire(weight);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  #drain(): void {
    while (this.#head < this.#waiters.length) {
      const next = this.#waiters[this.#head];
      if (next === undefined || next.weight > this.#available) break;
      this.#available -= next.weight;
      this.#head++;
      next.wake();
    }
    // Compact the queue now and then so it does not grow without bound.
    if (this.#head > 1024 && this.#head * 2 > this.#waiters.length) {
      this.#waiters.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
