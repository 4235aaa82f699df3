/**
 * Checking a hit against `read`, for this package's tests. The search contract itself runs
 * from `@spillway/conformance`, over every backend, in the workspace's contract tests
 * (`tests/src/search-backends.e2e.test.ts`).
 */
import type { SpillBackend, SpillSearchHit } from '@spillway/core';
import { expect } from 'vitest';

/** A backend that can be searched. */
export type SearchableBackend = SpillBackend & Required<Pick<SpillBackend, 'reader' | 'catalog'>>;

/** Checks that a hit is what `read` gives at the lines it names. */
export async function expectVerbatim(backend: SearchableBackend, hit: SpillSearchHit): Promise<void> {
  const read = await backend.reader.read(hit.locator, { offset: hit.startLine, limit: hit.endLine - hit.startLine + 1, maxBytes: 1024 * 1024 });
  const real = read.text.endsWith('\n') ? read.text.slice(0, -1).split('\n') : read.text.split('\n');
  const shown = hit.text.split('\n');
  expect(shown.length).toBe(hit.endLine - hit.startLine + 1);
  if (!hit.truncated) {
    expect(shown).toEqual(real);
  } else {
    shown.forEach((line, i) => {
      expect(real[i] ?? '').toContain(line);
    });
  }
}
