import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, spillway } from './test-bin.js';
import { privateRootPerFile } from './test-temp-dirs.js';

// A deleted artifact's words must leave the index file itself, not only its answers: the
// index is a cache on disk, and `strings index.sqlite` found them after `spillway rm`.

let base: string;
let root: string;
let home: string;

beforeAll(() => {
  ensureBuilt();
});
privateRootPerFile('spillway-cli-search-forget-', (dirs) => {
  ({ base, root, home } = dirs);
});

const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: home, SPILLWAY_ROOT: root, XDG_CACHE_HOME: join(base, 'cache'), NO_COLOR: '1', SPILLWAY_USAGE: 'off', SPILLWAY_AUTO_GC: 'off' });

/** How many times `word` occurs in the index file and its write-ahead log, as raw bytes. */
function onDisk(word: string): number {
  let n = 0;
  for (const file of [`${root}.search/index.sqlite`, `${root}.search/index.sqlite-wal`]) {
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    for (let at = bytes.indexOf(word); at !== -1; at = bytes.indexOf(word, at + 1)) n++;
  }
  return n;
}

async function save(session: string, content: string): Promise<string> {
  const r = await spillway(['save', '--session', session, '--name', 'secret', '--json'], { env: env(), input: content });
  expect(r.code).toBe(0);
  return (JSON.parse(r.out) as { locator: string }).locator;
}

describe('a deleted artifact leaves the search index file', () => {
  it('spillway rm removes its words from the file, whether or not its session keeps other artifacts', async () => {
    const alone = await save('alone', 'the password is zebracornword for now\n');
    const shared = await save('shared', 'the token is quokkabyteword today\n');
    await save('shared', 'another output that stays\n');
    for (const [session, word] of [['alone', 'zebracornword'], ['shared', 'quokkabyteword']] as const) {
      const found = await spillway(['search', '--session', session, word], { env: env() });
      expect(found.out).toContain(word);
    }
    expect(onDisk('zebracornword')).toBeGreaterThan(0);
    for (const locator of [alone, shared]) expect((await spillway(['rm', locator], { env: env() })).code).toBe(0);
    expect(onDisk('zebracornword')).toBe(0);
    expect(onDisk('quokkabyteword')).toBe(0);
    const after = await spillway(['search', '--session', 'shared', 'quokkabyteword'], { env: env() });
    expect(after.out).toContain('No spilled artifact matches');
  });
});
