/**
 * Token estimates and distinctive strings: the two measures every figure of an audit
 * rests on.
 */

const encoder = new TextEncoder();

/** UTF-8 size of `text` in bytes. */
export function utf8Bytes(text: string): number {
  return typeof Buffer === 'undefined' ? encoder.encode(text).length : Buffer.byteLength(text, 'utf8');
}

/**
 * Estimated tokens for `bytes` UTF-8 bytes: one token per 4 bytes, rounded up. The same
 * rule `spillway stats` uses; real tokenizers vary by model and content (code and
 * non-English text take more tokens per byte), so treat the figures as estimates.
 */
export function estimateTokens(bytes: number): number {
  return Math.ceil(bytes / 4);
}

/** The shortest distinctive string, in UTF-16 code units. */
export const MIN_DISTINCTIVE_LENGTH = 6;

// A candidate: a run of letters, digits and the characters paths, ids and versions are made of.
const CANDIDATE = /[\p{L}\p{N}_./\-@#~+]+/gu;
const MARK = /[\d/._]/;

/**
 * The distinctive strings of `text`: runs of letters, digits and `_ . / - @ # ~ +`, with
 * leading and trailing `.`, `-` and `/` removed, at least {@link MIN_DISTINCTIVE_LENGTH}
 * long and holding a digit, a slash, a dot or an underscore. Paths (`src/app.ts`), ids
 * (`req_7f3a9c`), versions (`1.18.33`), hashes and needles (`ERR-4242`) are distinctive;
 * plain words are not, because an agent can write them without having read them.
 * A path also gives its parts that qualify on their own (`src/deep/mod_42.ts` gives
 * `mod_42.ts` too). Stops after `limit` distinct strings.
 */
export function distinctiveStrings(text: string, limit = Number.POSITIVE_INFINITY): Set<string> {
  const found = new Set<string>();
  const take = (token: string): boolean => {
    if (token.length >= MIN_DISTINCTIVE_LENGTH && MARK.test(token)) found.add(token);
    return found.size >= limit;
  };
  for (const match of text.matchAll(CANDIDATE)) {
    const token = trim(match[0]);
    if (take(token)) break;
    // A path's parts too, so `/var/cache/key_9d8e` matches the `key_9d8e` an output held.
    if (token.includes('/') && token.split('/').some((part) => take(trim(part)))) break;
  }
  return found;
}

function trim(token: string): string {
  let start = 0;
  let end = token.length;
  while (start < end && '.-/'.includes(token.charAt(start))) start++;
  while (end > start && '.-/'.includes(token.charAt(end - 1))) end--;
  return token.slice(start, end);
}
