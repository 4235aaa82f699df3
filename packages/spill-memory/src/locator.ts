import { SpillError, spillLocator } from '@spillway/core';
import type { SpillLocator } from '@spillway/core';

/** The URI scheme of every memory locator. */
export const MEMORY_LOCATOR_SCHEME = 'spill+memory';

/** Random bytes in a locator's id: 128 bits, so ids cannot be guessed or enumerated. */
export const LOCATOR_ID_BYTES = 16;

/** `session-<32 hex>` (the naming rule's `sessionDirName`), then `/<32 hex>` (the random id). */
const LOCATOR_SHAPE = /^spill\+memory:\/\/session-[0-9a-f]{32}\/[0-9a-f]{32}$/;

/** Builds `spill+memory://<session-dir>/<id>`, where `<session-dir>` is `session-<32 hex>`. */
export function formatLocator(sessionDir: string, id: string): SpillLocator {
  // join() makes one flat string; a template literal may keep a rope of its parts alive.
  return spillLocator([MEMORY_LOCATOR_SCHEME, '://', sessionDir, '/', id].join(''));
}

/**
 * Checks that an untrusted value has the exact shape of a memory locator, and returns it
 * as a string. Anything else (not a string, another scheme, extra characters, upper-case
 * hex) rejects with `SPILL_INVALID_LOCATOR`. Whether it names anything is for the store.
 */
export function parseLocator(value: unknown): string {
  if (typeof value !== 'string') {
    throw new SpillError(
      'SPILL_INVALID_LOCATOR',
      `A memory locator must be a string; got ${value === null ? 'null' : typeof value}.`,
    );
  }
  if (!LOCATOR_SHAPE.test(value)) {
    throw new SpillError(
      'SPILL_INVALID_LOCATOR',
      `Not a memory locator: expected spill+memory://session-<32 hex>/<32 hex>, exactly as a save returned it; got ${JSON.stringify(value.slice(0, 120))}.`,
    );
  }
  return value;
}
