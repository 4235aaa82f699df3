import type { SpillLocator, SpillReader } from '@spillway/core';
import type { S3ByteSource } from './byte-source.js';

/** The reader over the byte source, once the retrieval engine is wired in. */
export function readerOf(_open: (locator: SpillLocator, signal: AbortSignal | undefined) => Promise<S3ByteSource>): { readonly reader?: SpillReader } {
  return {};
}
