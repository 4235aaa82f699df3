import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConformanceFailure } from './harness.js';
import { NAMING_EXAMPLES } from './hostile-inputs.js';
import { checkNamingRule, nameFragments } from './suites/naming.js';

/** The safe name the shared rule makes of `suggested` (the control name `q` stays `q`). */
function safeOf(suggested: string): string {
  return NAMING_EXAMPLES.find(([s]) => s === suggested)?.[1] ?? suggested;
}

const hex = (digits: number): string => randomBytes(Math.ceil(digits / 2)).toString('hex').slice(0, digits);

/** Small fake backends: each answers the locator of a save under a suggested name. */
const FAKES: Readonly<Record<string, (suggested: string) => string>> = {
  // A bare UUID after a scheme, no `/`: the whole locator is the leaf.
  uuid: () => `tiny:${randomUUID()}`,
  // A bare hex id, what the suite accepted before.
  hex: () => `mem://instance-1/${hex(32)}`,
  // A fixed part that holds fragments of some names ("catalog" holds "log", "notes" is a
  // word of notes.md): the control save shows it is no name.
  fixedWords: () => `catalog://notes/${randomUUID()}`,
  // The shared rule.
  rule: (s) => `/root/session/${hex(20)}-${safeOf(s)}`,
  // Wrong embeddings, each carrying some of the name.
  nameFirst: (s) => `tiny:${safeOf(s)}-${hex(20)}`,
  underscore: (s) => `tiny:${hex(20)}_${safeOf(s)}`,
  unsanitized: (s) => `tiny:${hex(20)}-${encodeURIComponent(s)}`,
  extensionDropped: (s) => `tiny:${hex(20)}-${safeOf(s).replace(/\.[^.]*$/, '')}`,
  extensionOnly: (s) => `tiny:${hex(20)}${/\.[a-z]+$/.exec(safeOf(s))?.[0] ?? ''}`,
  upperCase: (s) => `tiny:${hex(20)}-${safeOf(s).toUpperCase()}`,
  nameInFolder: (s) => `tiny/${safeOf(s)}/${randomUUID()}`,
  someNamesOnly: (s) => (s === 'notes.md' ? `tiny:${hex(20)}-notes.md` : `tiny:${randomUUID()}`),
  ruleButShortNamesLeftOut: (s) => (safeOf(s).length < 3 ? `tiny:${hex(20)}` : `tiny:${hex(20)}-${safeOf(s)}`),
};

const check = (fake: keyof typeof FAKES): Promise<boolean> => {
  const locatorOf = FAKES[fake] ?? (() => '');
  return checkNamingRule((suggested) => Promise.resolve(locatorOf(suggested)));
};

describe('the naming-rule check', () => {
  it.each([
    ['uuid', 'a UUID after a scheme'],
    ['hex', 'a hex id'],
    ['fixedWords', 'a fixed part that holds name-like words'],
  ])('passes locators that carry no part of the name: %s (%s)', async (fake) => {
    await expect(check(fake)).resolves.toBe(false);
  });

  it('passes locators that carry the name by the shared rule', async () => {
    await expect(check('rule')).resolves.toBe(true);
  });

  it.each(['nameFirst', 'underscore', 'unsanitized', 'extensionDropped', 'extensionOnly', 'upperCase', 'nameInFolder', 'someNamesOnly', 'ruleButShortNamesLeftOut'])(
    'fails locators that carry the name another way: %s',
    async (fake) => {
      await expect(check(fake)).rejects.toBeInstanceOf(ConformanceFailure);
    },
  );

  it('says which part of the name it found and what the rule makes', async () => {
    await expect(check('extensionOnly')).rejects.toThrow(/carries "\.md" of the name; .*<20 hex>-notes\.md/);
  });

  it('takes the safe name, extensions and runs of three or more letters and digits as fragments, lowercased', () => {
    expect(nameFragments('build output (1).log', 'build_output_1.log').sort()).toEqual(['.log', 'build', 'build_output_1.log', 'log', 'output'].sort());
    expect(nameFragments('../x', 'x')).toEqual([]);
    expect(nameFragments('Отчёт.txt', 'Отчёт.txt').sort()).toEqual(['.txt', 'txt', 'отчёт', 'отчёт.txt'].sort());
  });
});
