import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keepReferenced, referencedLocators } from './references.js';
import { entry } from './test-catalog.js';

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
    const found = await referencedLocators(texts, { knownHints: ['Use spill_read or spill_grep with this locator.'] });
    expect([...found].sort()).toEqual([
      '/home/u/.local/state/spillway/session-3f9c/9a1b-web_fetch.txt',
      '/tmp/r/session-1/x-out.log',
      'spill+memory://s/1',
    ]);
  });

  it('finds notices inside a JSON-lines transcript when the hint is known', async () => {
    const memoryHint = 'Use spill_fetch or spill_search with this handle.';
    const lines = [
      JSON.stringify({ role: 'tool', content: `head\n…\ntail\n\n${notice('/r/session-1/a-web_fetch.txt')}` }),
      JSON.stringify({ role: 'tool', content: `x\n\n${notice('spill+memory://s/2', memoryHint)}` }),
    ].join('\n');
    // A notice ends at a ")" followed by a non-word character, such as the closing quote of
    // a JSON string, so even an unknown hint is found there.
    expect([...(await referencedLocators([lines]))].sort()).toEqual(['/r/session-1/a-web_fetch.txt', 'spill+memory://s/2']);
  });

  it('finds an unknown-hint notice glued to following text only when its hint is passed', async () => {
    const memoryHint = 'Use spill_fetch or spill_search with this handle.';
    const text = `${notice('spill+memory://s/3', memoryHint)}and more`;
    expect([...(await referencedLocators([text]))]).toEqual([]);
    expect([...(await referencedLocators([text], { knownHints: [memoryHint] }))]).toEqual(['spill+memory://s/3']);
  });

  it('makes a keep predicate out of the references', async () => {
    const keep = await keepReferenced([notice('/r/session-1/a.txt')]);
    expect(keep(entry('/r/session-1/a.txt', 1, 0))).toBe(true);
    expect(keep(entry('/r/session-1/b.txt', 1, 0))).toBe(false);
  });

  it('accepts an async iterable', async () => {
    async function* chunks(): AsyncGenerator<string> {
      await Promise.resolve();
      yield notice('/a/b.txt');
    }
    expect([...(await referencedLocators(chunks()))]).toEqual(['/a/b.txt']);
  });

  it('finds the same locators however the text is cut into chunks', async () => {
    // A hint with ". " and ")" inside is the hardest to cut: only a known hint parses it.
    const odd = 'Use spill_read. Or spill_grep (by line) to search.';
    const locators = ['/r/session-a/1-a.txt', '/r/session-b/2-b.json', 'spill+memory://x/3', 'spill+memory://x/4'];
    const text =
      `start ${notice(locators[0] as string)} middle (Omitted ${notice(locators[1] as string)}\n` +
      `${notice(locators[2] as string, odd)} end ${notice(locators[3] as string, odd)}`;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 0, max: text.length }), { maxLength: 30 }), async (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), text.length];
        const chunks = points.slice(1).map((end, i) => text.slice(points[i], end));
        const found = await referencedLocators(chunks, { knownHints: [odd] });
        for (const locator of locators) expect(found).toContain(locator);
      }),
    );
  });

  it('reads a notice again when a chunk ended inside its hint, just after a ")"', async () => {
    const odd = 'Use spill_read. Or spill_grep (by line) to search.';
    const text = `${notice('spill+memory://x/3', odd)}\n`;
    const cut = text.indexOf('(by line)') + '(by line)'.length;
    const found = await referencedLocators([text.slice(0, cut), text.slice(cut)], { knownHints: [odd] });
    expect(found).toContain('spill+memory://x/3');
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
