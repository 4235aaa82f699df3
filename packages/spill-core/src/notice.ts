/**
 * The model-facing spill notice: format it, find it, parse it back.
 *
 * The notice is the protocol between whoever writes one (the policy, the CLI) and whoever
 * reads one (retention, transcript viewers, the adapters), so it lives in the seam. This
 * module imports nothing from Node, so it runs in browsers and edge runtimes too. It is
 * published as `@spillway/core/notice` (and re-exported as `@spillway/policy/notice`).
 * It also holds the retrieval-hint sentences every backend and surface uses, so the
 * sentences exist once.
 *
 * ## Grammar
 *
 * ```text
 * notice  = "(Omitted " count " bytes. Full formatted result stored at: " locator ". " hint ")"
 * count   = "0" / %x31-39 *DIGIT        ; decimal, no leading zeros
 * locator = 1*CHAR                      ; anything, including ". ", ")", spaces, line breaks
 * hint    = *CHAR                       ; the backend's retrieval hint, verbatim
 * ```
 *
 * The locator and the hint are free text, so where one ends and the other starts is
 * decided by a rule, not by syntax:
 *
 * 1. If the text between the opening phrase and the closing `)` ends with `". " + h` for a
 *    hint `h` in `knownHints`, the hint is `h` (the longest such hint wins).
 * 2. Otherwise the hint is everything after the **last** `". "`; the locator is what comes
 *    before it.
 *
 * So a locator may contain anything, and a hint may contain anything except `". "` — the
 * one ambiguity: a hint that contains `". "` (two sentences, or "e.g. ") is recovered only
 * when it is passed in `knownHints`; otherwise part of it is read as the end of the locator.
 *
 * Where a notice starts and ends in a longer text:
 *
 * - {@link parseSpillNotice} reads the notice that **ends** the text (trailing whitespace
 *   allowed): it ends at the final `)` and starts at the last opening phrase
 *   `(Omitted <count> bytes. Full formatted result stored at: ` that yields a notice.
 * - {@link findSpillNotices} scans running text: for a known hint, a notice ends right
 *   after `". " + hint + ")"`; otherwise at the first `)` that is followed by a character
 *   other than a letter, digit or `_` (a line break, a space, a quote, a bracket, a
 *   comma…) or by the end of the text, and whose body splits into a locator and a hint.
 *   Never past the next opening phrase. With `jsonEscaped`, the text is read as the inside
 *   of a JSON string (a JSON-lines transcript) and the locator and hint are unescaped.
 *
 * A locator or hint that itself contains the opening phrase, or (for scanning) a `)`
 * followed by such a character, cannot be told apart from the notice's own punctuation.
 *
 * @packageDocumentation
 */

import { wholeNumberProblem } from './whole-number.js';

/**
 * Who reads a notice, named by what they can call to get the stored result back. It picks
 * the notice's retrieval hint (see {@link retrievalHintFor}):
 *
 * - `'file-tools'`: a model with file tools (`read` with offset/limit, `grep`), for an
 *   artifact that is a file on the model's host;
 * - `'spill-tools'`: a model offered spillway's retrieval tools (`spill_read`, `spill_grep`),
 *   as the MCP proxy and the framework adapters do;
 * - `'spill-tools-and-search'`: the same, where `spill_search` is offered too;
 * - `'spillway-cli'`: an agent or a person at a shell, who has the `spillway` command.
 */
export type SpillNoticeReader = 'file-tools' | 'spill-tools' | 'spill-tools-and-search' | 'spillway-cli';

/** The retrieval hint for each {@link SpillNoticeReader}: one sentence, without `". "` inside. */
export const RETRIEVAL_HINTS: Readonly<Record<SpillNoticeReader, string>> = Object.freeze({
  'file-tools': 'Use read with offset/limit, or grep this path to search within it.',
  'spill-tools': 'Use spill_read with offset/limit, or spill_grep to search within it.',
  'spill-tools-and-search': 'Use spill_read with offset/limit, spill_grep to search within it, or spill_search to search across this session.',
  'spillway-cli': 'Use spillway read with --offset/--limit, spillway grep to search within it, or spillway cat to copy it whole.',
});

/**
 * The retrieval hint that names what `reader` can call.
 *
 * @throws TypeError for a value that is not a {@link SpillNoticeReader}.
 * @example retrievalHintFor('spill-tools') // 'Use spill_read with offset/limit, or spill_grep to search within it.'
 */
export function retrievalHintFor(reader: SpillNoticeReader): string {
  const hint = Object.hasOwn(RETRIEVAL_HINTS, reader) ? RETRIEVAL_HINTS[reader] : undefined;
  if (hint === undefined) {
    throw new TypeError(`Unknown notice reader ${JSON.stringify(reader)}; expected one of ${Object.keys(RETRIEVAL_HINTS).join(', ')}.`);
  }
  return hint;
}

/** Every sentence of {@link RETRIEVAL_HINTS}, for `knownHints` when parsing notices. */
export const KNOWN_RETRIEVAL_HINTS: readonly string[] = Object.freeze(Object.values(RETRIEVAL_HINTS));

const OPENING = '(Omitted ';
const AFTER_COUNT = ' bytes. Full formatted result stored at: ';
const BETWEEN = '. ';
const CLOSING = ')';

/** Matches the opening phrase, capturing the byte count. */
const OPENING_PATTERN = /\(Omitted (0|[1-9][0-9]*) bytes\. Full formatted result stored at: /g;

/** The three facts a spill notice states. */
export interface SpillNotice {
  /** How many UTF-8 bytes of the original result the model does not see. */
  readonly omittedBytes: number;
  /** Where the full result is stored (the backend's `SpillLocator`, verbatim). */
  readonly locator: string;
  /** The backend's one-sentence hint on how to read the full result back. */
  readonly retrievalHint: string;
}

/** A notice found in a longer text, with its position. */
export interface FoundSpillNotice extends SpillNotice {
  /** Index (UTF-16 code units) of the notice's opening `(` in the searched text. */
  readonly start: number;
  /** Index just past the notice's closing `)`. */
  readonly end: number;
}

/** Options for {@link parseSpillNotice} and {@link findSpillNotices}. */
export interface ParseSpillNoticeOptions {
  /**
   * Retrieval hints to recognise verbatim. Needed only for hints that contain `". "`;
   * a hint without it is recovered by the default rule.
   */
  readonly knownHints?: readonly string[];
}

/** Options for {@link findSpillNotices} and {@link hasSpillNotice}. */
export interface FindSpillNoticesOptions extends ParseSpillNoticeOptions {
  /**
   * Read the text as JSON string content, as a JSON-lines transcript holds it: `\"`,
   * `\\`, `\n`, `\uXXXX` and the other JSON escapes in the locator and the hint are
   * decoded in what is returned (`start` and `end` still index the text as given).
   */
  readonly jsonEscaped?: boolean;
}

/**
 * Formats the notice exactly as
 * `(Omitted N bytes. Full formatted result stored at: <locator>. <retrievalHint>)`.
 *
 * @throws TypeError when `omittedBytes` is not a non-negative safe integer, `locator` is
 *   not a non-empty string, or `retrievalHint` is not a string.
 *
 * @example
 * formatSpillNotice({ omittedBytes: 4096, locator: '/tmp/x.txt', retrievalHint: 'Use read.' });
 * // '(Omitted 4096 bytes. Full formatted result stored at: /tmp/x.txt. Use read.)'
 */
export function formatSpillNotice(notice: SpillNotice): string {
  const { omittedBytes, locator, retrievalHint } = notice;
  const problem = wholeNumberProblem(omittedBytes, { min: 0, unit: 'bytes' });
  if (problem !== undefined) throw new TypeError(`omittedBytes ${problem}.`);
  if (typeof locator !== 'string' || locator.length === 0) {
    throw new TypeError('locator must be a non-empty string.');
  }
  if (typeof retrievalHint !== 'string') throw new TypeError('retrievalHint must be a string.');
  return `${OPENING}${String(omittedBytes)}${AFTER_COUNT}${locator}${BETWEEN}${retrievalHint}${CLOSING}`;
}

/**
 * Reads the notice that ends `text`: a bare notice, or a spilled result (preview, blank
 * line, notice). Whitespace after the closing `)` is ignored. Returns `undefined` when
 * the text does not end with a notice. See the module documentation for the exact rules.
 *
 * @example
 * parseSpillNotice('…tail\n\n(Omitted 12 bytes. Full formatted result stored at: /a. b/c). Use read.)');
 * // { omittedBytes: 12, locator: '/a. b/c)', retrievalHint: 'Use read.' }
 */
export function parseSpillNotice(text: string, options: ParseSpillNoticeOptions = {}): SpillNotice | undefined {
  if (typeof text !== 'string') return undefined;
  let end = text.length;
  while (end > 0 && isWhitespace(text.charCodeAt(end - 1))) end--;
  if (end === 0 || text.charCodeAt(end - 1) !== 0x29 /* ) */) return undefined;
  const hints = sortedHints(options.knownHints);
  // Try openings from the last to the first: the notice is at the end, and text before
  // it (a preview that quotes an older notice) must not capture it.
  let from = end - 1;
  while (from >= 0) {
    const at = text.lastIndexOf(OPENING, from);
    if (at < 0) return undefined;
    const opening = matchOpening(text, at);
    if (opening !== undefined && opening.bodyStart <= end - 1) {
      const parts = splitBody(text.slice(opening.bodyStart, end - 1), hints);
      if (parts !== undefined) return { omittedBytes: opening.count, ...parts };
    }
    from = at - 1;
  }
  return undefined;
}

/**
 * Iterates over every notice in a running text (a transcript, a log), left to right.
 * A notice ends right after `". " + hint + ")"` for a hint in `knownHints`, or else at the
 * first `)` followed by a non-word character (anything but a letter, digit or `_`) or the
 * end of the text whose body holds a locator and a hint. Notices never overlap. Pass
 * `jsonEscaped: true` for text that is still JSON-escaped (a JSON-lines transcript).
 *
 * @example
 * const locators = new Set<string>();
 * for (const text of transcriptTexts) for (const n of findSpillNotices(text)) locators.add(n.locator);
 */
export function* findSpillNotices(
  text: string,
  options: FindSpillNoticesOptions = {},
): Generator<FoundSpillNotice, undefined, undefined> {
  if (typeof text !== 'string') return undefined;
  const hints = sortedHints(options.knownHints);
  const jsonEscaped = options.jsonEscaped === true;
  const pattern = new RegExp(OPENING_PATTERN.source, 'g');
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(text)) !== null) {
    const count = Number(match[1]);
    const bodyStart = match.index + match[0].length;
    const found = Number.isSafeInteger(count) ? readRunningBody(text, bodyStart, hints, jsonEscaped) : undefined;
    if (found === undefined) {
      // Not a notice after all; the next opening may start inside this one.
      pattern.lastIndex = match.index + 1;
      continue;
    }
    yield { omittedBytes: count, ...found.parts, start: match.index, end: found.end };
    pattern.lastIndex = found.end;
  }
  return undefined;
}

/**
 * Tells whether `text` contains at least one spill notice anywhere, by the rules of
 * {@link findSpillNotices}. Use it to recognise a result that was already spilled.
 */
export function hasSpillNotice(text: string, options: FindSpillNoticesOptions = {}): boolean {
  return !findSpillNotices(text, options).next().done;
}

function readRunningBody(
  text: string,
  bodyStart: number,
  hints: readonly string[],
  jsonEscaped: boolean,
): { parts: { locator: string; retrievalHint: string }; end: number } | undefined {
  // A notice never spans another notice's opening phrase.
  const next = new RegExp(OPENING_PATTERN.source, 'g');
  next.lastIndex = bodyStart;
  const limit = next.exec(text)?.index ?? text.length;
  const decode = jsonEscaped ? unescapeJson : (raw: string): string => raw;
  for (const hint of hints) {
    const tail = `${BETWEEN}${jsonEscaped ? escapeJson(hint) : hint}${CLOSING}`;
    const at = text.indexOf(tail, bodyStart + 1);
    if (at >= 0 && at + tail.length <= limit) {
      return { parts: { locator: decode(text.slice(bodyStart, at)), retrievalHint: hint }, end: at + tail.length };
    }
  }
  const knownTails = hints.flatMap((hint) => {
    const tail = `${BETWEEN}${hint}${CLOSING}`;
    return jsonEscaped ? [tail, `${BETWEEN}${escapeJson(hint)}${CLOSING}`] : [tail];
  });
  let close = text.indexOf(CLOSING, bodyStart);
  while (close >= 0 && close < limit) {
    if (close + 1 >= text.length || !isWordCharacter(text.charCodeAt(close + 1))) {
      // A text cut short inside a known hint (a chunk of a longer transcript) is not a
      // notice yet: a ")" within that hint must not end it.
      if (endsInsideKnownTail(text, bodyStart + 1, close, knownTails)) return undefined;
      const parts = splitBody(decode(text.slice(bodyStart, close)), hints);
      if (parts !== undefined) return { parts, end: close + 1 };
    }
    close = text.indexOf(CLOSING, close + 1);
  }
  return undefined;
}

/**
 * Tells whether the text, from some index in `from..close`, runs to its end as a proper
 * prefix of one of `tails`: it was cut off inside that known hint, around `close`.
 */
function endsInsideKnownTail(text: string, from: number, close: number, tails: readonly string[]): boolean {
  for (const tail of tails) {
    for (let at = Math.max(from, text.length - tail.length + 1); at <= close; at++) {
      if (tail.startsWith(text.slice(at))) return true;
    }
  }
  return false;
}

/** `[A-Za-z0-9_]`: a `)` followed by one of these is taken to be inside the locator. */
function isWordCharacter(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
}

const JSON_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Decodes JSON string escapes; anything that is not a valid escape stays as it is. */
function unescapeJson(raw: string): string {
  if (!raw.includes('\\')) return raw;
  return raw.replace(/\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g, (whole, hex: string | undefined, simple: string | undefined) => {
    if (hex !== undefined) return String.fromCharCode(Number.parseInt(hex, 16));
    return simple === undefined ? whole : (JSON_ESCAPES[simple] ?? whole);
  });
}

/** The inside of `JSON.stringify(text)`. */
function escapeJson(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function matchOpening(text: string, at: number): { count: number; bodyStart: number } | undefined {
  const pattern = new RegExp(OPENING_PATTERN.source, 'y');
  pattern.lastIndex = at;
  const match = pattern.exec(text);
  if (match === null) return undefined;
  const count = Number(match[1]);
  if (!Number.isSafeInteger(count)) return undefined;
  return { count, bodyStart: at + match[0].length };
}

function splitBody(body: string, hints: readonly string[]): { locator: string; retrievalHint: string } | undefined {
  for (const hint of hints) {
    const cut = body.length - hint.length - BETWEEN.length;
    if (cut >= 1 && body.endsWith(`${BETWEEN}${hint}`)) {
      return { locator: body.slice(0, cut), retrievalHint: hint };
    }
  }
  const cut = body.lastIndexOf(BETWEEN);
  if (cut < 1) return undefined; // the locator is never empty
  return { locator: body.slice(0, cut), retrievalHint: body.slice(cut + BETWEEN.length) };
}

function sortedHints(hints: readonly string[] | undefined): readonly string[] {
  if (hints === undefined || hints.length === 0) return [];
  return hints.filter((h) => typeof h === 'string').sort((a, b) => b.length - a.length);
}

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09 || code === 0x0c || code === 0x0b;
}
