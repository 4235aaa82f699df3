import { type SpillLocator, type SpillReader, SpillError, isSpillError } from '@spillway/core';

/**
 * The sentence a model should see when it reads an artifact that retention (or a bounded
 * backend) removed: what happened and what to do next.
 */
export function expiredArtifactMessage(locator: SpillLocator): string {
  return (
    `The stored result at ${locator} has expired and was deleted to free space. ` +
    'Run the tool that produced it again to get a fresh result.'
  );
}

/** The sentence for a locator that names nothing the backend can tell apart from "expired". */
export function missingArtifactMessage(locator: SpillLocator): string {
  return (
    `Nothing is stored at ${locator}: it may have expired and been deleted, or the locator is mistyped. ` +
    'Check the locator against the notice; if it is right, run the tool that produced it again.'
  );
}

function explain(error: unknown, locator: SpillLocator): unknown {
  if (isSpillError(error, 'SPILL_EXPIRED')) {
    return new SpillError('SPILL_EXPIRED', expiredArtifactMessage(locator), { cause: error });
  }
  if (isSpillError(error, 'SPILL_NOT_FOUND')) {
    return new SpillError('SPILL_NOT_FOUND', missingArtifactMessage(locator), { cause: error });
  }
  return error;
}

/**
 * Wraps a reader so that reading a deleted or expired artifact rejects with the same code
 * (`SPILL_EXPIRED` or `SPILL_NOT_FOUND`) but a message a model can act on: the result
 * expired, so run the tool again. Everything else passes through untouched. Put it
 * between a backend's reader and the `spill_read`/`spill_grep` tools a model calls.
 */
export function explainMissingArtifacts(reader: SpillReader): SpillReader {
  return {
    read: async (locator, options) => {
      try {
        return await reader.read(locator, options);
      } catch (error) {
        throw explain(error, locator);
      }
    },
    grep: async (locator, pattern, options) => {
      try {
        return await reader.grep(locator, pattern, options);
      } catch (error) {
        throw explain(error, locator);
      }
    },
  };
}
