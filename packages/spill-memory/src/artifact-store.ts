/**
 * The in-memory inventory: every live artifact sits on two intrusive doubly linked
 * lists, one over all artifacts and one per session, both in save order. Lookup is a
 * `Map` by locator. Evicting the oldest artifact and deleting any artifact are O(1).
 *
 * A `Map` alone is not enough: V8 leaves a hole for each deleted entry and
 * `map.keys().next()` walks over all of them, so a "delete the first key" queue costs
 * O(n) per eviction (measured: one million evictions from a 10 000-entry Map took 12 s).
 */
import { Tombstones, type RemovalReason } from './tombstones.js';

/** One stored artifact. */
export interface Artifact {
  readonly locator: string;
  /** The UTF-8 bytes. Replaced by an empty array once the artifact is removed. */
  bytes: Uint8Array;
  readonly byteLength: number;
  readonly createdAt: number;
  readonly session: SessionBucket;
  readonly name: string;
  readonly toolName: string;
  removed: boolean;
  prev: Artifact | undefined;
  next: Artifact | undefined;
  sessionPrev: Artifact | undefined;
  sessionNext: Artifact | undefined;
}

/** The artifacts of one session. */
export interface SessionBucket {
  readonly sessionId: string;
  /** The session's name by the naming rule, `session-<32 hex>`: the locators' session part. */
  readonly key: string;
  head: Artifact | undefined;
  tail: Artifact | undefined;
}

export type { RemovalReason } from './tombstones.js';

const EMPTY = new Uint8Array(0);

/** What {@link ArtifactStore.insert} needs to know about a new artifact. */
export interface NewArtifact {
  readonly locator: string;
  readonly bytes: Uint8Array;
  readonly createdAt: number;
  readonly sessionId: string;
  readonly sessionKey: string;
  readonly name: string;
  readonly toolName: string;
}

/**
 * Where a paused listing stands: the artifact it yielded last. While that artifact lives,
 * the listing continues after it; when it is removed, the store moves the cursor to the
 * next live artifact in the listing's order, so a paused listing never keeps a removed
 * artifact (nor a chain of them) reachable.
 */
export interface Cursor {
  /** The artifact yielded last, or (once `moved`) the next one to yield; undefined at the end. */
  at: Artifact | undefined;
  /** True once the store moved the cursor past a removed artifact. */
  moved: boolean;
  /** Whether the listing follows one session's order rather than the global one. */
  readonly bySession: boolean;
}

/** Counters kept by the store. */
export interface StoreCounters {
  bytes: number;
  artifacts: number;
  evictions: number;
  evictedBytes: number;
  deletions: number;
}

/** The bounded, insertion-ordered artifact store behind the memory backend. */
export class ArtifactStore {
  readonly #byLocator = new Map<string, Artifact>();
  readonly #sessions = new Map<string, SessionBucket>();
  readonly #tombstones: Tombstones;
  #head: Artifact | undefined;
  #tail: Artifact | undefined;
  /** Paused listings, by the artifact each stands on. */
  readonly #cursors = new Map<Artifact, Set<Cursor>>();
  readonly counters: StoreCounters = { bytes: 0, artifacts: 0, evictions: 0, evictedBytes: 0, deletions: 0 };

  constructor(
    readonly maxBytes: number,
    readonly maxArtifacts: number,
    maxTombstones: number,
  ) {
    this.#tombstones = new Tombstones(maxTombstones);
  }

  /** The session bucket for `sessionId`, if it holds anything. */
  session(sessionId: string): SessionBucket | undefined {
    return this.#sessions.get(sessionId);
  }

  /** How many sessions hold at least one artifact. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** How many removed locators are remembered. */
  get tombstoneCount(): number {
    return this.#tombstones.size;
  }

  /** A live artifact by locator. */
  get(locator: string): Artifact | undefined {
    return this.#byLocator.get(locator);
  }

  /** Why `locator` stopped resolving, while that is still remembered. */
  removalReason(locator: string): RemovalReason | undefined {
    return this.#tombstones.get(locator);
  }

  /**
   * Evicts the oldest artifacts until `incomingBytes` more bytes and one more artifact
   * fit, then links the new artifact at the tail. The caller has checked that
   * `incomingBytes <= maxBytes`. Runs synchronously, so no save can interleave.
   */
  insert(input: NewArtifact): Artifact {
    const size = input.bytes.length;
    while (
      this.#head !== undefined &&
      (this.counters.bytes + size > this.maxBytes || this.counters.artifacts + 1 > this.maxArtifacts)
    ) {
      const oldest = this.#head;
      this.counters.evictions += 1;
      this.counters.evictedBytes += oldest.byteLength;
      this.#unlink(oldest, 'evicted');
    }
    let bucket = this.#sessions.get(input.sessionId);
    if (bucket === undefined) {
      bucket = {
        sessionId: input.sessionId,
        key: input.sessionKey,
        head: undefined,
        tail: undefined,
      };
      this.#sessions.set(input.sessionId, bucket);
    }
    const artifact: Artifact = {
      locator: input.locator,
      bytes: input.bytes,
      byteLength: size,
      createdAt: input.createdAt,
      session: bucket,
      name: input.name,
      toolName: input.toolName,
      removed: false,
      prev: this.#tail,
      next: undefined,
      sessionPrev: bucket.tail,
      sessionNext: undefined,
    };
    if (this.#tail === undefined) this.#head = artifact;
    else this.#tail.next = artifact;
    this.#tail = artifact;
    if (bucket.tail === undefined) bucket.head = artifact;
    else bucket.tail.sessionNext = artifact;
    bucket.tail = artifact;
    this.#byLocator.set(artifact.locator, artifact);
    this.counters.bytes += size;
    this.counters.artifacts += 1;
    return artifact;
  }

  /** Removes a live artifact; returns false when `locator` holds nothing. */
  delete(locator: string): boolean {
    const artifact = this.#byLocator.get(locator);
    if (artifact === undefined) return false;
    this.counters.deletions += 1;
    this.#unlink(artifact, 'deleted');
    return true;
  }

  /** The oldest live artifact overall, or of one session. */
  first(sessionId?: string): Artifact | undefined {
    if (sessionId === undefined) return this.#head;
    return this.#sessions.get(sessionId)?.head;
  }

  /** The live artifact after the live artifact `current` in the same order. */
  static after(current: Artifact, bySession: boolean): Artifact | undefined {
    return bySession ? current.sessionNext : current.next;
  }

  /** Parks a listing on the live artifact it just yielded; see {@link Cursor}. */
  park(at: Artifact, bySession: boolean): Cursor {
    const cursor: Cursor = { at, moved: false, bySession };
    this.#attach(cursor);
    return cursor;
  }

  /**
   * Unparks a listing and answers the next artifact it should yield: the one after where
   * it stood, or, when that was removed meanwhile, the live one the store moved it to.
   */
  resume(cursor: Cursor): Artifact | undefined {
    this.release(cursor);
    const { at } = cursor;
    if (at === undefined) return undefined;
    return cursor.moved ? at : ArtifactStore.after(at, cursor.bySession);
  }

  /** Forgets a parked cursor (a listing that ended early). Idempotent. */
  release(cursor: Cursor): void {
    if (cursor.at === undefined) return;
    const set = this.#cursors.get(cursor.at);
    if (set === undefined) return;
    set.delete(cursor);
    if (set.size === 0) this.#cursors.delete(cursor.at);
  }

  /** How many listings are parked (for tests). */
  get parkedCount(): number {
    let n = 0;
    for (const set of this.#cursors.values()) n += set.size;
    return n;
  }

  #attach(cursor: Cursor): void {
    if (cursor.at === undefined) return;
    let set = this.#cursors.get(cursor.at);
    if (set === undefined) this.#cursors.set(cursor.at, (set = new Set()));
    set.add(cursor);
  }

  /** Moves the cursors parked on `artifact`, which is being removed, to the next live one. */
  #moveCursors(artifact: Artifact): void {
    const parked = this.#cursors.get(artifact);
    if (parked === undefined) return;
    this.#cursors.delete(artifact);
    for (const cursor of parked) {
      cursor.at = ArtifactStore.after(artifact, cursor.bySession);
      cursor.moved = true;
      this.#attach(cursor);
    }
  }

  #unlink(artifact: Artifact, reason: RemovalReason): void {
    const bucket = artifact.session;
    this.#moveCursors(artifact);
    // Global list.
    if (artifact.prev === undefined) this.#head = artifact.next;
    else artifact.prev.next = artifact.next;
    if (artifact.next === undefined) this.#tail = artifact.prev;
    else artifact.next.prev = artifact.prev;
    // Session list.
    if (artifact.sessionPrev === undefined) bucket.head = artifact.sessionNext;
    else artifact.sessionPrev.sessionNext = artifact.sessionNext;
    if (artifact.sessionNext === undefined) bucket.tail = artifact.sessionPrev;
    else artifact.sessionNext.sessionPrev = artifact.sessionPrev;
    // No listing stands on a removed artifact (see #moveCursors), so it keeps no
    // neighbour reachable: it is collected as soon as no reader holds it.
    artifact.prev = undefined;
    artifact.sessionPrev = undefined;
    artifact.next = undefined;
    artifact.sessionNext = undefined;
    artifact.removed = true;
    artifact.bytes = EMPTY; // let the content be collected even while a listing holds the node
    if (bucket.head === undefined) this.#sessions.delete(bucket.sessionId);
    this.#byLocator.delete(artifact.locator);
    this.counters.bytes -= artifact.byteLength;
    this.counters.artifacts -= 1;
    this.#tombstones.add(artifact.locator, reason);
  }
}
