import { describe, expect, it } from 'vitest';
import { ArtifactStore } from './artifact-store.js';
import type { Artifact } from './artifact-store.js';

function add(store: ArtifactStore, i: number, session = 's'): Artifact {
  return store.insert({
    locator: `loc-${i}`,
    bytes: new Uint8Array(1),
    createdAt: i,
    sessionId: session,
    sessionKey: session,
    name: 'n',
    toolName: 't',
  });
}

describe('a listing parked on a cursor', () => {
  it('keeps no removed artifact reachable while paused through many evictions, and resumes at the oldest live one', () => {
    const store = new ArtifactStore(1_000_000, 10, 0);
    const first = add(store, 0);
    for (let i = 1; i < 10; i++) add(store, i);
    const cursor = store.park(first, false);
    const removed: Artifact[] = [];
    let oldest = first;
    for (let i = 10; i < 10_000; i++) {
      removed.push(oldest);
      add(store, i); // evicts the oldest
      oldest = store.first() ?? oldest;
    }
    // Every evicted artifact was cut loose: nothing links it to what came after it, so a
    // paused listing cannot hold a chain of them.
    expect(removed.every((a) => a.removed && a.next === undefined && a.sessionNext === undefined)).toBe(true);
    expect(store.parkedCount).toBe(1);
    expect(store.resume(cursor)?.locator).toBe('loc-9990');
    expect(store.parkedCount).toBe(0);
  });

  it('continues after the artifact it stood on when that one is still alive, in global and session order', () => {
    const store = new ArtifactStore(100, 100, 0);
    const a = add(store, 0, 'x');
    add(store, 1, 'y');
    add(store, 2, 'x');
    expect(store.resume(store.park(a, false))?.locator).toBe('loc-1');
    expect(store.resume(store.park(a, true))?.locator).toBe('loc-2');
  });

  it('moves along its own order when the artifact it stood on is deleted, and ends when nothing follows', () => {
    const store = new ArtifactStore(100, 100, 0);
    const a = add(store, 0, 'x');
    add(store, 1, 'y');
    const c = add(store, 2, 'x');
    const bySession = store.park(a, true);
    const global = store.park(a, false);
    store.delete('loc-0');
    expect(store.resume(global)?.locator).toBe('loc-1');
    store.delete('loc-2');
    expect(c.removed).toBe(true);
    expect(store.resume(bySession)).toBeUndefined();
    expect(store.parkedCount).toBe(0);
  });

  it('is forgotten when the listing ends early', () => {
    const store = new ArtifactStore(100, 100, 0);
    const a = add(store, 0);
    const cursor = store.park(a, false);
    store.release(cursor);
    store.release(cursor);
    expect(store.parkedCount).toBe(0);
  });
});
