// Saving one text artifact, the step most search and retrieval tests begin with.
import { callId, type SessionId, type SpillBackend, type SpillLocator } from '@spillway/core';

let counter = 0;

/** Saves `content` in `session` as the output of a `bash` call (a new call id each time) and answers its locator. */
export async function saveText(backend: SpillBackend, session: SessionId, content: string, name = 'out.txt'): Promise<SpillLocator> {
  counter += 1;
  const ref = await backend.saveText({ owner: { sessionId: session }, source: { toolName: 'bash', callId: callId(`c${String(counter)}`) }, suggestedName: name, content });
  return ref.locator;
}
