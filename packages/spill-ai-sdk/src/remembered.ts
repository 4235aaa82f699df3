/**
 * The bounded memory that makes a spill idempotent per tool call: the AI SDK calls
 * `toModelOutput` again for the same call on every later request (`convertToModelMessages`),
 * and those calls must answer the first spill's preview and locator without storing again.
 *
 * Entries are kept in least-recently-used order and the oldest goes once `max` is reached,
 * so memory stays bounded by `max` model outputs (each at most `maxInlineBytes`).
 */
export class RememberedSpills<T> {
  readonly #max: number;
  readonly #entries = new Map<string, { readonly size: string; readonly answer: Promise<T> }>();

  /** @param max - how many calls to remember; 0 remembers none */
  constructor(max: number) {
    this.#max = max;
  }

  /** The answer remembered for `key`, when it was for an output of the same `size`. */
  get(key: string, size: string): Promise<T> | undefined {
    const entry = this.#entries.get(key);
    if (entry?.size !== size) return undefined;
    // Most recently used goes last.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.answer;
  }

  /** Remembers `answer` (possibly still pending) for `key`. */
  set(key: string, size: string, answer: Promise<T>): void {
    if (this.#max === 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, { size, answer });
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }

  /** Forgets `key`, if it still holds `answer` (a later call may have replaced it). */
  forget(key: string, answer: Promise<T>): void {
    if (this.#entries.get(key)?.answer === answer) this.#entries.delete(key);
  }

  /** How many calls are remembered. */
  get size(): number {
    return this.#entries.size;
  }
}
