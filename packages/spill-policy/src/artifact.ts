import { type SpillBackend, SpillError, spillLocator, utf8ByteLength } from '@spillway/core';
import { isHigh, isLow } from './preview.js';
import { timeoutError } from './save.js';

/**
 * Runs `work` with an `AbortSignal` that fires after `timeoutMs`, and resolves with its
 * answer or with the timeout error, whichever comes first. Never rejects: a throw or a
 * rejection becomes `{ ok: false }`.
 */
async function bounded<T>(
  timeoutMs: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<{ readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown }> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<{ ok: false; error: unknown }>((resolve) => {
    timer = setTimeout(() => {
      const error = timeoutError(timeoutMs);
      controller.abort(error);
      resolve({ ok: false, error });
    }, timeoutMs);
  });
  const attempt = (async () => {
    try {
      return { ok: true as const, value: await work(controller.signal) };
    } catch (error) {
      return { ok: false as const, error };
    }
  })();
  try {
    return await Promise.race([attempt, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Deletes an artifact the model will never be told about, through the backend's
 * `catalog`, within `timeoutMs`. Best effort: resolves `true` only when the catalog says
 * it removed it, and `false` otherwise (no catalog, a rejection, "already gone", a
 * timeout). Never rejects.
 */
export async function removeUnreferenced(backend: SpillBackend, locator: string, timeoutMs: number): Promise<boolean> {
  const outcome = await bounded(timeoutMs, async (signal) => {
    const catalog = backend.catalog; // a getter may throw: inside the guard
    if (typeof catalog !== 'object' || typeof catalog.delete !== 'function') return false;
    const answer: unknown = await catalog.delete(spillLocator(locator), { signal });
    return answer === true;
  });
  return outcome.ok && outcome.value;
}

/** What {@link readWholeArtifact} checks the text it reads against. */
export interface ExpectedArtifact {
  /** The artifact's exact UTF-8 size. */
  readonly bytes: number;
  /** A prefix of the original text (a stream's head buffer). */
  readonly head: string;
  /** A suffix of the original text (a stream's tail buffer). */
  readonly tail: string;
}

/**
 * Reads a whole artifact back through the backend's `reader`, paging by `nextOffset`, with
 * the whole read bounded by `timeoutMs`. Resolves with the text, or with the reason it
 * could not: the backend has no reader (`error` undefined), a read failed or timed out,
 * or what came back is not the artifact (wrong size, or not starting with `head` and
 * ending with `tail`). Never rejects.
 *
 * Backends write a lone surrogate as U+FFFD, so the text read back has U+FFFD where the
 * original had one: the same UTF-8 bytes, a different JavaScript string.
 */
export async function readWholeArtifact(
  backend: SpillBackend,
  locator: string,
  expected: ExpectedArtifact,
  timeoutMs: number,
): Promise<{ readonly ok: true; readonly text: string } | { readonly ok: false; readonly error?: unknown }> {
  let reader: SpillBackend['reader'];
  try {
    reader = backend.reader;
  } catch (error) {
    return { ok: false, error };
  }
  if (typeof reader !== 'object' || typeof (reader as { read?: unknown }).read !== 'function') return { ok: false };
  const read = reader.read.bind(reader);
  const outcome = await bounded(timeoutMs, async (signal) => {
    const ref = spillLocator(locator);
    const parts: string[] = [];
    let got = 0;
    let offset = 1;
    for (;;) {
      // Ask for everything that is left: every line is at least one byte, and the rest
      // fits in the bytes not yet read.
      const left = Math.max(1, expected.bytes - got);
      const page = await read(ref, { offset, limit: left, maxBytes: left, signal });
      const { text, hasMore, nextOffset, totalBytes } = page as Partial<Record<keyof typeof page, unknown>>;
      if (typeof text !== 'string' || totalBytes !== expected.bytes) throw notTheArtifact('a different size');
      parts.push(text);
      got += utf8ByteLength(text);
      if (got > expected.bytes) throw notTheArtifact('more bytes than it holds');
      if (hasMore !== true) break;
      if (typeof nextOffset !== 'number' || !(nextOffset > offset)) throw notTheArtifact('a page it cannot continue from');
      offset = nextOffset;
    }
    if (got !== expected.bytes) throw notTheArtifact('fewer bytes than it holds');
    const whole = parts.join(''); // may throw RangeError past the longest string V8 allows
    if (!whole.startsWith(comparable(expected.head, 'head')) || !whole.endsWith(comparable(expected.tail, 'tail'))) {
      throw notTheArtifact('text that differs from the output');
    }
    return whole;
  });
  return outcome.ok ? { ok: true, text: outcome.value } : { ok: false, error: outcome.error };
}

function notTheArtifact(what: string): SpillError {
  return new SpillError(
    'SPILL_STORAGE_FAILED',
    `Reading the spilled output back gave ${what}; the model was shown a preview instead. Check the backend's reader.`,
  );
}

/**
 * The buffer as a backend stores it: lone surrogates as U+FFFD. A buffer edge may cut a
 * surrogate pair, so the half at the open edge is dropped rather than replaced.
 */
function comparable(buffer: string, edge: 'head' | 'tail'): string {
  let text = buffer;
  if (edge === 'head' && isHigh(text.charCodeAt(text.length - 1))) text = text.slice(0, -1);
  if (edge === 'tail' && isLow(text.charCodeAt(0))) text = text.slice(1);
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
