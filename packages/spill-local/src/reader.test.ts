import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSpillError } from '@spillway/core';
import type { SpillRef } from '@spillway/core';
import { createLocalBackend } from './index.js';
import type { LocalBackend } from './index.js';
import { makeRoot, request } from './test-helpers.js';

// The reader is the retrieval engine over a pread byte source; these tests check the
// local side of it (the engine has its own tests, and the conformance suite pins the
// answers): hostile patterns answer, and the descriptors are given back.
describe('grep through the local backend', () => {
  let backend: LocalBackend;
  let cleanup: () => void;
  let ref: SpillRef;
  beforeAll(async () => {
    const r = makeRoot();
    cleanup = r.cleanup;
    backend = createLocalBackend({ root: r.root, maxOpenFiles: 8 });
    ref = await backend.saveText(request(`${`${'a'.repeat(30)}!\n`.repeat(50)}${'a'.repeat(100_000)}\ntail\n`));
  });
  afterAll(() => {
    cleanup();
  });

  it('answers a catastrophic-backtracking pattern instead of timing out, and still works afterwards', { timeout: 60_000 }, async () => {
    const result = await backend.reader.grep(ref.locator, '(a+)+$', { timeoutMs: 30_000 });
    expect(result.matches.map((m) => m.line)).toEqual([51]);
    expect(result.matches[0]?.truncated).toBe(true);
    expect((await backend.reader.grep(ref.locator, 'tail')).matches).toEqual([{ line: 52, text: 'tail', truncated: false }]);
  });

  it('gives every descriptor back: many reads and greps through maxOpenFiles 8 never wait forever', { timeout: 60_000 }, async () => {
    // A grep's time counts from its call, queueing included: the budget is one that twenty
    // greps queued behind eight descriptors keep on a loaded machine, not the default 5 s.
    const work = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0 ? backend.reader.read(ref.locator, { offset: 52 }).then((r) => r.text) : backend.reader.grep(ref.locator, 't[a-z]il', { timeoutMs: 50_000 }).then((r) => r.matches[0]?.text),
    );
    expect(new Set(await Promise.all(work))).toEqual(new Set(['tail\n', 'tail']));
  });

  it('rejects with SPILL_ABORTED when the signal fires first, holding nothing', async () => {
    const err: unknown = await backend.reader.grep(ref.locator, 'a', { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(isSpillError(err, 'SPILL_ABORTED')).toBe(true);
    expect((await backend.saveText(request('still fine'))).bytes).toBe(10);
  });
});
