/**
 * Helpers for this package's tests: saving an artifact and checking a hit against `read`.
 * The search contract itself runs from `@spillway/conformance` (see backends.e2e.test.ts).
 */
import { callId, type SessionId, type SpillBackend, type SpillLocator, type SpillSearchHit } from '@spillway/core';
import { expect } from 'vitest';

/** A backend that can be searched. */
export type SearchableBackend = SpillBackend & Required<Pick<SpillBackend, 'reader' | 'catalog'>>;

let counter = 0;

/** Saves `content` in `session` and answers its locator. */
export async function save(backend: SpillBackend, session: SessionId, content: string, name = 'out.txt'): Promise<SpillLocator> {
  counter += 1;
  const ref = await backend.saveText({ owner: { sessionId: session }, source: { toolName: 'bash', callId: callId(`c${String(counter)}`) }, suggestedName: name, content });
  return ref.locator;
}

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
