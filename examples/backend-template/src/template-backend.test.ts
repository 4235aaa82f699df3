import { callId, isSpillError, sessionId } from '@spillway/core';
import { describeSpillBackend } from '@spillway/conformance';
import { describe, expect, it } from 'vitest';
import { createTemplateBackend, type TemplateArtifact } from './index.js';

/** A store that can be switched to failing, to stand in for a disk or network fault. */
class FlakyStore extends Map<string, TemplateArtifact> {
  broken = false;
  override set(key: string, value: TemplateArtifact): this {
    if (this.broken) throw Object.assign(new Error('simulated I/O error'), { code: 'EIO' });
    return super.set(key, value);
  }
}

const maxArtifactBytes = 8 * 1024 * 1024;

// The whole contract, with every hook this backend can offer.
describeSpillBackend({
  name: 'template',
  create: () => {
    const store = new FlakyStore();
    return { backend: createTemplateBackend({ store, maxArtifactBytes }), store };
  },
  hooks: {
    // Where data lives is the store's keys: the suite checks that names never change them.
    listStored: ({ store }) => [...store.keys()],
    breakStorage: ({ store }) => {
      store.broken = true;
      return () => {
        store.broken = false;
      };
    },
    maxArtifactBytes,
  },
});

describe('template backend specifics', () => {
  const request = { owner: { sessionId: sessionId('s') }, source: { toolName: 't', callId: callId('c') }, suggestedName: '../x', content: 'hi\n' };

  it('keeps the store error as the cause of SPILL_STORAGE_FAILED', async () => {
    const store = new FlakyStore();
    store.broken = true;
    const error: unknown = await createTemplateBackend({ store }).saveText(request).catch((e: unknown) => e);
    expect(isSpillError(error, 'SPILL_STORAGE_FAILED')).toBe(true);
    expect((error as Error).cause).toMatchObject({ code: 'EIO' });
  });

  it('issues spill+template:// locators named by the shared rule, where a name is never a path', async () => {
    const store = new Map<string, TemplateArtifact>();
    const ref = await createTemplateBackend({ store }).saveText(request);
    expect(ref.locator).toMatch(/^spill\+template:\/\/session-[0-9a-f]{32}\/[0-9a-f]{20}-x$/);
    expect([...store.keys()]).toEqual([ref.locator.slice('spill+template://'.length)]);
  });

  it('refuses a bad configuration with a TypeError', () => {
    expect(() => createTemplateBackend({ maxArtifactBytes: -1 })).toThrow(TypeError);
    expect(() => createTemplateBackend({ store: {} as Map<string, TemplateArtifact> })).toThrow(TypeError);
  });
});
