// A reader over one in-memory artifact, for this package's tests (excluded from the build by its name).
import { SpillError } from '@spillway/core';
import type { SpillLocator } from '@spillway/core';
import { createSpillReader } from './index.js';
import type { CreateSpillReaderOptions, SpillByteSource, SpillRetrievalReader } from './index.js';

/**
 * A reader whose only artifact is `text` (UTF-8) at `locator`; any other locator is
 * SPILL_NOT_FOUND. `options` are the reader's own, but for `open`.
 */
export function readerOverText(locator: SpillLocator, text: string, options: Omit<CreateSpillReaderOptions, 'open'> = {}): SpillRetrievalReader {
  const bytes = new TextEncoder().encode(text);
  return createSpillReader({
    ...options,
    open(asked): Promise<SpillByteSource> {
      if (asked !== locator) return Promise.reject(new SpillError('SPILL_NOT_FOUND', 'none'));
      return Promise.resolve({
        size: bytes.length,
        cacheKey: asked,
        read: (position, length) => Promise.resolve(bytes.slice(position, position + length)),
        close: () => Promise.resolve(),
      });
    },
  });
}
