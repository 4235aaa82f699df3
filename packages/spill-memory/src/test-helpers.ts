import { callId, sessionId } from '@spillway/core';
import type { SaveTextSpill, SaveTextStreamSpill, SpillEntry } from '@spillway/core';

/** The envelope of every test save: session `session`, tool `bash`, name `out.txt` unless given. */
function envelope(session: string, suggestedName = 'out.txt'): Omit<SaveTextSpill, 'content'> {
  return { owner: { sessionId: sessionId(session) }, source: { toolName: 'bash', callId: callId('call-1') }, suggestedName };
}

/** A save request with sensible defaults. */
export function request(content: string, session = 'session-1', suggestedName = 'out.txt'): SaveTextSpill {
  return { ...envelope(session, suggestedName), content };
}

/** A streaming save request. */
export function streamRequest(content: Iterable<string> | AsyncIterable<string>, session = 'session-1'): SaveTextStreamSpill {
  return { ...envelope(session), content };
}

/** Drains an async iterable. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** The locators of listed entries. */
export function locators(entries: readonly SpillEntry[]): string[] {
  return entries.map((e) => e.locator);
}

/** The UTF-8 round trip of `text`: what a backend stores and gives back. */
export function wellFormed(text: string): string {
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(new TextEncoder().encode(text));
}

/** The rejection of `promise`, failing when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, got a resolution');
}
