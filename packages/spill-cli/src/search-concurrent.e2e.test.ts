import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, spillway } from './test-bin.js';
import { privateRootPerFile } from './test-temp-dirs.js';

// Several first searches at once on a fresh index (an agent's parallel tool calls): each must
// answer. Before, two or three of them failed with SPILL_STORAGE_FAILED ("UNIQUE constraint
// failed: artifacts.locator" when two indexed the same artifact, "database is locked" when two
// created the file).

let base: string;
let root: string;
let home: string;

beforeAll(() => {
  ensureBuilt();
});
privateRootPerFile('spillway-cli-search-concurrent-', (dirs) => {
  ({ base, root, home } = dirs);
});

const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: home, SPILLWAY_ROOT: root, XDG_CACHE_HOME: join(base, 'cache'), NO_COLOR: '1', SPILLWAY_USAGE: 'off', SPILLWAY_AUTO_GC: 'off' });

describe('spillway search, several processes at once on a fresh index', () => {
  it('answers every search, and the index holds each artifact once', { timeout: 240_000 }, async () => {
    for (let i = 1; i <= 12; i++) {
      const content = Array.from({ length: 8000 }, (_, n) => `artifact ${String(i)} line ${String(n + 1)} status ok`).join('\n');
      expect((await spillway(['save', '--session', 's1', '--name', `a${String(i)}`], { env: env(), input: content })).code).toBe(0);
    }
    const failures: string[] = [];
    for (let round = 0; round < 3; round++) {
      rmSync(`${root}.search`, { recursive: true, force: true });
      rmSync(join(base, 'cache'), { recursive: true, force: true });
      const results = await Promise.all([1, 2, 3].map(() => spillway(['search', '--session', 's1', '--json', 'line 777'], { env: env(), timeoutMs: 120_000 })));
      for (const r of results) if (r.code !== 0) failures.push(r.stderr.trim());
    }
    expect(failures).toEqual([]);
    // Once the others are done, a search answers from the whole session.
    const last = await spillway(['search', '--session', 's1', '--json', 'artifact 7 line 777'], { env: env() });
    expect(last.code).toBe(0);
    expect(last.out).toContain('artifact 7 line 777');
  });
});
