import { describe, expect, it } from 'vitest';
import { evaluate, type Score } from './test-quality.js';

/** Hits of one system over another's, as a percentage; `-` when the other has none. */
function ratio(a: Score, b: Score): string {
  return b.hits === 0 ? '   -' : `${String(Math.round((100 * a.hits) / b.hits)).padStart(3)}%`;
}

// The figures are reported in docs/search.md; the targets there (2.5x grep's hits for
// keyword queries, 2x for questions; keyword hits at least 90 % of the oracle's) are
// measured, not asserted. What is asserted is that search is never worse than the baseline
// on the held-out third, in hits or in MRR, and that the oracle finds whatever the
// baseline finds (its grep is the baseline's restricted to the right output). That the
// oracle finds whatever search finds is not asserted: it holds for no definition short of
// search's own answer (see docs/search.md).
describe('the labelled set (real outputs, queries written before the engine)', () => {
  // A budget, not a speed check: the set is 8 MB and 215 queries, and a loaded machine is slow.
  it('on the held-out third, search finds at least what grep of the rarest word finds within 4 KiB, and ranks it higher', { timeout: 20 * 60_000 }, async () => {
    const { rows, misses, oracleOnly, searchOnly } = await evaluate();
    console.log(
      rows
        .map(
          (r) =>
            `${r.split.padEnd(8)} ${r.kind.padEnd(8)} n=${String(r.search.n).padStart(2)}  search ${String(r.search.hits).padStart(2)} hits, MRR ${r.search.mrr.toFixed(3)}` +
            `   grep ${String(r.grep.hits).padStart(2)} hits, MRR ${r.grep.mrr.toFixed(3)}   strict grep ${String(r.grepStrict.hits).padStart(2)} hits, MRR ${r.grepStrict.mrr.toFixed(3)}` +
            `   oracle ${String(r.oracle.hits).padStart(2)} hits (engine ${String(r.oracleSearch.hits).padStart(2)}, grep ${String(r.oracleGrep.hits).padStart(2)})   search / oracle ${ratio(r.search, r.oracle)}`,
        )
        .join('\n'),
    );
    console.log('search misses:', misses.map((m) => `${m.id} (${m.split}${m.grep.hit ? ', grep hit' : ''})`).join(', '));
    console.log('oracle finds, search misses:', oracleOnly.map((g) => `${g.id} (${g.split}, ${g.kind}, by ${g.by})`).join(', '));
    console.log('search finds, oracle misses:', searchOnly.map((g) => `${g.id} (${g.split}, ${g.kind})`).join(', '));
    for (const row of rows.filter((r) => r.split === 'held-out')) {
      expect(row.search.hits, `${row.kind}: hits`).toBeGreaterThanOrEqual(row.grep.hits);
      expect(row.search.mrr, `${row.kind}: MRR`).toBeGreaterThan(row.grep.mrr);
    }
    for (const row of rows) expect(row.oracleGrep.hits, `${row.split} ${row.kind}: the oracle's grep finds what grep finds`).toBeGreaterThanOrEqual(row.grep.hits);
  });
});
