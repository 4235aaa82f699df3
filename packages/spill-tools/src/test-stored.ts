// Test-only (excluded from the build by the `test-*` pattern).
import { callId, sessionId, type SpillReader } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';

/** Stores `text` in a fresh memory backend, as a tool's result would be: its reader and the locator. */
export async function stored(text: string): Promise<{ reader: SpillReader; locator: string }> {
  const backend = createMemoryBackend();
  const ref = await backend.saveText({
    owner: { sessionId: sessionId('s') },
    source: { toolName: 'web_fetch', callId: callId('c1') },
    suggestedName: 'web_fetch.txt',
    content: text,
  });
  return { reader: backend.reader, locator: ref.locator };
}
