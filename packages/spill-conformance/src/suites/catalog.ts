import { utf8ByteLength, type SpillEntry } from '@spillway/core';
import { describe } from 'vitest';
import { expectSpillRejection, fail } from '../harness.js';
import type { ResolvedConformanceOptions, SpillBackendFixture } from '../options.js';
import { testDefiner } from './define-test.js';

/** How far `createdAt` may be from the local clock (a remote store has its own clock). */
const CLOCK_SLACK_MS = 5 * 60 * 1000;

function isDate(value: unknown): value is Date {
  return Object.prototype.toString.call(value) === '[object Date]' && Number.isFinite((value as Date).getTime());
}

/** Registers the catalog tests (skipped when the backend declares no catalog). */
export function describeCatalog<F extends SpillBackendFixture>(options: ResolvedConformanceOptions<F>): void {
  const test = testDefiner(options);

  describe('catalog', () => {
    test('lists every artifact once, with exact bytes, a createdAt and one session key per session', async (h, ctx) => {
      h.requireCatalog(ctx);
      const started = Date.now();
      const saved = [
        { session: 'catalog-a', content: 'one\n' },
        { session: 'catalog-a', content: '\u00e9\u{1F600}\uD800' },
        { session: 'catalog-b', content: '' },
        { session: 'catalog-b', content: 'x'.repeat(1000) },
        { session: 'catalog-c', content: 'three sessions\n' },
      ];
      const refs = [];
      for (const { session, content } of saved) refs.push(await h.save(content, { sessionId: session }));
      const finished = Date.now();
      const entries = await h.list();
      const byLocator = new Map<string, SpillEntry>();
      for (const entry of entries) {
        if (byLocator.has(entry.locator)) fail(`list yielded ${entry.locator} twice`);
        byLocator.set(entry.locator, entry);
      }
      if (entries.length !== saved.length) fail(`list yielded ${entries.length} entries after ${saved.length} saves`);
      const keyOf = new Map<string, string>();
      refs.forEach((ref, i) => {
        const { session, content } = saved[i] ?? { session: '', content: '' };
        const entry = byLocator.get(ref.locator);
        if (entry === undefined) return fail(`list does not yield the artifact saved as ${ref.locator}`);
        if (entry.bytes !== utf8ByteLength(content)) fail(`list reports ${entry.bytes} bytes for an artifact of ${utf8ByteLength(content)}`);
        if (!isDate(entry.createdAt)) fail(`createdAt is ${String(entry.createdAt)}, not a valid Date`);
        const t = entry.createdAt.getTime();
        if (t < started - CLOCK_SLACK_MS || t > finished + CLOCK_SLACK_MS) fail(`createdAt ${entry.createdAt.toISOString()} is far from the time of the save`);
        if (typeof entry.session !== 'string' || entry.session === '') fail(`session is ${JSON.stringify(entry.session)}, not a non-empty key`);
        const known = keyOf.get(session);
        if (known !== undefined && known !== entry.session) fail(`one session's artifacts carry two session keys: ${known} and ${entry.session}`);
        keyOf.set(session, entry.session);
      });
      if (new Set(keyOf.values()).size !== keyOf.size) fail('different sessions share a session key');
      const onlyA = await h.list('catalog-a');
      const expectedA = new Set([refs[0]?.locator, refs[1]?.locator]);
      if (onlyA.length !== 2 || !onlyA.every((e) => expectedA.has(e.locator))) fail(`list({ sessionId }) yielded ${onlyA.length} entries, not the session's 2`);
      if ((await h.list('catalog-unknown')).length !== 0) fail('listing a session that saved nothing yielded entries');
    });

    test('delete removes an artifact: it leaves the listing and reads answer SPILL_NOT_FOUND or SPILL_EXPIRED', async (h, ctx) => {
      const catalog = h.requireCatalog(ctx);
      const doomed = await h.save('to be deleted\n');
      const kept = await h.save('to be kept\n');
      if (!(await catalog.delete(doomed.locator))) fail('delete of a stored artifact answered false');
      const listed = (await h.list()).map((e) => e.locator);
      if (listed.includes(doomed.locator)) fail('the deleted artifact is still listed');
      if (!listed.includes(kept.locator)) fail('deleting one artifact removed another from the listing');
      const reader = h.backend.reader;
      if (reader !== undefined) {
        const gone = ['SPILL_NOT_FOUND', 'SPILL_EXPIRED'] as const;
        await expectSpillRejection('read after delete', gone, () => reader.read(doomed.locator));
        await expectSpillRejection('grep after delete', gone, () => reader.grep(doomed.locator, 'deleted'));
      }
      if (h.canReadBack) await h.expectStored(kept, 'to be kept\n', 'the artifact that was not deleted');
    });

    test('delete answers true once, then false for the same locator', async (h, ctx) => {
      const catalog = h.requireCatalog(ctx);
      const ref = await h.save('delete me twice\n');
      if (!(await catalog.delete(ref.locator))) fail('the first delete answered false');
      if (await catalog.delete(ref.locator)) fail('the second delete answered true');
    });

    test('two concurrent deletes of one artifact: exactly one answers true', async (h, ctx) => {
      const catalog = h.requireCatalog(ctx);
      const ref = await h.save('raced\n');
      const answers = await Promise.all([catalog.delete(ref.locator), catalog.delete(ref.locator)]);
      if (answers.filter(Boolean).length !== 1) fail(`the two deletes answered ${JSON.stringify(answers)}`);
    });

    test('many paused listings whose consumers save and delete as they go all finish: a listing holds nothing its consumer needs', async (h, ctx) => {
      const catalog = h.requireCatalog(ctx);
      const saved = [];
      for (let i = 0; i < 24; i++) saved.push(await h.save(`listed ${String(i)}\n`, { sessionId: `progress-${String(i % 4)}` }));
      const expected = new Set(saved.map((r) => String(r.locator)));
      let removed = 0;
      // Each consumer works between two entries, on the same backend, as a retention sweep
      // does. A listing that held a descriptor, a lock or a permit across its yield would
      // leave these waiting on each other.
      const drain = async (n: number): Promise<void> => {
        for await (const entry of catalog.list()) {
          if (!expected.has(String(entry.locator))) continue;
          // Only for the artifacts saved above, so that a catalog that lists new artifacts
          // as it goes still comes to an end.
          if (n % 2 === 0) await h.save(`side ${String(n)}\n`, { sessionId: 'progress-side' });
          if (await catalog.delete(entry.locator)) removed += 1;
        }
      };
      const HANG_MS = 60_000;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const hung = new Promise<'hung'>((resolve) => {
        timer = setTimeout(() => { resolve('hung'); }, HANG_MS);
      });
      try {
        const outcome = await Promise.race([Promise.all(Array.from({ length: 24 }, (_, n) => drain(n))), hung]);
        if (outcome === 'hung') fail(`24 concurrent listings whose consumers save and delete had not finished after ${String(HANG_MS / 1000)} s: a listing holds something across its yield`);
      } finally {
        clearTimeout(timer);
      }
      if (removed !== saved.length) fail(`the listings' consumers deleted ${String(removed)} of ${String(saved.length)} artifacts (each exactly once expected)`);
    });

    test('never hands out a deleted artifact\'s locator again', async (h, ctx) => {
      const catalog = h.requireCatalog(ctx);
      const first = await h.save('first\n', { suggestedName: 'reused.txt' });
      await catalog.delete(first.locator);
      const second = await h.save('second\n', { suggestedName: 'reused.txt' });
      if (second.locator === first.locator) fail('a new artifact got the locator of a deleted one: an old locator would now show new data');
    });

    test('list and delete reject with SPILL_ABORTED when the signal has already fired, and nothing is deleted', async (h, ctx) => {
      const catalog = h.requireCatalog(ctx);
      const ref = await h.save('survives an aborted delete\n');
      const signal = AbortSignal.abort();
      await expectSpillRejection('list with an aborted signal', 'SPILL_ABORTED', () => h.list(undefined, signal));
      await expectSpillRejection('delete with an aborted signal', 'SPILL_ABORTED', () => catalog.delete(ref.locator, { signal }));
      if (!(await h.list()).some((e) => e.locator === ref.locator)) fail('an aborted delete removed the artifact');
    });

    test('sweepTemp never removes a published artifact', async (h, ctx) => {
      const catalog = h.requireCatalog(ctx);
      const sweep = catalog.sweepTemp?.bind(catalog);
      if (sweep === undefined) return ctx.skip(`${h.backend.name} has no catalog.sweepTemp`);
      const ref = await h.save('published\n');
      const result = await sweep({ olderThanMs: 0 });
      if (!Number.isSafeInteger(result.removed) || result.removed < 0 || !Number.isSafeInteger(result.bytes) || result.bytes < 0) {
        fail(`sweepTemp answered ${JSON.stringify(result)}`);
      }
      if (!(await h.list()).some((e) => e.locator === ref.locator)) fail('sweepTemp removed a published artifact');
      if (h.canReadBack) await h.expectStored(ref, 'published\n', 'the artifact after sweepTemp');
    });
  });
}
