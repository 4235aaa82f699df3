import { type SpillEntry, type SpillLocator, spillLocator } from '@spillway/core';
import { KNOWN_RETRIEVAL_HINTS, findSpillNotices } from '@spillway/core/notice';

const NOTICE_START = '(Omitted ';

/**
 * Hints recognised without being asked: every sentence of `RETRIEVAL_HINTS` in
 * `@spillway/core/notice`, which the shipped backends and surfaces use.
 */
export const DEFAULT_KNOWN_HINTS: readonly string[] = KNOWN_RETRIEVAL_HINTS;

/**
 * The longest stretch of text kept back between two chunks while a notice may still be
 * arriving. A notice is one line of a few hundred bytes plus its locator (a path is at
 * most 4096 bytes), so 16 KiB never cuts one off.
 */
const MAX_NOTICE_CHARS = 16 * 1024;

/**
 * How much of the end of `text` to scan again with the next chunk, because a notice may
 * continue there: from the last opening phrase when no notice was read from it, or when
 * the one read from it ended only because the chunk did (its hint may go on); else a
 * tail that is a prefix of the opening phrase. `lastEnd` is where the last notice found
 * ended (0 if none).
 */
function pendingTail(text: string, lastEnd: number): string {
  const open = text.lastIndexOf(NOTICE_START);
  if (open >= 0 && text.length - open <= MAX_NOTICE_CHARS && (open >= lastEnd || lastEnd === text.length)) {
    return text.slice(open);
  }
  for (let k = Math.min(NOTICE_START.length - 1, text.length); k > 0; k--) {
    if (text.endsWith(NOTICE_START.slice(0, k))) return text.slice(text.length - k);
  }
  return '';
}

/** Options for {@link referencedLocators} and {@link keepReferenced}. */
export interface ReferenceOptions {
  /**
   * Retrieval hints of the backends in use, recognised verbatim. A notice followed on its
   * line by more text (a transcript stored as JSON lines, say) is found only when its
   * hint is known; the local and memory backends' hints are always known
   * ({@link DEFAULT_KNOWN_HINTS}).
   */
  readonly knownHints?: readonly string[] | undefined;
}

/**
 * Finds every spilled-artifact locator that transcript text references through a spill
 * notice, so retention can keep exactly what a live conversation still points at.
 *
 * `texts` may be whole messages or arbitrary chunks of one long transcript (a file read
 * in pieces): a notice split across two chunks is still found. Memory is bounded by the
 * set of locators found plus one chunk.
 *
 * @example
 * const refs = await referencedLocators(liveTranscripts());
 * createRetention({ catalog, maxAgeMs, keep: (entry) => refs.has(entry.locator) });
 *
 * @throws TypeError when an item of `texts` is not a string.
 */
export async function referencedLocators(
  texts: Iterable<string> | AsyncIterable<string>,
  options: ReferenceOptions = {},
): Promise<ReadonlySet<SpillLocator>> {
  const knownHints = [...DEFAULT_KNOWN_HINTS, ...(options.knownHints ?? [])];
  const found = new Set<SpillLocator>();
  let carry = '';
  for await (const chunk of texts) {
    if (typeof (chunk as unknown) !== 'string') {
      throw new TypeError(`referencedLocators needs strings; got ${typeof (chunk as unknown)}.`);
    }
    const text = carry + chunk;
    let last = 0;
    for (const notice of findSpillNotices(text, { knownHints })) {
      found.add(spillLocator(notice.locator));
      last = notice.end;
    }
    carry = pendingTail(text, last);
  }
  return found;
}

/**
 * A `keep` predicate that protects every artifact `texts` reference: reference-aware
 * retention in one line.
 *
 * @example
 * createRetention({ catalog, maxTotalBytes: 2e9, keep: await keepReferenced(liveTranscripts()) });
 */
export async function keepReferenced(
  texts: Iterable<string> | AsyncIterable<string>,
  options: ReferenceOptions = {},
): Promise<(entry: SpillEntry) => boolean> {
  const refs = await referencedLocators(texts, options);
  return (entry) => refs.has(entry.locator);
}
