import { bufferedSaves, callSignal, configInteger, configOptions } from '@spillway/backend-utils';
import { SESSION_DIR_RE, isLeafName, leafName, sessionDirName } from '@spillway/backend-utils/naming';
import { SpillError, spillLocator, throwIfAborted } from '@spillway/core';
import type { ListOptions, SpillBackend, SpillCatalog, SpillEntry, SpillReader } from '@spillway/core';
import { RETRIEVAL_HINTS } from '@spillway/core/notice';
import { createSpillReader } from '@spillway/retrieval';

/** One stored artifact: its UTF-8 `bytes`, its `session` key (`session-<hash>`) and when it was created. */
export interface TemplateArtifact {
  readonly bytes: Uint8Array;
  readonly session: string;
  readonly createdAt: Date;
}

/** Options for {@link createTemplateBackend}. */
export interface TemplateBackendOptions {
  /** Where artifacts live, keyed by `session-<hash>/<leaf>`; stands in for a storage client. Default: a new Map. */
  readonly store?: Map<string, TemplateArtifact>;
  /** The largest artifact accepted, in UTF-8 bytes. Default 16 MiB. */
  readonly maxArtifactBytes?: number;
}

/** The hint shown to the model next to the locator: the model reads back with spillway's tools. */
export const TEMPLATE_RETRIEVAL_HINT = RETRIEVAL_HINTS['spill-tools'];

const SCHEME = 'spill+template://';

/**
 * A complete spillway backend over a Map, to copy: replace the four storage lines (put, get, list,
 * delete) with your store's calls. `@spillway/backend-utils` does the checks, the encoding and the
 * naming, and `@spillway/retrieval` does read and grep.
 *
 * @example
 * const ref = await backend.saveText({ owner: { sessionId: sessionId('s1') }, source: { toolName: 'web_fetch', callId: callId('c1') }, suggestedName: 'page.txt', content: 'hello\n' });
 * await backend.reader.read(ref.locator); // { text: 'hello\n', … }
 */
export function createTemplateBackend(options: TemplateBackendOptions = {}): SpillBackend & { readonly reader: SpillReader; readonly catalog: SpillCatalog } {
  const bag = configOptions('createTemplateBackend', options, ['store', 'maxArtifactBytes']);
  const artifacts = (bag.store ?? new Map()) as Map<string, TemplateArtifact>;
  if (!(artifacts instanceof Map)) throw new TypeError('createTemplateBackend: store must be a Map.');
  const maxBytes = configInteger('createTemplateBackend', 'maxArtifactBytes', bag.maxArtifactBytes, { min: 0, fallback: 16 << 20 });

  function keyOf(locator: unknown): string { // an untrusted locator: its key, or a refusal
    const [session = '', leaf = '', extra] = typeof locator === 'string' && locator.startsWith(SCHEME) ? locator.slice(SCHEME.length).split('/') : [];
    if (!SESSION_DIR_RE.test(session) || !isLeafName(leaf) || extra !== undefined) {
      throw new SpillError('SPILL_INVALID_LOCATOR', 'Not a locator this backend issued; pass the locator from the spill notice unchanged.');
    }
    return `${session}/${leaf}`;
  }

  const saves = bufferedSaves({
    maxBytes, // larger content is refused with SPILL_TOO_LARGE before put is called
    put(input, bytes) {
      const session = sessionDirName(input.owner.sessionId);
      const key = `${session}/${leafName(input.suggestedName)}`; // the shared naming rule: a name is never a path
      try {
        artifacts.set(key, { bytes, session, createdAt: new Date() }); // storage: put
      } catch (error) {
        throw new SpillError('SPILL_STORAGE_FAILED', 'The template store refused the artifact; check the storage and retry.', { cause: error });
      }
      return { locator: spillLocator(SCHEME + key), bytes: bytes.length, retrievalHint: TEMPLATE_RETRIEVAL_HINT };
    },
  });

  // Reading back is one function: open a locator as a byte source (size and positioned reads).
  const reader = createSpillReader({
    open(locator) { // what this throws, the read rejects with
      const bytes = artifacts.get(keyOf(locator))?.bytes; // storage: get
      if (bytes === undefined) throw new SpillError('SPILL_NOT_FOUND', 'No artifact at this locator; it was never stored or has been deleted.');
      return Promise.resolve({ size: bytes.length, cacheKey: locator, read: (at, length) => Promise.resolve(bytes.subarray(at, at + length)) });
    },
  });

  const catalog: SpillCatalog = {
    async *list(listOptions: ListOptions = {}): AsyncIterable<SpillEntry> {
      await Promise.resolve(); // errors reach the caller through the iteration
      throwIfAborted(callSignal(listOptions, 'list'), 'The listing');
      const only = listOptions.sessionId === undefined ? undefined : sessionDirName(listOptions.sessionId);
      for (const [key, { bytes, session, createdAt }] of [...artifacts]) { // storage: list (a snapshot, so deletes are safe)
        if (only === undefined || session === only) yield { locator: spillLocator(SCHEME + key), bytes: bytes.length, createdAt, session };
      }
    },
    async delete(locator, callOptions) {
      await Promise.resolve();
      throwIfAborted(callSignal(callOptions, 'delete'), 'The delete');
      return artifacts.delete(keyOf(locator)); // storage: delete
    },
  };
  return { specificationVersion: 'v1', name: 'template', ...saves, reader, catalog };
}
