import { type SpillLocator, spillLocator } from '@spillway/core';

// TEMPORARY: a local reader of the documented notice format until
// `@spillway/policy/notice` exports one. The notice is exactly
// `(Omitted N bytes. Full formatted result stored at: <locator>. <retrievalHint>)`.
const NOTICE_START = '(Omitted ';
const NOTICE = /\(Omitted (\d+) bytes\. Full formatted result stored at: (.+?)\. (?=[^\s)])[^\n)]*\)/g;

/**
 * The longest stretch of text kept back between two chunks while a notice may still be
 * arriving. A notice is one line of a few hundred bytes plus its locator (a path is at
 * most 4096 bytes), so 16 KiB never cuts one off.
 */
const MAX_NOTICE_CHARS = 16 * 1024;

function findNotices(text: string): { locator: string; end: number }[] {
  const found: { locator: string; end: number }[] = [];
  for (const m of text.matchAll(NOTICE)) {
    const locator = m[2];
    if (locator !== undefined && locator !== '') found.push({ locator, end: m.index + m[0].length });
  }
  return found;
}

/**
 * How much of the end of `text` may be the start of a notice that the next chunk
 * completes: from the last `(Omitted ` after the last complete notice, or a tail that is
 * a prefix of `(Omitted `.
 */
function pendingTail(text: string, after: number): string {
  const open = text.lastIndexOf(NOTICE_START);
  if (open >= after && text.length - open <= MAX_NOTICE_CHARS) return text.slice(open);
  for (let k = Math.min(NOTICE_START.length - 1, text.length - after); k > 0; k--) {
    if (text.endsWith(NOTICE_START.slice(0, k))) return text.slice(text.length - k);
  }
  return '';
}

/**
 * Finds every spilled-artifact locator that transcript text references through a spill
 * notice, so retention can keep exactly what a live conversation still points at:
 *
 * ```ts
 * const refs = await referencedLocators(liveTranscripts());
 * createRetention({ catalog, maxAgeMs, keep: (e) => refs.has(e.locator) });
 * ```
 *
 * `texts` may be whole messages or arbitrary chunks of one long transcript (a file read
 * in pieces): a notice split across two chunks is still found. Memory is bounded by the
 * set of locators found plus one chunk.
 */
export async function referencedLocators(
  texts: Iterable<string> | AsyncIterable<string>,
): Promise<ReadonlySet<SpillLocator>> {
  const found = new Set<SpillLocator>();
  let carry = '';
  for await (const chunk of texts) {
    if (typeof (chunk as unknown) !== 'string') {
      throw new TypeError(`referencedLocators needs strings; got ${typeof (chunk as unknown)}.`);
    }
    const text = carry + chunk;
    let last = 0;
    for (const { locator, end } of findNotices(text)) {
      found.add(spillLocator(locator));
      last = end;
    }
    carry = pendingTail(text, last);
  }
  return found;
}
