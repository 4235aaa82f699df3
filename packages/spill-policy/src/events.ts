import type { SpillEvent } from './types.js';

/**
 * Delivers an event without letting the listener break the call: a throw is swallowed,
 * and a returned promise that rejects is caught (no unhandled rejection).
 */
export function emitSafely(listener: ((event: SpillEvent) => void) | undefined, event: SpillEvent): void {
  if (listener === undefined) return;
  try {
    const call: (event: SpillEvent) => unknown = listener; // it may be async after all
    const returned = call(event);
    if (typeof returned === 'object' && returned !== null && typeof (returned as { then?: unknown }).then === 'function') {
      (returned as PromiseLike<unknown>).then(undefined, () => undefined);
    }
  } catch {
    // A listener's failure is its own business.
  }
}
