import { utf8ByteLength } from '@spillway/core';
import { describe } from 'vitest';
import { checkRef, fail } from '../harness.js';
import type { ResolvedConformanceOptions, SpillBackendFixture } from '../options.js';
import { makeLargeContent, SAMPLE_CONTENTS } from '../samples.js';
import { testDefiner } from './define-test.js';

/** Registers the `saveText` tests: exact sizes, verbatim round trips, large content. */
export function describeSaveText<F extends SpillBackendFixture>(options: ResolvedConformanceOptions<F>): void {
  const test = testDefiner(options);
  describe('saveText', () => {
    test('reports the exact UTF-8 size and a non-empty retrieval hint for every sample', async (h) => {
      for (const [label, content, bytes] of SAMPLE_CONTENTS) {
        if (utf8ByteLength(content) !== bytes) fail(`utf8ByteLength disagrees with the hand count for ${label}`);
        const ref = await h.backend.saveText(h.request(content));
        checkRef(ref, bytes, `saveText of ${label}`);
      }
    });

    for (const [label, content, bytes] of SAMPLE_CONTENTS) {
      test(`round-trips ${label} verbatim (${bytes} bytes)`, async (h, ctx) => {
        h.requireReadBack(ctx);
        const ref = await h.save(content);
        await h.expectStored(ref, content, label);
      });
    }

    test(`stores several megabytes verbatim (${options.largeContentBytes} bytes)`, async (h, ctx) => {
      h.requireReadBack(ctx);
      const content = makeLargeContent(options.largeContentBytes);
      const ref = await h.save(content);
      await h.expectStored(ref, content, 'the large artifact');
    });

    test('gives two identical requests two locators, each holding its own content', async (h) => {
      const first = await h.save('same text\n', { suggestedName: 'same.txt' });
      const second = await h.save('same text\n', { suggestedName: 'same.txt' });
      if (first.locator === second.locator) fail(`two saves returned the same locator ${first.locator}`);
      if (h.canReadBack) {
        await h.expectStored(first, 'same text\n', 'the first artifact');
        await h.expectStored(second, 'same text\n', 'the second artifact');
      }
    });

    test('keeps earlier artifacts intact when more are saved', async (h, ctx) => {
      h.requireReadBack(ctx);
      const contents = ['first\n', 'second, longer than the first\n', '', 'fourth \u{1F600}\n'];
      const refs = [];
      for (const content of contents) refs.push(await h.save(content));
      for (const [i, ref] of refs.entries()) await h.expectStored(ref, contents[i] ?? '', `artifact ${i + 1}`);
    });
  });
}
