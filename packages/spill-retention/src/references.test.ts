import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referencedLocators } from './references.js';

const notice = (locator: string, hint = 'Use read with offset/limit, or grep this path to search within it.'): string =>
  `(Omitted 4817 bytes. Full formatted result stored at: ${locator}. ${hint})`;

describe('referencedLocators', () => {
  it('finds every locator in a transcript, in any message', async () => {
    const texts = [
      'user: fetch the page',
      `head of the result\n...\ntail\n\n${notice('/home/u/.local/state/spillway/session-3f9c/9a1b-web_fetch.txt')}`,
      `two in one: ${notice('spill+memory://s/1', 'Use spill_read or spill_grep with this locator.')} and ${notice('/tmp/r/session-1/x-out.log')}`,
      'no notice here (Omitted nothing)',
    ];
    const found = await referencedLocators(texts);
    expect([...found].sort()).toEqual([
      '/home/u/.local/state/spillway/session-3f9c/9a1b-web_fetch.txt',
      '/tmp/r/session-1/x-out.log',
      'spill+memory://s/1',
    ]);
  });

  it('accepts an async iterable', async () => {
    async function* chunks(): AsyncGenerator<string> {
      await Promise.resolve();
      yield notice('/a/b.txt');
    }
    expect([...(await referencedLocators(chunks()))]).toEqual(['/a/b.txt']);
  });

  it('finds the same locators however the text is cut into chunks', async () => {
    const locators = ['/r/session-a/1-a.txt', '/r/session-b/2-b.json', 'spill+memory://x/3'];
    const text = `start ${notice(locators[0] as string)} middle (Omitted ${notice(locators[1] as string)}\n${notice(locators[2] as string)} end`;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 0, max: text.length }), { maxLength: 30 }), async (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), text.length];
        const chunks = points.slice(1).map((end, i) => text.slice(points[i], end));
        expect(new Set(await referencedLocators(chunks))).toEqual(new Set(locators));
      }),
    );
  });

  it('finds thousands of notices in one long transcript', async () => {
    const parts: string[] = [];
    for (let i = 0; i < 5000; i++) parts.push(`line ${i}\n${notice(`/r/session-s/${i}-out.txt`)}\n`);
    const found = await referencedLocators([parts.join('')]);
    expect(found.size).toBe(5000);
  });

  it('refuses a non-string item with a TypeError', async () => {
    await expect(referencedLocators([42 as unknown as string])).rejects.toThrow(TypeError);
  });
});
