// A session's listing version: the same while nothing is published or deleted in the
// session, another once something is, and none while the last change is too recent to
// tell a later one from it.
import fs from 'node:fs';
import path from 'node:path';
import { sessionId } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { createLocalBackendWith } from './backend.js';
import { SETTLED_AFTER_MS } from './catalog.js';
import { freshRootEachTest, request } from './test-helpers.js';

let root = '';
freshRootEachTest('spill-local-version-', (r) => (root = r));

describe('catalog.listingVersion', () => {
  it('stays while nothing changes, moves on a save and a delete, and waits out a recent change', async () => {
    let clock = Date.now();
    const backend = createLocalBackendWith({ root }, { now: () => clock });
    const s = sessionId('session-a');
    expect(await backend.catalog.listingVersion({ sessionId: s })).toBeUndefined(); // no directory yet
    const first = await backend.saveText(request('one\n'));
    expect(await backend.catalog.listingVersion({ sessionId: s })).toBeUndefined(); // just changed
    clock = Date.now() + SETTLED_AFTER_MS + 1;
    const a = await backend.catalog.listingVersion({ sessionId: s });
    expect(a?.scope).toBe(path.basename(path.dirname(first.locator)));
    expect(await backend.catalog.listingVersion({ sessionId: s })).toEqual(a);
    // Entries are what the listing shows under that key.
    for await (const entry of backend.catalog.list({ sessionId: s })) expect(entry.session).toBe(a?.scope);

    await backend.saveText(request('two\n'));
    clock = Date.now() + SETTLED_AFTER_MS + 1;
    const b = await backend.catalog.listingVersion({ sessionId: s });
    expect(b).toBeDefined();
    expect(b?.token).not.toBe(a?.token);

    await backend.catalog.delete(first.locator);
    clock = Date.now() + SETTLED_AFTER_MS + 1;
    const c = await backend.catalog.listingVersion({ sessionId: s });
    expect(c).toBeDefined();
    expect(c?.token).not.toBe(b?.token);
  });

  it('refuses an unsafe session directory as the listing does', async () => {
    const backend = createLocalBackendWith({ root }, { now: () => Date.now() + SETTLED_AFTER_MS + 1 });
    const saved = await backend.saveText(request('one\n'));
    fs.chmodSync(path.dirname(saved.locator), 0o777);
    await expect(backend.catalog.listingVersion({ sessionId: sessionId('session-a') })).rejects.toMatchObject({ code: 'SPILL_UNSAFE_ROOT' });
  });
});
