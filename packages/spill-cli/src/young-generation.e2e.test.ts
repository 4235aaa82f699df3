import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, PACKAGE_DIR } from './test-bin.js';

// Run in fresh processes: the flag is process-wide, and the test runner's own heap has grown.
function youngGenerationAfterGarbage(keep: boolean): { before: number; after: number } {
  const module = pathToFileURL(join(PACKAGE_DIR, 'dist', 'young-generation.js')).href;
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    const { keepYoungGenerationSmall } = await import(${JSON.stringify(module)});
    const size = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const before = size();
    if (${String(keep)}) keepYoungGenerationSmall();
    // A scan's garbage: short-lived strings, a few of which live across collections.
    let live = [];
    for (let i = 0; i < 300000; i++) {
      live.push('x'.repeat(1000) + i);
      if (live.length > 200) live = [];
    }
    process.stdout.write(JSON.stringify({ before, after: size() }));
  `;
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(out.stderr).toBe('');
  return JSON.parse(out.stdout) as { before: number; after: number };
}

describe('keepYoungGenerationSmall', () => {
  ensureBuilt();

  it('stops the young generation growing under a long run of garbage, which otherwise grows it', () => {
    const grown = youngGenerationAfterGarbage(false);
    const kept = youngGenerationAfterGarbage(true);
    // Without it, V8 grows the young generation several times over (to 16 MiB on Node 20).
    expect(grown.after).toBeGreaterThanOrEqual(4 * grown.before);
    // With it, at most the one step V8 may already have begun.
    expect(kept.after).toBeLessThanOrEqual(2 * kept.before);
  });
});
