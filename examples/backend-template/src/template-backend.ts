import { createHash, randomBytes } from 'node:crypto';
import { createSpillReader, type SpillByteSource } from '@spillway/retrieval';
import {
  SpillError,
  assertSaveTextRequest,
  assertSaveTextStreamRequest,
  isSpillError,
  spillLocator,
  throwIfAborted,
  type ListOptions,
  type SaveTextSpill,
  type SaveTextStreamSpill,
  type SpillBackend,
  type SpillCallOptions,
  type SpillCatalog,
  type SpillEntry,
  type SpillLocator,
  type SpillReader,
  type SpillRef,
} from '@spillway/core';

/** One stored artifact: the UTF-8 bytes and what the catalog reports about them. */
export interface TemplateArtifact {
  /** The content as UTF-8. */
  readonly bytes: Uint8Array;
  /** The opaque session key (`session-<hash>`). */
  readonly session: string;
  /** When it was published. */
  readonly createdAt: Date;
}

/** Options for {@link createTemplateBackend}. */
export interface TemplateBackendOptions {
  /**
   * Where artifacts live, keyed by `session-<hash>/<id>`. Stands in for a real storage
   * client; pass your own Map to inspect it or to make it fail in tests. Default: a new Map.
   */
  readonly store?: Map<string, TemplateArtifact>;
  /** The largest artifact accepted, in UTF-8 bytes. Default 16 MiB. */
  readonly maxArtifactBytes?: number;
}

/** The hint shown to the model next to the locator. */
export const TEMPLATE_RETRIEVAL_HINT = 'Use spill_read with offset/limit, or spill_grep to search within it.';

const SCHEME = 'spill+template://';
const LOCATOR = /^spill\+template:\/\/(session-[0-9a-f]{32})\/([0-9a-f]{32})$/;
const encoder = new TextEncoder();

/**
 * The session key: a hash of the id's UTF-16 code units. Hashing the UTF-8 of the id
 * instead would map every lone surrogate to U+FFFD, so `"s\uD800"` and `"s\uDFFF"`
 * would share a session.
 */
function sessionKey(sessionId: string): string {
  return `session-${createHash('sha256').update(Buffer.from(sessionId, 'utf16le')).digest('hex').slice(0, 32)}`;
}

function storageFailed(cause: unknown): SpillError {
  return new SpillError('SPILL_STORAGE_FAILED', 'The template store refused the artifact; check the storage and retry.', { cause });
}

function tooLarge(max: number): SpillError {
  return new SpillError('SPILL_TOO_LARGE', `The content is larger than ${max} bytes, the most this backend stores.`);
}

/**
 * A minimal, complete spillway backend that keeps artifacts in a Map. It is a starting
 * point to copy: replace the Map with your storage and keep the rest of the contract.
 *
 * @example
 * const backend = createTemplateBackend();
 * const ref = await backend.saveText({
 *   owner: { sessionId: sessionId('s1') },
 *   source: { toolName: 'web_fetch', callId: callId('c1') },
 *   suggestedName: 'page.txt',
 *   content: 'hello\n',
 * });
 * await backend.reader.read(ref.locator); // { text: 'hello\n', … }
 */
export function createTemplateBackend(options: TemplateBackendOptions = {}): SpillBackend & {
  readonly reader: SpillReader;
  readonly catalog: SpillCatalog;
} {
  const store = options.store ?? new Map<string, TemplateArtifact>();
  const maxArtifactBytes = options.maxArtifactBytes ?? 16 * 1024 * 1024;
  if (!(store instanceof Map)) throw new TypeError('createTemplateBackend: store must be a Map.');
  if (!Number.isSafeInteger(maxArtifactBytes) || maxArtifactBytes < 0) {
    throw new TypeError('createTemplateBackend: maxArtifactBytes must be a whole number >= 0.');
  }

  /** Stores the whole text under a fresh key; the only place data is written. */
  function publish(input: Omit<SaveTextSpill, 'content'>, text: string, signal: AbortSignal | undefined): SpillRef {
    const bytes = encoder.encode(text); // lone surrogates become U+FFFD here, as on any UTF-8 store
    if (bytes.length > maxArtifactBytes) throw tooLarge(maxArtifactBytes);
    throwIfAborted(signal, 'The save'); // the last moment a cancel can still publish nothing
    const session = sessionKey(input.owner.sessionId);
    // The key never contains the suggested name: a name is a hint, never a path.
    const id = randomBytes(16).toString('hex');
    try {
      store.set(`${session}/${id}`, { bytes, session, createdAt: new Date() });
    } catch (error) {
      throw storageFailed(error);
    }
    return { locator: spillLocator(`${SCHEME}${session}/${id}`), bytes: bytes.length, retrievalHint: TEMPLATE_RETRIEVAL_HINT };
  }

  /** Maps an untrusted locator to its key, or refuses it. */
  function keyOf(locator: unknown): string {
    const match = typeof locator === 'string' ? LOCATOR.exec(locator) : null;
    if (match === null) throw new SpillError('SPILL_INVALID_LOCATOR', 'Not a locator this backend issued; pass the locator from the spill notice unchanged.');
    return `${match[1] ?? ''}/${match[2] ?? ''}`;
  }

  function load(locator: SpillLocator): TemplateArtifact {
    const artifact = store.get(keyOf(locator));
    if (artifact === undefined) throw new SpillError('SPILL_NOT_FOUND', 'No artifact at this locator; it was never stored or has been deleted.');
    return artifact;
  }

  // Reading back is one function: open a locator as a byte source (its size and a
  // positioned read). The retrieval engine does paging, grep, option checks and the
  // regular-expression dialect, the same way for every backend.
  const reader: SpillReader = createSpillReader({
    // eslint-disable-next-line @typescript-eslint/require-await
    async open(locator): Promise<SpillByteSource> {
      const { bytes } = load(locator);
      return {
        size: bytes.length,
        cacheKey: locator, // a locator is never reused for other content
        read: (position, length) => Promise.resolve(bytes.subarray(position, position + length)),
      };
    },
  });

  const catalog: SpillCatalog = {
    async *list(listOptions: ListOptions = {}): AsyncIterable<SpillEntry> {
      await Promise.resolve(); // report an aborted signal from the iteration, like every other error
      throwIfAborted(listOptions.signal, 'The listing');
      const only = listOptions.sessionId === undefined ? undefined : sessionKey(listOptions.sessionId);
      // A snapshot of the keys: deleting while iterating stays safe.
      for (const key of [...store.keys()]) {
        const artifact = store.get(key);
        if (artifact === undefined || (only !== undefined && artifact.session !== only)) continue;
        yield { locator: spillLocator(`${SCHEME}${key}`), bytes: artifact.bytes.length, createdAt: artifact.createdAt, session: artifact.session };
      }
    },

    // eslint-disable-next-line @typescript-eslint/require-await
    async delete(locator: SpillLocator, callOptions: SpillCallOptions = {}): Promise<boolean> {
      throwIfAborted(callOptions.signal, 'The delete');
      return store.delete(keyOf(locator));
    },
  };

  return {
    name: 'template',

    // eslint-disable-next-line @typescript-eslint/require-await
    async saveText(input: SaveTextSpill, callOptions: SpillCallOptions = {}): Promise<SpillRef> {
      assertSaveTextRequest(input);
      throwIfAborted(callOptions.signal, 'The save');
      // Every UTF-16 unit is at least one byte: refuse early without encoding.
      if (input.content.length > maxArtifactBytes) throw tooLarge(maxArtifactBytes);
      return publish(input, input.content, callOptions.signal);
    },

    async saveTextStream(input: SaveTextStreamSpill, callOptions: SpillCallOptions = {}): Promise<SpillRef> {
      assertSaveTextStreamRequest(input);
      const { signal } = callOptions;
      throwIfAborted(signal, 'The save');
      // Chunks are joined before encoding, so a surrogate pair split across two chunks
      // is stored as one character. (A disk backend would encode as it goes, carrying a
      // trailing high surrogate over to the next chunk.)
      const chunks: string[] = [];
      let units = 0;
      try {
        for await (const chunk of input.content as AsyncIterable<unknown>) {
          throwIfAborted(signal, 'The save');
          if (typeof chunk !== 'string') throw new TypeError(`The stream yielded ${chunk === null ? 'null' : typeof chunk}, not a string.`);
          units += chunk.length;
          if (units > maxArtifactBytes) throw tooLarge(maxArtifactBytes);
          chunks.push(chunk);
        }
      } catch (error) {
        if (isSpillError(error)) throw error; // aborted or too large: keep the code
        throw new SpillError('SPILL_STREAM_FAILED', 'The content stream failed before it ended; nothing was stored.', { cause: error });
      }
      return publish(input, chunks.join(''), signal);
    },

    reader,
    catalog,
  };
}
