import { randomHex } from '@spillway/backend-utils';

// The naming rule is shared by every backend; the local backend adds only its temp files.
export {
  DEFAULT_NAME,
  LEAF_RANDOM_HEX,
  LEAF_RE,
  MAX_LEAF_BYTES,
  MAX_SUGGESTION_SCAN,
  SESSION_DIR_RE,
  SESSION_HASH_HEX,
  boundSuggestion,
  isLeafName,
  leafName,
  sanitizeName,
  sessionDirName,
} from '@spillway/backend-utils/naming';
export { randomHex };

/** Prefix of in-progress files; `sweepTemp` removes leftovers that carry it. */
export const TEMP_PREFIX = '.tmp-';
/** An in-progress temp file: the prefix and 32 hex digits. */
export const TEMP_RE = /^\.tmp-[0-9a-f]{32}$/;

/** A fresh temp-file name in the session directory. */
export function tempName(): string {
  return `${TEMP_PREFIX}${randomHex(16)}`;
}
