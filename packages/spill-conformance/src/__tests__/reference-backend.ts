/**
 * A small, correct in-memory backend built on the reference reader, used to test the
 * suite itself. It implements every capability and every hook, and each `bug` switches on
 * one deliberate defect, so the suite can be shown to catch it.
 */
import { runInNewContext } from 'node:vm';
import {
  SpillError,
  abortedError,
  assertSaveTextRequest,
  assertSaveBytesStreamRequest,
  assertSaveTextStreamRequest,
  isSpillError,
  raceAbort,
  spillLocator,
  type GrepOptions,
  type GrepResult,
  type ListOptions,
  type ReadOptions,
  type SaveBytesStreamSpill,
  type SaveTextSpill,
  type SaveTextStreamSpill,
  type SpillBackend,
  type SpillCallOptions,
  type SpillEntry,
  type SpillLocator,
  type SpillRef,
} from '@spillway/core';
import { ReferenceArtifact, checkGrepArguments, checkReadArguments } from '../reference-reader.js';
import { toStoredText } from '../text.js';
import type { SpillBackendFixture, SpillBackendHooks } from '../options.js';

/** The deliberate defects a reference backend can carry. */
export const REFERENCE_BUGS = [
  'drop-last-byte',
  'bytes-as-length',
  'publish-partial-stream',
  'ignore-abort',
  'encode-chunks-separately',
  'read-off-by-one',
  'read-ignores-max-bytes',
  'offset-byte-ignored',
  'grep-literal-as-regex',
  'delete-always-true',
  'list-ignores-session',
  'name-in-storage-key',
  'same-name-collides',
  'plain-error-on-invalid-input',
  'lossy-session-key',
  'throws-synchronously',
  'reuses-locators',
  'locator-by-last-segment',
  'nothing-fits-stalls',
  'long-line-stalls',
  'timeout-zero-times-out',
  'non-string-pattern-is-input',
  'truthy-ignore-case',
  'javascript-dialect',
  'refuses-nested-quantifiers',
  'locator-checked-first',
  'bytes-decoded-as-text',
  'read-bytes-unchecked-locator',
  'read-sparse-line-index',
  'large-listed-in-every-session',
  'no-specification-version',
  'unstable-index-home',
] as const;

/** One of {@link REFERENCE_BUGS}. */
export type ReferenceBug = (typeof REFERENCE_BUGS)[number];

interface Stored {
  readonly bytes: Uint8Array;
  readonly session: string;
  readonly createdAt: Date;
  readonly key: string;
}

/** Options of {@link createReferenceFixture}. */
export interface ReferenceOptions {
  readonly reader?: boolean;
  readonly catalog?: boolean;
  readonly maxArtifactBytes?: number;
  readonly bug?: ReferenceBug;
}

/** A reference backend plus the handles its hooks use. */
export interface ReferenceFixture extends SpillBackendFixture {
  /** Every stored artifact by locator. */
  readonly store: Map<string, Stored>;
  /** When true, every save fails as if the storage were broken. */
  broken: boolean;
}

// ignoreBOM keeps a leading U+FEFF: the default decoder would silently drop it.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const encoder = new TextEncoder();
const LOCATOR = /^ref:\/\/(s\d+)\/([0-9a-f]{32})(?:-.*)?$/s;

function randomId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Makes a fresh reference backend fixture. */
export function createReferenceFixture(options: ReferenceOptions = {}): ReferenceFixture {
  const bug = options.bug;
  const store = new Map<string, Stored>();
  const sessionKeys = new Map<string, string>();
  const fixture: { backend?: SpillBackend; store: Map<string, Stored>; broken: boolean } = { store, broken: false };

  const keyOfSession = (id: string): string => {
    const lookup = bug === 'lossy-session-key' ? toStoredText(id) : id;
    let key = sessionKeys.get(lookup);
    if (key === undefined) {
      key = `s${sessionKeys.size + 1}`;
      sessionKeys.set(lookup, key);
    }
    return key;
  };

  const checkAbort = (signal: AbortSignal | undefined): void => {
    if (bug !== 'ignore-abort' && signal?.aborted === true) throw abortedError(signal, 'The save');
  };

  const invalid = (error: unknown): never => {
    if (bug === 'plain-error-on-invalid-input' && isSpillError(error)) throw new TypeError(error.message);
    throw error;
  };

  const publish = (input: Pick<SaveTextSpill, 'owner' | 'suggestedName'>, content: string | Uint8Array, signal?: AbortSignal): SpillRef => {
    checkAbort(signal);
    if (fixture.broken) throw new SpillError('SPILL_STORAGE_FAILED', 'The reference store is broken.', { cause: new Error('EIO') });
    const text = typeof content === 'string' ? content : '';
    let bytes = typeof content === 'string' ? encoder.encode(content) : content;
    if (bug === 'drop-last-byte' && bytes.length > 0) bytes = bytes.subarray(0, bytes.length - 1);
    if (options.maxArtifactBytes !== undefined && bytes.length > options.maxArtifactBytes) {
      throw new SpillError('SPILL_TOO_LARGE', `The artifact is larger than ${options.maxArtifactBytes} bytes.`);
    }
    const session = keyOfSession(input.owner.sessionId);
    let id = randomId();
    if (bug === 'same-name-collides') id = [...encoder.encode(`${session}/${input.suggestedName}`)].map((b) => (b % 16).toString(16)).join('').padEnd(32, '0').slice(0, 32);
    if (bug === 'reuses-locators') id = String(store.size).padStart(32, '0');
    const locator = `ref://${session}/${id}`;
    const key = bug === 'name-in-storage-key' ? `${session}/${input.suggestedName}-${id}` : `${session}/${id}`;
    store.set(locator, { bytes, session, createdAt: new Date(), key });
    return {
      locator: spillLocator(locator),
      bytes: bug === 'bytes-as-length' && typeof content === 'string' ? text.length : bytes.length,
      retrievalHint: 'Use spill_read or spill_grep with this locator.',
    };
  };

  // Parsing a stored artifact into lines once keeps paged reads of megabytes fast.
  const parsed = new WeakMap<Stored, ReferenceArtifact>();
  const artifactAt = (locator: SpillLocator): ReferenceArtifact => {
    const stored = find(locator);
    let artifact = parsed.get(stored);
    if (artifact === undefined) {
      artifact = new ReferenceArtifact(decoder.decode(stored.bytes));
      parsed.set(stored, artifact);
    }
    return artifact;
  };

  const find = (locator: SpillLocator): Stored => {
    if (typeof locator !== 'string') throw new SpillError('SPILL_INVALID_LOCATOR', 'A locator must be a string.');
    if (bug === 'locator-by-last-segment') {
      const id = locator.slice(locator.lastIndexOf('/') + 1);
      const hit = [...store.entries()].find(([l]) => l.endsWith(`/${id}`) || l.endsWith(id));
      if (hit !== undefined) return hit[1];
    }
    const match = LOCATOR.exec(locator);
    if (match === null || match[0] !== locator) throw new SpillError('SPILL_INVALID_LOCATOR', 'Not a reference-backend locator.');
    const stored = store.get(locator);
    if (stored === undefined) throw new SpillError('SPILL_NOT_FOUND', 'No such artifact.');
    return stored;
  };

  let indexHomes = 0;
  const backend: SpillBackend = {
    // The bug leaves the version out, as a backend written before the seam had one does.
    specificationVersion: (bug === 'no-specification-version' ? undefined : 'v1') as 'v1',
    name: bug === undefined ? 'reference' : `reference with bug ${bug}`,
    // Nothing on disk: the index stays in memory. The bug moves it after every call.
    indexHome: () => Promise.resolve(bug === 'unstable-index-home' ? `/nonexistent-spillway-reference/${String(++indexHomes)}` : undefined),

    saveText(input: SaveTextSpill, callOptions: SpillCallOptions = {}): Promise<SpillRef> {
      if (bug === 'throws-synchronously') assertSaveTextRequest(input);
      return Promise.resolve().then(() => {
        try {
          assertSaveTextRequest(input);
        } catch (error) {
          invalid(error);
        }
        return publish(input, input.content, callOptions.signal);
      });
    },

    async saveTextStream(input: SaveTextStreamSpill, callOptions: SpillCallOptions = {}): Promise<SpillRef> {
      try {
        assertSaveTextStreamRequest(input);
      } catch (error) {
        invalid(error);
      }
      checkAbort(callOptions.signal);
      const parts: string[] = [];
      const { signal } = callOptions;
      // Iterated by hand so that an abort lands while the producer is silent, and the
      // producer is told to stop (return()) whenever the save gives up early.
      const content = input.content as Iterable<unknown> | AsyncIterable<unknown>;
      const iterator = Symbol.asyncIterator in content ? content[Symbol.asyncIterator]() : content[Symbol.iterator]();
      try {
        for (;;) {
          const next = Promise.resolve(iterator.next());
          const step = bug === 'ignore-abort' ? await next : await raceAbort(next, signal, 'The save');
          if (step.done === true) break;
          const chunk: unknown = step.value;
          checkAbort(signal);
          if (typeof chunk !== 'string') throw new TypeError(`The stream yielded ${typeof chunk}, not a string.`);
          // Encoding each chunk on its own turns a split surrogate pair into two U+FFFD.
          parts.push(bug === 'encode-chunks-separately' ? toStoredText(chunk) : chunk);
        }
      } catch (error) {
        void Promise.resolve(iterator.return?.()).catch(() => undefined);
        if (isSpillError(error, 'SPILL_ABORTED')) throw error;
        if (bug === 'publish-partial-stream') publish(input, parts.join(''));
        throw new SpillError('SPILL_STREAM_FAILED', 'The content stream failed.', { cause: error });
      }
      return publish(input, parts.join(''), callOptions.signal);
    },

    async saveBytesStream(input: SaveBytesStreamSpill, callOptions: SpillCallOptions = {}): Promise<SpillRef> {
      try {
        assertSaveBytesStreamRequest(input);
      } catch (error) {
        invalid(error);
      }
      checkAbort(callOptions.signal);
      const parts: Uint8Array[] = [];
      try {
        for await (const chunk of input.content as AsyncIterable<unknown>) {
          checkAbort(callOptions.signal);
          if (!(chunk instanceof Uint8Array)) throw new TypeError(`The stream yielded ${typeof chunk}, not a Uint8Array.`);
          parts.push(chunk.slice());
        }
      } catch (error) {
        if (isSpillError(error, 'SPILL_ABORTED')) throw error;
        throw new SpillError('SPILL_STREAM_FAILED', 'The content stream failed.', { cause: error });
      }
      const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      parts.reduce((at, p) => (bytes.set(p, at), at + p.length), 0);
      // Through text and back: what a backend that only stores text would keep.
      return publish(input, bug === 'bytes-decoded-as-text' ? decoder.decode(bytes) : bytes, callOptions.signal);
    },
  };

  /** The grep of the deliberately wrong dialect: JavaScript `RegExp`, per line. */
  const javascriptGrep = (artifact: ReferenceArtifact, pattern: string, grepOptions: GrepOptions): GrepResult => {
    let re: RegExp;
    try {
      re = new RegExp(grepOptions.literal === true ? pattern.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&') : pattern, grepOptions.ignoreCase === true ? 'i' : '');
    } catch (cause) {
      throw new SpillError('SPILL_INVALID_PATTERN', 'Not a JavaScript regular expression.', { cause });
    }
    const maxMatches = grepOptions.maxMatches ?? 100;
    const lines = artifact.lines.map((l) => (l.endsWith('\n') ? l.slice(0, -1) : l));
    let hits: number[];
    try {
      // A vm timeout interrupts even a regular expression stuck in backtracking.
      hits = runInNewContext('lines.flatMap((body, i) => (re.test(body) ? [i + 1] : []))', { lines, re }, { timeout: 1000 }) as number[];
    } catch (cause) {
      throw new SpillError('SPILL_TIMEOUT', 'The grep ran out of time.', { cause });
    }
    const matches = hits.slice(0, maxMatches).map((line) => ({ line, text: lines[line - 1] ?? '', truncated: false }));
    return { matches, limitReached: hits.length > maxMatches, totalBytes: artifact.totalBytes };
  };

  const reader: NonNullable<SpillBackend['reader']> = {
    async read(locator: SpillLocator, readOptions?: ReadOptions) {
      // Drops offsetByte unchecked: a bad one is not refused, and one naming another line's start is not followed.
      if (bug === 'offset-byte-ignored' && typeof readOptions === 'object' && (readOptions as unknown) !== null && 'offsetByte' in readOptions) {
        const { offsetByte: _dropped, ...rest } = readOptions;
        return reader.read(locator, rest);
      }
      if (bug === 'locator-checked-first') artifactAt(locator);
      checkReadArguments(readOptions);
      if (readOptions?.signal?.aborted === true) throw abortedError(readOptions.signal, 'The read');
      const artifact = artifactAt(locator);
      if (bug === 'read-off-by-one') return artifact.read({ ...readOptions, offset: (readOptions?.offset ?? 1) + 1 });
      // A line index with a checkpoint every 500 lines whose scan from the checkpoint skips
      // one line too many: reads that start on a checkpoint (1, 501, 1001…) are right.
      const offset = readOptions?.offset ?? 1;
      if (bug === 'read-sparse-line-index' && offset > 500 && (offset - 1) % 500 !== 0) {
        const shifted = artifact.read({ ...readOptions, offset: offset + 1 });
        return { ...shifted, startLine: offset, endLine: shifted.endLine - 1, ...(shifted.nextOffset === undefined ? {} : { nextOffset: shifted.nextOffset - 1 }) };
      }
      if (bug === 'read-ignores-max-bytes') return artifact.read({ ...readOptions, maxBytes: Number.MAX_SAFE_INTEGER });
      const result = artifact.read(readOptions);
      const stalled = result.hasMore && result.nextOffset === undefined;
      // What @spillway/memory once answered when nothing fits: "continue at this same line".
      if (bug === 'nothing-fits-stalls' && stalled && result.text === '') return { ...result, truncated: false, nextOffset: result.startLine };
      if (bug === 'long-line-stalls' && stalled && result.text !== '') return { ...result, nextOffset: result.startLine };
      return result;
    },
    // eslint-disable-next-line @typescript-eslint/require-await
    async grep(locator: SpillLocator, pattern: string, grepOptions?: GrepOptions) {
      // The bugs below are the answers the backends gave before they shared one engine.
      if (bug === 'locator-checked-first') artifactAt(locator);
      if (bug === 'timeout-zero-times-out' && grepOptions?.timeoutMs === 0) throw new SpillError('SPILL_TIMEOUT', 'No time left.');
      if (bug === 'non-string-pattern-is-input' && typeof pattern !== 'string') throw new SpillError('SPILL_INVALID_INPUT', 'Not a string.');
      const truthy = bug === 'truthy-ignore-case' && grepOptions?.ignoreCase !== undefined && typeof grepOptions.ignoreCase !== 'boolean';
      const effective: GrepOptions | undefined = truthy ? { ...grepOptions, ignoreCase: Boolean(grepOptions.ignoreCase) } : grepOptions;
      if (bug !== 'javascript-dialect') checkGrepArguments(pattern, effective);
      if (bug === 'refuses-nested-quantifiers' && effective?.literal !== true && /\([^()]*[+*][^()]*\)[+*{]/.test(pattern)) {
        throw new SpillError('SPILL_INVALID_PATTERN', 'Refused: it could backtrack catastrophically.');
      }
      if (effective?.signal?.aborted === true) throw abortedError(effective.signal, 'The grep');
      const artifact = artifactAt(locator);
      if (bug === 'javascript-dialect') return javascriptGrep(artifact, pattern, effective ?? {});
      return artifact.grep(pattern, bug === 'grep-literal-as-regex' ? { ...effective, literal: false } : effective);
    },
  };

  reader.readBytes = async function* readBytes(locator: SpillLocator, callOptions?: SpillCallOptions): AsyncGenerator<Uint8Array> {
    await Promise.resolve();
    if (callOptions !== undefined && (typeof callOptions !== 'object' || (callOptions as unknown) === null)) {
      throw new SpillError('SPILL_INVALID_INPUT', 'options must be an object.');
    }
    const signal: unknown = callOptions?.signal;
    if (signal !== undefined && !(signal instanceof AbortSignal)) throw new SpillError('SPILL_INVALID_INPUT', 'signal must be an AbortSignal.');
    if (signal?.aborted === true) throw abortedError(signal, 'The read');
    if (bug === 'read-bytes-unchecked-locator') {
      // Any artifact whose locator shares the last characters: a lookup that trusts input.
      const hit = [...store.entries()].find(([l]) => typeof locator === 'string' && locator.length > 0 && (l.endsWith(locator.slice(-8)) || locator.includes(l)));
      if (hit !== undefined) {
        yield hit[1].bytes.slice();
        return;
      }
    }
    const stored = find(locator);
    for (let at = 0; at < stored.bytes.length; at += 65_536) yield stored.bytes.slice(at, at + 65_536);
  };

  const catalog: NonNullable<SpillBackend['catalog']> = {
    async *list(listOptions: ListOptions = {}): AsyncIterable<SpillEntry> {
      await Promise.resolve();
      if (listOptions.signal?.aborted === true) throw abortedError(listOptions.signal, 'The listing');
      const only = listOptions.sessionId === undefined || bug === 'list-ignores-session' ? undefined : keyOfSession(listOptions.sessionId);
      for (const [locator, stored] of [...store.entries()]) {
        // Large artifacts stored on another path whose session tag the filter does not see.
        const untagged = bug === 'large-listed-in-every-session' && stored.bytes.length > 64 * 1024;
        if (only !== undefined && stored.session !== only && !untagged) continue;
        yield { locator: spillLocator(locator), bytes: stored.bytes.length, createdAt: stored.createdAt, session: stored.session };
      }
    },
    // eslint-disable-next-line @typescript-eslint/require-await
    async delete(locator: SpillLocator, callOptions: SpillCallOptions = {}) {
      if (callOptions.signal?.aborted === true) throw abortedError(callOptions.signal, 'The delete');
      try {
        find(locator);
      } catch (error) {
        if (isSpillError(error, 'SPILL_NOT_FOUND')) return bug === 'delete-always-true';
        throw error;
      }
      store.delete(locator);
      return true;
    },
    // Nothing is ever half-written here, so there is never anything to sweep.
    // eslint-disable-next-line @typescript-eslint/require-await
    async sweepTemp(sweepOptions) {
      if (sweepOptions.signal?.aborted === true) throw abortedError(sweepOptions.signal, 'The sweep');
      return { removed: 0, bytes: 0 };
    },
  };

  fixture.backend = {
    ...backend,
    ...(options.reader === false ? {} : { reader }),
    ...(options.catalog === false ? {} : { catalog }),
  };
  return fixture as ReferenceFixture;
}

/** hooks.readBack for a reference fixture: the raw stored bytes. */
export function readBackReference(ref: SpillRef, fixture: ReferenceFixture): Uint8Array {
  const stored = fixture.store.get(ref.locator);
  if (stored === undefined) throw new Error(`readBack: nothing at ${ref.locator}`);
  return stored.bytes;
}

/** hooks.listStored for a reference fixture: the storage key of every artifact. */
export function listStoredReference(fixture: ReferenceFixture): string[] {
  return [...fixture.store.values()].map((s) => s.key);
}

/** Hooks for a reference fixture: all of them. */
export function referenceHooks(options: ReferenceOptions = {}): SpillBackendHooks<ReferenceFixture> {
  return {
    readBack: readBackReference,
    breakStorage: (fixture) => {
      fixture.broken = true;
      return () => {
        fixture.broken = false;
      };
    },
    listStored: listStoredReference,
    ...(options.maxArtifactBytes === undefined ? {} : { maxArtifactBytes: options.maxArtifactBytes }),
  };
}
