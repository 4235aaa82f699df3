/**
 * Runs at most `limit` async jobs at once. `run` waits for a free slot, so a producer that
 * awaits it can never queue more than `limit` jobs: memory stays bounded however many
 * deletions a sweep makes. Jobs must handle their own errors.
 */
export class BoundedPool {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly limit: number) {}

  /** Starts `job` once a slot is free. Resolves when it has started, not when it ends. */
  async run(job: () => Promise<void>): Promise<void> {
    while (this.inFlight.size >= this.limit) await Promise.race(this.inFlight);
    // A job that breaks its promise to catch its own errors must not break the pool.
    const p: Promise<void> = job()
      .catch(() => undefined)
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /** Resolves when every started job has ended. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.race(this.inFlight);
  }
}
