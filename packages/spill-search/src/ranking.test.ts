// Coverage asks the index only what it cannot work out: which candidates hold each term is
// the same as asking every term of every candidate, over random sets of chunks and terms.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuery } from './query.js';
import { DF_CAP, holdingSets, type RankingSource } from './ranking.js';

/** A source over a model: chunk ids and the terms (by index) each holds; it records what it is asked. */
function modelSource(held: ReadonlyMap<number, ReadonlySet<number>>, termIndex: ReadonlyMap<string, number>) {
  const asked: { term: number; chunks: number[] }[] = [];
  const source: Pick<RankingSource, 'holding'> = {
    holding: (term, chunks) => {
      const i = termIndex.get(term.fts) ?? -1;
      asked.push({ term: i, chunks: [...chunks] });
      return new Set(chunks.filter((c) => held.get(c)?.has(i) === true));
    },
  };
  return { source: source as RankingSource, asked };
}

describe('coverage of the candidates', () => {
  it('is the same as asking every term of every candidate', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }).chain((k) =>
          fc.record({
            k: fc.constant(k),
            // Each candidate holds at least one term (it matched the any-term query).
            chunks: fc.array(fc.subarray([...Array(k).keys()], { minLength: 1 }), { maxLength: 30 }),
            common: fc.array(fc.boolean(), { minLength: k, maxLength: k }),
            // Some chunks held every term and were taken by the every-term query.
            fullComplete: fc.boolean(),
          }),
        ),
        ({ k, chunks, common, fullComplete }) => {
          const terms = parseQuery(['alpha', 'beta', 'gamma_delta', 'epsilon'].slice(0, k).join(' ')).terms;
          const termIndex = new Map(terms.map((t, i) => [t.fts, i]));
          // The candidates left to cover: when the every-term query was complete, none of
          // them holds every term (those are all among its rows).
          const rest = chunks.map((held, c) => ({ c: c + 1, held: new Set(held) })).filter((x) => !(fullComplete && x.held.size === k));
          const held = new Map(rest.map((x) => [x.c, x.held]));
          const dfs = common.map((isCommon) => (isCommon ? DF_CAP : DF_CAP - 1));
          const { source, asked } = modelSource(held, termIndex);
          const sets = holdingSets(terms, dfs, rest.map((x) => x.c), fullComplete, source);
          for (let i = 0; i < k; i += 1) {
            expect([...(sets[i] ?? [])].sort((a, b) => a - b)).toEqual(rest.filter((x) => x.held.has(i)).map((x) => x.c));
          }
          // Every term is asked once at most, and only of the candidates given.
          expect(new Set(asked.map((a) => a.term)).size).toBe(asked.length);
          for (const a of asked) for (const c of a.chunks) expect(held.has(c)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('asks the one common term only of the candidates whose answer does not follow from the rare ones', () => {
    const terms = parseQuery('commit wombat').terms;
    const termIndex = new Map(terms.map((t, i) => [t.fts, i]));
    // Chunk 1 holds only `commit`, 2 only `wombat`, 3 both (it ranked below the every-term rows).
    const held = new Map<number, ReadonlySet<number>>([
      [1, new Set([0])],
      [2, new Set([1])],
      [3, new Set([0, 1])],
    ]);
    const open = modelSource(held, termIndex);
    holdingSets(terms, [DF_CAP, 3], [1, 2, 3], false, open.source);
    // `wombat` is known from its count; `commit` is asked of the chunks that hold `wombat`.
    expect(open.asked).toEqual([
      { term: 1, chunks: [1, 2, 3] },
      { term: 0, chunks: [2, 3] },
    ]);
    // When every chunk holding both is among the every-term rows, nothing is asked of the index.
    const closed = modelSource(new Map([...held].filter(([c]) => c !== 3)), termIndex);
    const sets = holdingSets(terms, [DF_CAP, 3], [1, 2], true, closed.source);
    expect(closed.asked).toEqual([{ term: 1, chunks: [1, 2] }]);
    expect(sets.map((s) => [...s])).toEqual([[1], [2]]);
  });
});
