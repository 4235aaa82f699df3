/** The checks a search request passes before anything is opened or listed. */
import {
  DEFAULT_SEARCH_MAX_BYTES,
  DEFAULT_SEARCH_MAX_RESULTS,
  MAX_SEARCH_QUERY_LENGTH,
  MAX_SEARCH_RESULTS,
  SpillError,
  wholeNumberProblem,
} from '@spillway/core';
import type { SpillSearchRequest } from '@spillway/core';

/** The smallest `maxBytes` a search accepts. */
export const MIN_SEARCH_MAX_BYTES = 64;

/** A `SPILL_INVALID_INPUT` error with a message that says what to pass instead. */
export function invalid(message: string): SpillError {
  return new SpillError('SPILL_INVALID_INPUT', message);
}

/** Checks a request and answers its limits, defaults applied and results capped. */
export function checkRequest(request: SpillSearchRequest): { maxResults: number; maxBytes: number } {
  if (typeof (request as unknown) !== 'object' || (request as unknown) === null) throw invalid('search takes an object: { query, sessionId?, maxResults?, maxBytes? }.');
  if (typeof request.query !== 'string') throw invalid('search needs `query`: plain words or "quoted phrases".');
  if (request.query.length > MAX_SEARCH_QUERY_LENGTH) throw invalid(`The query is longer than ${String(MAX_SEARCH_QUERY_LENGTH)} characters; use a few distinctive words.`);
  if (request.sessionId !== undefined && (typeof request.sessionId !== 'string' || request.sessionId === '')) throw invalid('`sessionId` must be a non-empty string.');
  const maxResults = request.maxResults ?? DEFAULT_SEARCH_MAX_RESULTS;
  const resultsProblem = wholeNumberProblem(maxResults, { min: 1 });
  if (resultsProblem !== undefined) throw invalid(`\`maxResults\` ${resultsProblem}.`);
  const maxBytes = request.maxBytes ?? DEFAULT_SEARCH_MAX_BYTES;
  const bytesProblem = wholeNumberProblem(maxBytes, { min: MIN_SEARCH_MAX_BYTES, unit: 'bytes' });
  if (bytesProblem !== undefined) throw invalid(`\`maxBytes\` ${bytesProblem}.`);
  return { maxResults: Math.min(maxResults, MAX_SEARCH_RESULTS), maxBytes };
}
