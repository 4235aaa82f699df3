/**
 * The bounded memory that makes a spill idempotent per tool call: the AI SDK calls
 * `toModelOutput` again for the same call on every later request (`convertToModelMessages`),
 * and those calls must answer the first spill's preview and locator without storing again.
 *
 * Memory stays bounded by `max` model outputs (each at most `maxInlineBytes`). Eviction is
 * "second chance": the oldest call goes, unless it was looked up since it was last passed
 * over, in which case it moves to the back. A lookup only sets a flag, and it is keyed by
 * the tool call id string the SDK hands over (whose hash the engine keeps), so the
 * repeated lookups of every request build no key and reorder nothing.
 */

/** One remembered spill. */
export interface RememberedSpill<T> {
  /** The session it was stored under. */
  readonly sessionId: string;
  /** The tool that produced it. */
  readonly toolName: string;
  /** The digest of the output's text (see `contentDigest`): a reused call id with other text is another spill. */
  readonly digest: string;
  /** The answer, possibly still pending. */
  readonly answer: Promise<T>;
  /** The answer once it resolved. */
  value?: T;
}

/** The spills of one tool call id (more than one only when sessions or chats reuse ids). */
interface Bucket<T> {
  entries: RememberedSpill<T>[];
  /** Looked up since eviction last passed over it. */
  used: boolean;
}

/** Spilled calls, by tool call id. */
export class RememberedSpills<T> {
  readonly #max: number;
  readonly #buckets = new Map<string, Bucket<T>>();
  #count = 0;

  /** @param max - how many calls to remember; 0 remembers none */
  constructor(max: number) {
    this.#max = max;
  }

  /** What is remembered for this call, when it was for an output with the same text (`digest`). */
  get(toolCallId: string, sessionId: string, toolName: string, digest: string): RememberedSpill<T> | undefined {
    const bucket = this.#buckets.get(toolCallId);
    if (bucket === undefined) return undefined;
    for (const entry of bucket.entries) {
      if (entry.sessionId === sessionId && entry.toolName === toolName && entry.digest === digest) {
        bucket.used = true;
        return entry;
      }
    }
    return undefined;
  }

  /** Remembers `answer` (possibly still pending) for this call, in place of any earlier one for the same text. */
  set(toolCallId: string, entry: Omit<RememberedSpill<T>, 'value'>): void {
    if (this.#max === 0) return;
    const bucket = this.#buckets.get(toolCallId);
    if (bucket === undefined) {
      this.#buckets.set(toolCallId, { entries: [{ ...entry }], used: false });
    } else {
      const before = bucket.entries.length;
      bucket.entries = bucket.entries.filter(
        (e) => e.sessionId !== entry.sessionId || e.toolName !== entry.toolName || e.digest !== entry.digest,
      );
      this.#count -= before - bucket.entries.length;
      bucket.entries.push({ ...entry });
    }
    this.#count++;
    this.#evict(toolCallId);
  }

  /** Records the value `answer` resolved with, so that later lookups get it without a promise. */
  settle(toolCallId: string, answer: Promise<T>, value: T): void {
    const entry = this.#buckets.get(toolCallId)?.entries.find((e) => e.answer === answer);
    if (entry !== undefined) entry.value = value;
  }

  /** Forgets `answer`, if it is still remembered (a later call may have replaced it). */
  forget(toolCallId: string, answer: Promise<T>): void {
    const bucket = this.#buckets.get(toolCallId);
    if (bucket === undefined) return;
    const kept = bucket.entries.filter((e) => e.answer !== answer);
    this.#count -= bucket.entries.length - kept.length;
    if (kept.length === 0) this.#buckets.delete(toolCallId);
    else bucket.entries = kept;
  }

  /** How many calls are remembered. */
  get size(): number {
    return this.#count;
  }

  #evict(newest: string): void {
    while (this.#count > this.#max) {
      const oldest = this.#buckets.entries().next();
      if (oldest.done === true) return;
      const [id, bucket] = oldest.value;
      this.#buckets.delete(id);
      // Used since last passed over, and not the bucket just written: a second chance at
      // the back. Each pass clears the flag, so the loop ends.
      if (bucket.used && id !== newest) {
        bucket.used = false;
        this.#buckets.set(id, bucket);
        continue;
      }
      if (id === newest && bucket.entries.length > 1) {
        // Only the newest call's own older entries are left to drop: keep its last one.
        const last = bucket.entries.at(-1) as RememberedSpill<T>;
        this.#count -= bucket.entries.length - 1;
        this.#buckets.set(id, { entries: [last], used: false });
        continue;
      }
      if (id === newest && this.#buckets.size > 0) {
        // The newest is the oldest in order only after every other bucket got its second
        // chance; put it back and go on evicting the others.
        this.#buckets.set(id, bucket);
        continue;
      }
      this.#count -= bucket.entries.length;
    }
  }
}
