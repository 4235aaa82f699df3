import { SpillError, spillLocator, utf8ByteLength } from '@spillway/core';
import type { SessionId, SpillLocator } from '@spillway/core';
import { randomHex } from '@spillway/backend-utils';
import { LEAF_RANDOM_HEX, SESSION_DIR_RE, isLeafName, leafName, sessionDirName } from '@spillway/backend-utils/naming';

/** The scheme every locator of this backend starts with. */
export const LOCATOR_SCHEME = 's3://';
/** Hex digits of the random id that starts every leaf (80 bits): the shared naming rule's. */
export { LEAF_RANDOM_HEX };
/**
 * The most bytes a leaf may have. Below the local backend's 255 because stores that keep
 * objects as files add suffixes to the key's last segment (s3rver adds 22 bytes), and a
 * file name is at most 255 bytes.
 */
export const MAX_LEAF_BYTES = 224;

const SESSION_RE = SESSION_DIR_RE;
// S3 bucket names (the DNS-compatible rules every S3-compatible store accepts).
const BUCKET_RE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** Where a backend's artifacts live: a bucket and a key prefix (`''` or `a/b`, no slashes at the ends). */
export interface Layout {
  readonly bucket: string;
  readonly prefix: string;
}

/** A key of this layout, split into its parts. */
export interface ParsedKey {
  /** The whole object key. */
  readonly key: string;
  /** `session-<h>`. */
  readonly session: string;
  /** `<random>-<name>`. */
  readonly leaf: string;
}

/**
 * Checks a bucket name and prefix and returns the layout; a trailing `/` on the prefix is
 * dropped. Programmer mistakes, so `TypeError`s.
 */
export function makeLayout(bucket: unknown, prefix: unknown): Layout {
  if (typeof bucket !== 'string' || !BUCKET_RE.test(bucket) || bucket.includes('..')) {
    throw new TypeError(`createS3Backend: bucket must be an S3 bucket name (3 to 63 of a-z, 0-9, '.', '-'); got ${JSON.stringify(bucket)}.`);
  }
  if (prefix === undefined) return { bucket, prefix: '' };
  if (typeof prefix !== 'string') throw new TypeError('createS3Backend: prefix must be a string.');
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (trimmed === '') return { bucket, prefix: '' };
  const segments = trimmed.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..') || hasControl(trimmed)) {
    throw new TypeError(
      `createS3Backend: prefix ${JSON.stringify(prefix)} must be segments separated by single '/', without '.', '..', a leading '/' or control characters.`,
    );
  }
  if (segments.some((s) => SESSION_RE.test(s))) {
    throw new TypeError(`createS3Backend: prefix ${JSON.stringify(prefix)} must not contain a session-<hash> segment of its own.`);
  }
  if (utf8ByteLength(trimmed) > 512) throw new TypeError('createS3Backend: prefix must be at most 512 bytes (S3 keys are at most 1024).');
  return { bucket, prefix: trimmed };
}

/** The key prefix every artifact of the layout starts with: `''` or `<prefix>/`. */
export function rootPrefix(layout: Layout): string {
  return layout.prefix === '' ? '' : `${layout.prefix}/`;
}

/** The key prefix of one session's artifacts: `<prefix>/session-<h>/`. */
export function sessionPrefix(layout: Layout, session: SessionId): string {
  return `${rootPrefix(layout)}${sessionDirName(session)}/`;
}

/**
 * A fresh key: `<prefix>/session-<h>/<random>-<name>`, by the naming rule every backend
 * shares (`sessionDirName`, `leafName` from `@spillway/backend-utils/naming`), so one
 * session and one suggested name look alike on every backend. `randomId` replaces the
 * random part (tests use it to make keys collide).
 */
export function newKey(layout: Layout, session: SessionId, suggestedName: string, randomId?: () => string): string {
  const leaf = leafName(suggestedName, MAX_LEAF_BYTES);
  const named = randomId === undefined ? leaf : `${randomId()}${leaf.slice(LEAF_RANDOM_HEX)}`;
  return `${sessionPrefix(layout, session)}${named}`;
}

/** A fresh random id: {@link LEAF_RANDOM_HEX} hex digits. */
export function freshId(): string {
  return randomHex(LEAF_RANDOM_HEX / 2);
}

/** The locator of a key: `s3://<bucket>/<key>`. */
export function locatorOf(layout: Layout, key: string): SpillLocator {
  return spillLocator(`${LOCATOR_SCHEME}${layout.bucket}/${key}`);
}

/** Splits a key of this layout, or answers `undefined` for any other key. */
export function parseKey(layout: Layout, key: string): ParsedKey | undefined {
  const root = rootPrefix(layout);
  if (!key.startsWith(root)) return undefined;
  const rest = key.slice(root.length);
  const slash = rest.indexOf('/');
  if (slash === -1) return undefined;
  const session = rest.slice(0, slash);
  const leaf = rest.slice(slash + 1);
  // Keys saved before the naming rule was shared end in `.txt`; they still match.
  if (!SESSION_RE.test(session) || !isLeafName(leaf, MAX_LEAF_BYTES)) return undefined;
  return { key, session, leaf };
}

function show(value: string): string {
  return JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}…` : value);
}

function invalid(message: string): SpillError {
  return new SpillError('SPILL_INVALID_LOCATOR', message);
}

/**
 * Checks an untrusted locator against the layout, without any request: `s3://`, this
 * backend's bucket, then a key of exactly this layout's shape under its prefix.
 *
 * @throws SpillError `SPILL_INVALID_LOCATOR` for anything else.
 */
export function parseLocator(layout: Layout, locator: unknown): ParsedKey {
  if (typeof locator !== 'string' || locator.length === 0) {
    throw invalid('A locator must be the non-empty s3:// string returned by a save.');
  }
  if (!locator.startsWith(LOCATOR_SCHEME)) {
    throw invalid(`The locator ${show(locator)} is not an s3:// locator of this backend; pass the locator printed in the spill notice.`);
  }
  const rest = locator.slice(LOCATOR_SCHEME.length);
  const slash = rest.indexOf('/');
  const bucket = slash === -1 ? rest : rest.slice(0, slash);
  if (bucket !== layout.bucket) {
    throw invalid(`The locator ${show(locator)} is in bucket ${show(bucket)}, not this backend's bucket ${show(layout.bucket)}.`);
  }
  const parsed = parseKey(layout, rest.slice(slash + 1));
  if (slash === -1 || parsed === undefined) {
    const where = layout.prefix === '' ? `s3://${layout.bucket}/` : `s3://${layout.bucket}/${layout.prefix}/`;
    throw invalid(`The locator ${show(locator)} does not name a spilled artifact under ${where}.`);
  }
  return parsed;
}
