import { utf8ByteLength, type SpillEntry, type SpillRef } from '@spillway/core';
import { describe } from 'vitest';
import { splitAt, toChunkSource } from '../arbitraries.js';
import { checkRef, fail, type Harness } from '../harness.js';
import { HOSTILE_SESSION_IDS, HOSTILE_SUGGESTED_NAMES } from '../hostile-inputs.js';
import type { ResolvedConformanceOptions, SpillBackendFixture } from '../options.js';
import { testDefiner } from './define-test.js';
import { checkNamingRule } from './naming.js';

/** Everything before the last `/` of a stored location (`''` when there is none). */
function parentOf(location: string): string {
  const slash = location.lastIndexOf('/');
  return slash === -1 ? '' : location.slice(0, slash);
}

function checkLocation(location: string, what: string): void {
  const segments = location.split('/');
  if (segments.includes('..')) fail(`${what} stored data at ${JSON.stringify(location)}, a location with a ".." segment`);
  if (location.includes('\u0000')) fail(`${what} stored data at a location containing NUL`);
}

async function storedNow<F extends SpillBackendFixture>(h: Harness<F>): Promise<Set<string> | undefined> {
  const listStored = h.options.hooks.listStored;
  return listStored === undefined ? undefined : new Set(await listStored(h.fixture));
}

function added(before: Set<string>, after: Set<string>): string[] {
  return [...after].filter((x) => !before.has(x));
}

/** Registers the concurrency, session-isolation and hostile-name tests. */
export function describeIsolation<F extends SpillBackendFixture>(options: ResolvedConformanceOptions<F>): void {
  const test = testDefiner(options);
  const n = options.concurrency;

  describe('concurrency', () => {
    test(`${n} concurrent saves with the same suggested name get distinct locators and keep their own content`, async (h, ctx) => {
      const contents = Array.from({ length: n }, (_, i) => `artifact number ${i} \u00e9\u{1F600}\n`.repeat((i % 3) + 1));
      const refs = await Promise.all(
        contents.map((content, i) =>
          i % 2 === 0
            ? h.backend.saveText(h.request(content, { suggestedName: 'same-name.txt' }))
            : h.backend.saveTextStream(h.streamRequest(toChunkSource(splitAt(content, [5, 20, 22]), 'async-generator'), { suggestedName: 'same-name.txt' })),
        ),
      );
      refs.forEach((ref, i) => {
        checkRef(ref, utf8ByteLength(contents[i] ?? ''), `concurrent save ${i}`);
      });
      const distinct = new Set(refs.map((r) => r.locator));
      if (distinct.size !== n) fail(`${n} concurrent saves returned only ${distinct.size} distinct locators`);
      if (h.backend.catalog !== undefined) {
        const listed = new Set((await h.list()).map((e) => e.locator));
        const missing = refs.filter((r) => !listed.has(r.locator));
        if (missing.length > 0 || listed.size !== n) fail(`the catalog lists ${listed.size} artifacts after ${n} saves; ${missing.length} saved ones are missing`);
      }
      if (!h.canReadBack) {
        await ctx.annotate('no reader and no hooks.readBack: the concurrent artifacts were not read back');
        return;
      }
      for (const [i, ref] of refs.entries()) await h.expectStored(ref, contents[i] ?? '', `concurrent artifact ${i}`);
    });
  });

  describe('sessions', () => {
    const sessions = [...HOSTILE_SESSION_IDS.map(([, id]) => id), 'conformance-a', 'conformance-b', 'conformance-ab'];

    test('listing one session never yields another session\'s artifacts, however alike the ids are', async (h, ctx) => {
      h.requireCatalog(ctx);
      const bySession = new Map<string, SpillRef[]>();
      for (const [i, session] of sessions.entries()) {
        bySession.set(session, [await h.save(`first of session ${i}\n`, { sessionId: session }), await h.save(`second of session ${i}\n`, { sessionId: session })]);
      }
      const keys = new Map<string, string>();
      for (const [i, session] of sessions.entries()) {
        const entries = await h.list(session);
        const expected = new Set((bySession.get(session) ?? []).map((r) => r.locator));
        const got = entries.map((e) => e.locator);
        const foreign = got.filter((l) => !expected.has(l));
        if (foreign.length > 0) fail(`listing session #${i} (${JSON.stringify(session.slice(0, 40))}) yielded other sessions' artifacts: ${foreign.slice(0, 3).join(', ')}`);
        if (got.length !== expected.size || new Set(got).size !== expected.size) {
          fail(`listing session #${i} (${JSON.stringify(session.slice(0, 40))}) yielded ${got.length} entries, expected its ${expected.size}`);
        }
        const sessionKeys = new Set(entries.map((e) => e.session));
        if (sessionKeys.size !== 1) fail(`the entries of session #${i} carry ${sessionKeys.size} different session keys`);
        const key = entries[0]?.session ?? '';
        if (typeof key !== 'string' || key === '') fail(`session #${i} has the session key ${JSON.stringify(key)}`);
        const clash = [...keys.entries()].find(([, k]) => k === key);
        if (clash !== undefined) fail(`sessions ${JSON.stringify(clash[0].slice(0, 40))} and ${JSON.stringify(session.slice(0, 40))} share the session key ${key}`);
        keys.set(session, key);
      }
      const all = await h.list();
      if (all.length !== sessions.length * 2) fail(`listing every session yielded ${all.length} entries, expected ${sessions.length * 2}`);
      const unknown = await h.list('a session that saved nothing');
      if (unknown.length > 0) fail(`listing a session that saved nothing yielded ${unknown.length} entries`);
    });

    for (const [label, session] of HOSTILE_SESSION_IDS) {
      test(`a session id of ${label} saves, round-trips and keeps its artifacts together`, async (h, ctx) => {
        const s0 = await storedNow(h);
        const first = await h.save('first\n', { sessionId: session });
        const s1 = await storedNow(h);
        const second = await h.save('second\n', { sessionId: session });
        const s2 = await storedNow(h);
        if (first.locator === second.locator) fail('two saves in one session returned the same locator');
        if (s0 !== undefined && s1 !== undefined && s2 !== undefined) {
          const firstAdded = added(s0, s1);
          const secondAdded = added(s1, s2);
          if (firstAdded.length === 0) fail('the first save of the session added nothing to hooks.listStored: the data went somewhere else');
          if (secondAdded.length !== 1) fail(`the second save of the session added ${secondAdded.length} entries to hooks.listStored, expected 1`);
          for (const location of [...firstAdded, ...secondAdded]) checkLocation(location, `a save in session ${label}`);
          const parents = new Set(firstAdded.map(parentOf));
          const where = parentOf(secondAdded[0] ?? '');
          if (!parents.has(where)) fail(`two artifacts of one session landed in different places: ${JSON.stringify([...parents])} and ${JSON.stringify(where)}`);
        } else {
          await ctx.annotate('no hooks.listStored: where the data landed was not checked');
        }
        if (h.canReadBack) {
          await h.expectStored(first, 'first\n');
          await h.expectStored(second, 'second\n');
        }
        if (h.backend.catalog !== undefined) {
          const listed = (await h.list(session)).map((e: SpillEntry) => e.locator).sort();
          const expected = [first.locator, second.locator].sort();
          if (JSON.stringify(listed) !== JSON.stringify(expected)) fail(`listing the session yielded ${listed.length} entries, not its 2 artifacts`);
        }
      });
    }
  });

  describe('hostile suggested names', () => {
    test('a suggested name shows in the locator, if at all, as the shared naming rule makes it (notes.md is <random>-notes.md)', async (h, ctx) => {
      const named = await checkNamingRule(async (suggestedName) => (await h.save('named by the rule\n', { suggestedName })).locator);
      if (!named) await ctx.annotate('the locators carry no part of the suggested names: the naming rule does not apply');
    });

    for (const [label, name] of HOSTILE_SUGGESTED_NAMES) {
      test(`a suggested name of ${label} saves, round-trips and lands where a plain name does`, async (h, ctx) => {
        const s0 = await storedNow(h);
        const plain = await h.save('saved under a plain name\n', { suggestedName: 'plain.txt' });
        const s1 = await storedNow(h);
        const content = `saved under ${label}\n`;
        const ref = await h.save(content, { suggestedName: name });
        const s2 = await storedNow(h);
        if (ref.locator === plain.locator) fail('the hostile-named save returned the locator of the plain one');
        if (s0 !== undefined && s1 !== undefined && s2 !== undefined) {
          const plainAdded = added(s0, s1);
          const hostileAdded = added(s1, s2);
          if (hostileAdded.length !== 1) {
            fail(`the save added ${hostileAdded.length} entries to hooks.listStored, expected exactly 1 next to the plain one: ${JSON.stringify(hostileAdded.slice(0, 3))}`);
          }
          const location = hostileAdded[0] ?? '';
          checkLocation(location, 'the hostile-named save');
          const parents = new Set(plainAdded.map(parentOf));
          if (!parents.has(parentOf(location))) {
            fail(`the name changed where data goes: stored at ${JSON.stringify(location)}, while a plain name lands in ${JSON.stringify([...parents])}`);
          }
          if (s1.size !== s2.size - 1 || [...s1].some((x) => !s2.has(x))) fail('the save removed or replaced an existing stored object');
        } else {
          await ctx.annotate('no hooks.listStored: where the data landed was not checked');
        }
        if (h.canReadBack) {
          await h.expectStored(ref, content);
          await h.expectStored(plain, 'saved under a plain name\n', 'the plain-named artifact');
        }
      });
    }
  });
}
