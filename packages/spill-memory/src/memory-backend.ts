import { SpillError, throwIfAborted } from '@spillway/core';
import type { ListOptions, SaveBytesStreamSpill, SpillBackend, SpillCallOptions, SpillCatalog, SpillEntry, SpillLocator, SpillReader, SpillRef } from '@spillway/core';
import { RETRIEVAL_HINTS } from '@spillway/core/notice';
import { bufferedSaves, configInteger, configOptions, optionsBag, randomHex, signalOf } from '@spillway/backend-utils';
import type { SaveEnvelope } from '@spillway/backend-utils';
import { sessionDirName } from '@spillway/backend-utils/naming';
import { ArtifactStore } from './artifact-store.js';
import type { Artifact, Cursor } from './artifact-store.js';
import { createSpillReader } from '@spillway/retrieval';
import type { SpillByteSource } from '@spillway/retrieval';
import { LOCATOR_ID_BYTES, formatLocator, parseLocator } from './locator.js';

/** The sentence a memory locator's notice ends with: the model has no file, only these tools. */
export const MEMORY_RETRIEVAL_HINT = RETRIEVAL_HINTS['spill-tools'];

/** Default {@link MemoryBackendOptions.maxBytes}: 64 MiB. */
export const DEFAULT_MEMORY_MAX_BYTES = 64 * 1024 * 1024;
/** Default {@link MemoryBackendOptions.maxArtifacts}. */
export const DEFAULT_MEMORY_MAX_ARTIFACTS = 10_000;
/** Default {@link MemoryBackendOptions.maxTombstones}. */
export const DEFAULT_MEMORY_MAX_TOMBSTONES = 10_000;

/** Options for {@link createMemoryBackend}. Every field is optional. */
export interface MemoryBackendOptions {
  /**
   * The most UTF-8 bytes held at once, over all sessions. Saving more evicts the oldest
   * artifacts; one artifact larger than this is refused with `SPILL_TOO_LARGE`. A
   * non-negative integer; default {@link DEFAULT_MEMORY_MAX_BYTES}.
   */
  readonly maxBytes?: number;
  /**
   * The most artifacts held at once, evicting the oldest beyond it. Empty results cost
   * no bytes, so without this cap a flood of them would grow memory without bound. A
   * positive integer; default {@link DEFAULT_MEMORY_MAX_ARTIFACTS}.
   */
  readonly maxArtifacts?: number;
  /**
   * How many removed locators are remembered, so that reading an evicted or deleted one
   * answers `SPILL_EXPIRED` rather than `SPILL_NOT_FOUND`. The oldest are forgotten first. A
   * non-negative integer; default {@link DEFAULT_MEMORY_MAX_TOMBSTONES} (about 470 KB, allocated
   * when the backend is created).
   */
  readonly maxTombstones?: number;
  /** The wall clock for `createdAt`, in epoch milliseconds. Default `Date.now`. */
  readonly now?: () => number;
}

/** A catalog entry of the memory backend: core's {@link SpillEntry} plus descriptive fields. */
export interface MemorySpillEntry extends SpillEntry {
  /** The suggested name reduced to letters, digits, `.`, `_` and `-`; for people only. */
  readonly name: string;
  /**
   * The tool that produced the artifact (descriptive, from the save request), cut to its
   * first {@link MAX_TOOL_NAME_LENGTH} code units so that a huge tool name costs no more
   * memory than a normal one.
   */
  readonly toolName: string;
}

/** The most UTF-16 code units of a tool name a memory artifact keeps. */
export const MAX_TOOL_NAME_LENGTH = 256;
/** The most code units of a suggested name ever looked at (the name kept is at most 100). */
const MAX_NAME_SCAN = 400;

/** `text` cut to at most `max` code units, without leaving half a surrogate pair at the end. */
function cutUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** The memory backend's catalog; it has no temporary state, so no `sweepTemp`. */
export interface MemoryCatalog extends SpillCatalog {
  /** Entries oldest first (in save order), all sessions or one. */
  list(options?: ListOptions): AsyncIterable<MemorySpillEntry>;
  /** Removes one artifact: `true` when removed, `false` when it was already gone. */
  delete(locator: SpillLocator, options?: SpillCallOptions): Promise<boolean>;
}

/** A snapshot of what the memory backend holds. */
export interface MemoryBackendStats {
  /** UTF-8 bytes held now. */
  readonly bytes: number;
  /** Artifacts held now. */
  readonly artifacts: number;
  /** Sessions with at least one artifact. */
  readonly sessions: number;
  /** Artifacts evicted to make room, since creation. */
  readonly evictions: number;
  /** Bytes evicted, since creation. */
  readonly evictedBytes: number;
  /** Artifacts removed through `catalog.delete`, since creation. */
  readonly deletions: number;
  /** Removed locators still remembered. */
  readonly tombstones: number;
  /** The configured byte cap. */
  readonly maxBytes: number;
  /** The configured artifact cap. */
  readonly maxArtifacts: number;
}

/** A bounded in-process {@link SpillBackend} that always has a reader and a catalog. */
export interface MemoryBackend extends SpillBackend {
  /** Always `memory`. */
  readonly name: 'memory';
  /** Reads and greps stored artifacts, and streams their stored bytes. */
  readonly reader: SpillReader & Required<Pick<SpillReader, 'readBytes'>>;
  /** Lists and deletes stored artifacts. */
  readonly catalog: MemoryCatalog;
  /** Stores raw bytes exactly (see {@link SpillBackend.saveBytesStream}), within `maxBytes`. */
  saveBytesStream(input: SaveBytesStreamSpill, options?: SpillCallOptions): Promise<SpillRef>;
  /** Current counters; cheap, O(1). */
  stats(): MemoryBackendStats;
}

const KNOWN_OPTIONS = ['maxBytes', 'maxArtifacts', 'maxTombstones', 'now'] satisfies readonly (keyof MemoryBackendOptions)[];

/**
 * The suggested name as a short, safe label; it never decides where data goes. Only its
 * first {@link MAX_NAME_SCAN} code units are looked at, so any length costs the same.
 */
function displayName(suggested: string): string {
  const cleaned = cutUnits(suggested, MAX_NAME_SCAN)
    .normalize('NFKC')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._-]+/, '')
    .slice(0, 100);
  return cleaned === '' ? 'spill.txt' : cleaned;
}

function tooLarge(maxBytes: number, bytes?: number): SpillError {
  const size = bytes === undefined ? 'more than' : `${String(bytes)} bytes, more than`;
  return new SpillError(
    'SPILL_TOO_LARGE',
    `The content is ${size} the memory backend's maxBytes (${maxBytes} bytes); raise maxBytes or use a disk backend such as @spillway/local.`,
  );
}

/**
 * Creates a bounded in-process backend. Artifacts live as UTF-8 bytes in this process
 * only, the oldest evicted first once `maxBytes` or `maxArtifacts` would be passed.
 * It runs in Node, browsers and edge runtimes (no Node imports).
 *
 * @example
 * ```ts
 * const backend = createMemoryBackend({ maxBytes: 8 * 1024 * 1024 });
 * const ref = await backend.saveText({
 *   owner: { sessionId: sessionId('chat-1') },
 *   source: { toolName: 'web_fetch', callId: callId('call-7') },
 *   suggestedName: 'web_fetch.txt',
 *   content: bigPage,
 * });
 * const page = await backend.reader.read(ref.locator, { offset: 1, limit: 50 });
 * ```
 *
 * @throws TypeError when an option is invalid (see {@link MemoryBackendOptions}).
 */
export function createMemoryBackend(options: MemoryBackendOptions = {}): MemoryBackend {
  const factory = 'createMemoryBackend';
  const bag = configOptions(factory, options, KNOWN_OPTIONS);
  const maxBytes = configInteger(factory, 'maxBytes', bag.maxBytes, { min: 0, fallback: DEFAULT_MEMORY_MAX_BYTES });
  const maxArtifacts = configInteger(factory, 'maxArtifacts', bag.maxArtifacts, { min: 1, fallback: DEFAULT_MEMORY_MAX_ARTIFACTS });
  const maxTombstones = configInteger(factory, 'maxTombstones', bag.maxTombstones, { min: 0, fallback: DEFAULT_MEMORY_MAX_TOMBSTONES });
  const now = bag.now ?? Date.now;
  if (typeof now !== 'function') throw new TypeError('createMemoryBackend: now must be a function returning epoch milliseconds.');
  const wallClock = now as () => number;
  const store = new ArtifactStore(maxBytes, maxArtifacts, maxTombstones);

  function publish(input: SaveEnvelope, bytes: Uint8Array): SpillRef {
    const sessionId: string = input.owner.sessionId;
    // The session part is the naming rule's `session-<h>`, unsalted: one session looks
    // alike on every backend (the local backend's directory has the same name), and a
    // locator stays unguessable through its random 128-bit id, not through the hash.
    const key = store.session(sessionId)?.key ?? sessionDirName(input.owner.sessionId);
    const locator = formatLocator(key, randomHex(LOCATOR_ID_BYTES));
    const createdAt = wallClock();
    if (typeof createdAt !== 'number' || !Number.isFinite(createdAt)) {
      throw new TypeError(`createMemoryBackend: now() must return finite epoch milliseconds; it returned ${String(createdAt)}.`);
    }
    store.insert({
        locator,
        bytes,
        createdAt,
        sessionId,
        sessionKey: key,
        name: displayName(input.suggestedName),
        toolName: cutUnits(input.source.toolName, MAX_TOOL_NAME_LENGTH),
    });
    return { locator, bytes: bytes.length, retrievalHint: MEMORY_RETRIEVAL_HINT };
  }

  function resolve(locator: unknown): Artifact {
    const key = parseLocator(locator);
    const artifact = store.get(key);
    if (artifact !== undefined) return artifact;
    const reason = store.removalReason(key);
    if (reason === 'evicted') {
      throw new SpillError(
        'SPILL_EXPIRED',
        `The result at ${key} has expired: it was evicted from memory to make room for newer ones; run the tool again to get it back.`,
      );
    }
    if (reason === 'deleted') {
      // Deleted through the catalog (retention, a user's `rm`): to the model, it expired.
      throw new SpillError(
        'SPILL_EXPIRED',
        `The result at ${key} has expired: it was deleted from memory (by retention or by hand); run the tool again to get it back.`,
      );
    }
    throw new SpillError(
      'SPILL_NOT_FOUND',
      `Nothing is stored at ${key}: it belongs to another process or backend instance, or was removed long ago. Use a locator from a notice of this session.`,
    );
  }

  // The retrieval engine does read and grep over the stored bytes. The source holds the
  // bytes, so a delete or eviction during a long grep does not pull them away; a locator
  // is never reused, so it is a sound line-index cache key.
  const reader: MemoryBackend['reader'] = createSpillReader({
    // eslint-disable-next-line @typescript-eslint/require-await
    async open(locator: SpillLocator): Promise<SpillByteSource> {
      const bytes = resolve(locator).bytes;
      return {
        size: bytes.length,
        cacheKey: locator,
        preferredReadBytes: 1024 * 1024,
        read: (position, length) => Promise.resolve(bytes.subarray(position, position + length)),
      };
    },
  });

  const catalog: MemoryCatalog = {
    list(listOptions?: ListOptions): AsyncIterable<MemorySpillEntry> {
      return {
        // An async generator is the plainest AsyncIterable; nothing inside has to wait.
        // eslint-disable-next-line @typescript-eslint/require-await
        async *[Symbol.asyncIterator](): AsyncGenerator<MemorySpillEntry> {
          const bag = optionsBag(listOptions, 'list');
          const signal = signalOf(bag);
          const sessionId = bag.sessionId;
          if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId === '')) {
            throw new SpillError('SPILL_INVALID_INPUT', 'sessionId must be a non-empty string when given.');
          }
          const bySession = sessionId !== undefined;
          let current = store.first(sessionId);
          // While the consumer holds an entry, the listing is parked on a cursor that the
          // store moves past removals, so a paused (or abandoned) listing keeps no evicted
          // artifact reachable.
          let cursor: Cursor | undefined;
          try {
            while (current !== undefined) {
              throwIfAborted(signal, 'The listing');
              const artifact: Artifact = current;
              cursor = store.park(artifact, bySession);
              yield {
                locator: artifact.locator as SpillLocator,
                bytes: artifact.byteLength,
                createdAt: new Date(artifact.createdAt),
                session: artifact.session.key,
                name: artifact.name,
                toolName: artifact.toolName,
              };
              current = store.resume(cursor);
              cursor = undefined;
            }
          } finally {
            if (cursor !== undefined) store.release(cursor);
          }
        },
      };
    },

    async delete(locator: SpillLocator, deleteOptions?: SpillCallOptions): Promise<boolean> {
      await Promise.resolve();
      const signal = signalOf(optionsBag(deleteOptions, 'delete'));
      throwIfAborted(signal, 'The delete');
      return store.delete(parseLocator(locator));
    },
  };

  return {
    specificationVersion: 'v1',
    name: 'memory',

    ...bufferedSaves({ maxBytes, tooLarge, put: publish }),

    reader,
    catalog,

    stats(): MemoryBackendStats {
      const c = store.counters;
      return {
        bytes: c.bytes,
        artifacts: c.artifacts,
        sessions: store.sessionCount,
        evictions: c.evictions,
        evictedBytes: c.evictedBytes,
        deletions: c.deletions,
        tombstones: store.tombstoneCount,
        maxBytes,
        maxArtifacts,
      };
    },
  };
}

