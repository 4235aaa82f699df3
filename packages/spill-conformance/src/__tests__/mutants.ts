import type { ReferenceBug } from './reference-backend.js';

/**
 * For each deliberate defect of the reference backend, tests of the suite that must fail
 * because of it (titles are matched as substrings of the full test name).
 */
export const EXPECTED_FAILURES: Readonly<Record<ReferenceBug, readonly string[]>> = {
  'drop-last-byte': ['round-trips ASCII text verbatim', 'any content, suggested name and session id round-trips'],
  'bytes-as-length': ['reports the exact UTF-8 size and a non-empty retrieval hint for every sample'],
  'publish-partial-stream': ['a generator that throws after two chunks makes saveTextStream reject with SPILL_STREAM_FAILED'],
  'ignore-abort': [
    'an already-aborted signal makes saveText reject with SPILL_ABORTED',
    'aborting while a stream is still delivering makes saveTextStream reject with SPILL_ABORTED',
    'aborting while the stream waits for its next chunk rejects with SPILL_ABORTED at once',
  ],
  'encode-chunks-separately': ['joins a surrogate pair split across chunks delivered as an array', 'a stream split anywhere, even inside a surrogate pair'],
  'read-off-by-one': ['returns a small artifact whole with default options', 'read answers what the reference reader answers'],
  'read-ignores-max-bytes': ['stops at a line end when whole lines fit in maxBytes', 'read never returns more than maxBytes'],
  'offset-byte-ignored': ['rejects a negative offsetByte with SPILL_INVALID_INPUT', 'answers the lines from an offsetByte that starts another line, numbered from offset, and later reads as before'],
  'grep-literal-as-regex': ['finds regular-expression syntax characters literally with literal: true'],
  'delete-always-true': ['delete answers true once, then false for the same locator', 'two concurrent deletes of one artifact'],
  'list-ignores-session': ["listing one session never yields another session's artifacts"],
  'name-in-storage-key': ['a suggested name of parent traversal ../x saves, round-trips and lands where a plain name does'],
  'same-name-collides': ['concurrent saves with the same suggested name get distinct locators'],
  'plain-error-on-invalid-input': ['saveText rejects a request with no owner with SPILL_INVALID_INPUT'],
  'lossy-session-key': ["listing one session never yields another session's artifacts"],
  'throws-synchronously': ['saveText rejects a request with no owner with SPILL_INVALID_INPUT'],
  'reuses-locators': ["never hands out a deleted artifact's locator again"],
  'locator-by-last-segment': ["the real locator's last segment alone is refused"],
  'nothing-fits-stalls': [
    'answers nothing-fits when maxBytes is smaller than the first character',
    'read never returns more than maxBytes, however small maxBytes is',
  ],
  'timeout-zero-times-out': ['grep with timeoutMs 0 rejects with SPILL_INVALID_INPUT'],
  'non-string-pattern-is-input': ['grep with a number as the pattern rejects with SPILL_INVALID_PATTERN'],
  'truthy-ignore-case': ['grep with ignoreCase "yes" rejects with SPILL_INVALID_INPUT'],
  'javascript-dialect': ['speaks RE2 syntax', 'rejects "(?=a)", which RE2 does not speak', 'differential: every read and grep answers what the reference answers'],
  'refuses-nested-quantifiers': ['answers a catastrophic-backtracking pattern instead of refusing it or timing out'],
  'locator-checked-first': ['checks the options, then the pattern, then the signal, then the locator'],
  'bytes-decoded-as-text': ['stores invalid UTF-8, NUL bytes and cut sequences byte for byte', 'any bytes, cut into any chunks, round-trip exactly'],
  'read-bytes-unchecked-locator': ['readBytes of the real locator with a character appended is refused'],
  'long-line-stalls': [
    'cuts a single line of ASCII longer than maxBytes',
    'paging by nextOffset with any maxBytes of at least 4 always ends and gives back the content',
  ],
  'read-sparse-line-index': ['answers a line deep in an artifact with its locator and lines that read gives back verbatim'],
  'large-listed-in-every-session': ["searches only the session asked for: another session's artifact is never answered"],
  'no-specification-version': ["declares specificationVersion 'v1'"],
  'unstable-index-home': ['answers indexHome, when it has it, with a non-empty path or undefined, the same each time'],
};

/** Bugs that only the search tests can see: every other test passes for them. */
export const SEARCH_ONLY_BUGS: readonly ReferenceBug[] = ['read-sparse-line-index', 'large-listed-in-every-session'];

/** The describe title of the control run (the reference backend without a bug). */
export const CONTROL_NAME = 'control: reference backend without bugs';

/** The describe title of the run for `bug`. */
export function mutantName(bug: ReferenceBug): string {
  return `mutant: ${bug}`;
}
