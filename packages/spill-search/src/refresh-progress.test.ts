// A refresh tells how far it has got, so that a search that must index first can show
// progress: what must be indexed once the listing is known, then each page and artifact.
import { sessionId } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSpillSearch, type SpillSearchProgress } from './index.js';
import { saveText as save } from '@spillway/test-support/save-text';

const text = (lines: number, tag: string): string => Array.from({ length: lines }, (_, i) => `${tag} line ${String(i)} of the build log`).join('\n');

describe('refresh progress', () => {
  it('counts what must be indexed, then each page and artifact, and says nothing when all is indexed', async () => {
    const backend = createMemoryBackend();
    const s = sessionId('s');
    const sizes = [30_000, 2_000, 12];
    for (const [i, n] of sizes.entries()) await save(backend, s, text(n, `t${String(i)}`));
    let total = 0;
    for await (const entry of backend.catalog.list({ sessionId: s })) total += entry.bytes;
    const searcher = createSpillSearch({ reader: backend.reader, catalog: backend.catalog });
    const seen: SpillSearchProgress[] = [];
    const done = await searcher.refresh({ sessionId: s, onProgress: (p) => seen.push(p) });
    expect(done.indexed).toBe(3);
    expect(seen[0]).toEqual({ artifacts: 3, artifactsDone: 0, bytes: total, bytesDone: 0 });
    expect(seen.at(-1)).toMatchObject({ artifacts: 3, artifactsDone: 3 });
    // The 30,000-line artifact takes several pages: progress comes in between.
    expect(seen.filter((p) => p.artifactsDone === 0).length).toBeGreaterThan(2);
    const later: SpillSearchProgress[] = [];
    expect((await searcher.refresh({ sessionId: s, onProgress: (p) => later.push(p) })).indexed).toBe(0);
    expect(later).toEqual([]);
    await searcher.close();
  });

  it('never goes backwards nor past its totals, and a throwing callback stops nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 9000 }), { minLength: 1, maxLength: 4 }), async (sizes) => {
        const backend = createMemoryBackend();
        const s = sessionId('s');
        for (const [i, n] of sizes.entries()) await save(backend, s, text(n, `a${String(i)}`));
        const searcher = createSpillSearch({ reader: backend.reader, catalog: backend.catalog });
        const seen: SpillSearchProgress[] = [];
        const done = await searcher.refresh({
          sessionId: s,
          onProgress: (p) => {
            seen.push(p);
            throw new Error('a broken terminal');
          },
        });
        expect(done.indexed).toBe(sizes.length);
        for (const [i, p] of seen.entries()) {
          expect(p.bytesDone).toBeLessThanOrEqual(p.bytes);
          expect(p.artifactsDone).toBeLessThanOrEqual(p.artifacts);
          const before = seen[i - 1];
          if (before === undefined) continue;
          expect(p.bytesDone).toBeGreaterThanOrEqual(before.bytesDone);
          expect(p.artifactsDone).toBeGreaterThanOrEqual(before.artifactsDone);
        }
        expect(seen.at(-1)?.artifactsDone).toBe(sizes.length);
        await searcher.close();
      }),
      { numRuns: 15 },
    );
  });
});
