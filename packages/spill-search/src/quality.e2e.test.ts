import { describe, expect, it } from 'vitest';
import { evaluate } from './test-quality.js';

// The figures are reported in the README; the targets there (2.5x grep's hits for keyword
// queries, 2x for questions) are measured, not asserted. What is asserted is that search
// is never worse than the baseline on the held-out third, in hits or in MRR.
describe('the labelled set (real outputs, queries written before the engine)', () => {
  // A budget, not a speed check: the set is 8 MB and 215 queries, and a loaded machine is slow.
  it('on the held-out third, search finds at least what grep of the rarest word finds within 4 KiB, and ranks it higher', { timeout: 15 * 60_000 }, async () => {
    const { rows, misses } = await evaluate();
    console.log(
      rows
        .map(
          (r) =>
            `${r.split.padEnd(8)} ${r.kind.padEnd(8)} n=${String(r.search.n).padStart(2)}  search ${String(r.search.hits).padStart(2)} hits, MRR ${r.search.mrr.toFixed(3)}` +
            `   grep ${String(r.grep.hits).padStart(2)} hits, MRR ${r.grep.mrr.toFixed(3)}   strict grep ${String(r.grepStrict.hits).padStart(2)} hits, MRR ${r.grepStrict.mrr.toFixed(3)}`,
        )
        .join('\n'),
    );
    console.log('search misses:', misses.map((m) => `${m.id} (${m.split}${m.grep.hit ? ', grep hit' : ''})`).join(', '));
    for (const row of rows.filter((r) => r.split === 'held-out')) {
      expect(row.search.hits, `${row.kind}: hits`).toBeGreaterThanOrEqual(row.grep.hits);
      expect(row.search.mrr, `${row.kind}: MRR`).toBeGreaterThan(row.grep.mrr);
    }
  });
});
