/**
 * The one naming rule of spillway's backends: where a session's artifacts go
 * (`session-<h>`) and what an artifact's leaf is called (`<random>-<safe name>`), so that
 * one session and one suggested name look alike on every backend (a directory on disk, a
 * key prefix in a bucket, the session part of a memory locator). It imports nothing from
 * Node: the session hash is the audited pure-JavaScript sha256 of `@noble/hashes`, so the
 * rule runs in browsers and edge runtimes too. `node:crypto` would tie it to Node, and Web
 * Crypto's digest is async (and missing outside secure browser contexts).
 *
 * @packageDocumentation
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { cutToUtf8Bytes, utf8ByteLength, type SessionId } from '@spillway/core';
import { randomHex } from './random-id.js';

/** Hex digits of the session hash in a session directory name (128 bits). */
export const SESSION_HASH_HEX = 32;
/** Hex digits of the random prefix of a leaf name (80 bits). */
export const LEAF_RANDOM_HEX = 20;
/** The most bytes a leaf name may have (the common file-system limit for one segment). */
export const MAX_LEAF_BYTES = 255;
/** Name used when the suggested name reduces to nothing. */
export const DEFAULT_NAME = 'result.txt';

/** `session-` followed by exactly {@link SESSION_HASH_HEX} lowercase hex digits. */
export const SESSION_DIR_RE = new RegExp(`^session-[0-9a-f]{${SESSION_HASH_HEX}}$`);
/** A published leaf: the random prefix, a dash, then at least one more character. */
export const LEAF_RE = new RegExp(`^[0-9a-f]{${LEAF_RANDOM_HEX}}-.`, 's');

// Domain separation, so the hash cannot be confused with any other sha256 of the same bytes.
const SESSION_HASH_DOMAIN = new TextEncoder().encode('spillway/session-dir/v1\0');
/** Code units encoded per block: a huge session id is hashed without a copy of its size. */
const HASH_BLOCK_UNITS = 4096;
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/**
 * The directory name for a session: `session-<h>`, where `h` is the first 32 hex digits of
 * sha256 over the session id's UTF-16 code units as little-endian bytes. That encoding is
 * lossless, so ids that differ only in lone surrogates (`"s\uD800"` vs `"s\uDFFF"`) get
 * different directories; hashing the string as UTF-8 would turn both into U+FFFD.
 *
 * @example sessionDirName(sessionId('chat-42')) // 'session-1f0c…' (32 hex digits)
 */
export function sessionDirName(sessionId: SessionId): string {
  if (typeof sessionId !== 'string') throw new TypeError('sessionDirName needs a session id string.');
  const cached = recentSessionDirs.get(sessionId);
  if (cached !== undefined) return cached;
  const hash = sha256.create();
  hash.update(SESSION_HASH_DOMAIN);
  const block = new Uint8Array(2 * Math.min(sessionId.length, HASH_BLOCK_UNITS));
  for (let start = 0; start < sessionId.length; start += HASH_BLOCK_UNITS) {
    const end = Math.min(start + HASH_BLOCK_UNITS, sessionId.length);
    for (let i = start, b = 0; i < end; i++, b += 2) {
      const unit = sessionId.charCodeAt(i);
      block[b] = unit & 0xff; // little-endian: low byte first
      block[b + 1] = unit >>> 8;
    }
    hash.update(block.subarray(0, 2 * (end - start)));
  }
  const digest = hash.digest();
  let hex = '';
  for (let i = 0; i < SESSION_HASH_HEX / 2; i++) hex += HEX[digest[i] ?? 0] ?? '';
  const name = `session-${hex}`;
  // Only short ids are remembered, so the cache's memory stays small whatever ids arrive.
  if (sessionId.length <= MAX_CACHED_SESSION_ID) {
    if (recentSessionDirs.size >= MAX_CACHED_SESSIONS) recentSessionDirs.clear();
    recentSessionDirs.set(sessionId, name);
  }
  return name;
}

/** Session ids hashed lately (a harness saves many times per session). */
const recentSessionDirs = new Map<string, string>();
const MAX_CACHED_SESSIONS = 256;
const MAX_CACHED_SESSION_ID = 256;

/** Whether a code point may appear in a leaf name as itself. */
const ASCII_SAFE = /^[A-Za-z0-9._-]$/;
// Letters from left-to-right scripts only: right-to-left letters can visually reorder an
// extension next to them, and digits other than ASCII carry their own bidi class.
const SAFE_LETTER =
  /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u;
const LETTER = /^\p{L}$/u;
const EXTENSION_RE = /\.([A-Za-z0-9]{1,16})$/;
const SEPARATORS = /[._-]/;

function isAllowed(ch: string): boolean {
  return ASCII_SAFE.test(ch) || (SAFE_LETTER.test(ch) && LETTER.test(ch));
}

function trimSeparators(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && SEPARATORS.test(text.charAt(start))) start++;
  while (end > start && SEPARATORS.test(text.charAt(end - 1))) end--;
  return text.slice(start, end);
}

/**
 * The most UTF-16 code units of a suggested name that are ever looked at. The name kept is
 * at most 255 bytes, so a longer suggestion is cut to its first {@link SUGGESTION_HEAD}
 * and last {@link SUGGESTION_TAIL} code units (where the extension is) before any
 * per-character work: a suggestion of any length costs the same few microseconds.
 */
export const MAX_SUGGESTION_SCAN = 1024;
const SUGGESTION_HEAD = MAX_SUGGESTION_SCAN - 64;
const SUGGESTION_TAIL = 32;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * `text` if it is at most {@link MAX_SUGGESTION_SCAN} code units long; otherwise its head
 * and its tail joined by `_`, each cut so that no surrogate pair is split. Constant time in
 * the length of `text`.
 */
export function boundSuggestion(text: string): string {
  if (text.length <= MAX_SUGGESTION_SCAN) return text;
  let headEnd = SUGGESTION_HEAD;
  if (isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd -= 1;
  let tailStart = text.length - SUGGESTION_TAIL;
  if (isLowSurrogate(text.charCodeAt(tailStart))) tailStart += 1;
  return `${text.slice(0, headEnd)}_${text.slice(tailStart)}`;
}

/**
 * Reduces a suggested name to one safe, readable segment (without the random prefix):
 * NFKC first (so a fullwidth solidus becomes `/` and is then removed), then an allow-list
 * of ASCII letters, digits, `.`, `_`, `-` and letters of left-to-right scripts; every run
 * of other characters becomes one `_`, every run of separators one character, no leading
 * or trailing separator, the extension kept, at most `maxBytes` UTF-8 bytes. An empty
 * result becomes {@link DEFAULT_NAME}. Only the first and last code units of a very long
 * suggestion are looked at (see {@link boundSuggestion}), so its cost is bounded.
 */
export function sanitizeName(suggested: string, maxBytes: number = MAX_LEAF_BYTES - LEAF_RANDOM_HEX - 1): string {
  const normalized = boundSuggestion(suggested).normalize('NFKC');
  // Kept as an array with the last character tracked: reading the end of a string built
  // by `+=` flattens it every time, which made this quadratic.
  const out: string[] = [];
  let last = '';
  let inRun = false; // inside a run of replaced characters
  for (const ch of normalized) {
    if (isAllowed(ch)) {
      if (SEPARATORS.test(ch) && SEPARATORS.test(last)) {
        // Collapse a run of separators, keeping a dot if the run has one.
        if (ch === '.') out[out.length - 1] = last = '.';
      } else {
        out.push(ch);
        last = ch;
      }
      inRun = false;
    } else if (!inRun) {
      if (!SEPARATORS.test(last)) {
        out.push('_');
        last = '_';
      }
      inRun = true;
    }
  }
  let name = trimSeparators(out.join(''));
  if (name === '') return DEFAULT_NAME;
  if (utf8ByteLength(name) > maxBytes) {
    const ext = EXTENSION_RE.exec(name);
    const suffix = ext !== null && ext.index > 0 ? ext[0] : '';
    const stem = suffix === '' ? name : name.slice(0, -suffix.length);
    const kept = trimSeparators(cutToUtf8Bytes(stem, maxBytes - suffix.length));
    name = kept === '' ? cutToUtf8Bytes(DEFAULT_NAME, maxBytes) : kept + suffix;
  }
  return name;
}

/**
 * A fresh leaf name: {@link LEAF_RANDOM_HEX} random hex digits, `-`, then the sanitised
 * suggestion, the same on every backend (`notes.md` becomes `<random>-notes.md`). Never
 * `.`/`..`, never a leading dot or dash, at most `maxLeafBytes` bytes (255 by default; a
 * store with a tighter limit passes its own), and Windows device names (`CON`, `nul.txt`)
 * are harmless behind the prefix.
 */
export function leafName(suggested: string, maxLeafBytes: number = MAX_LEAF_BYTES): string {
  const prefix = randomHex(LEAF_RANDOM_HEX / 2);
  return `${prefix}-${sanitizeName(suggested, maxLeafBytes - LEAF_RANDOM_HEX - 1)}`;
}

/** Control characters, NUL included: {@link sanitizeName} never keeps one. */
// eslint-disable-next-line no-control-regex -- the control characters are what is looked for
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Whether `name` has the shape of a published leaf of at most `maxLeafBytes`: not a temp
 * file, not hidden, one segment, no control character.
 */
export function isLeafName(name: string, maxLeafBytes: number = MAX_LEAF_BYTES): boolean {
  return LEAF_RE.test(name) && utf8ByteLength(name) <= maxLeafBytes && !name.includes('/') && !CONTROL.test(name);
}
