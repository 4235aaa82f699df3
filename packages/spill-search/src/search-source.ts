/**
 * What the ranking reads from the index, made cheap for a search over a large session:
 * each term's coverage of the candidates is one FTS5 query per term (not one per candidate
 * and term: FTS5 walks a term's doclist for each separate lookup), the chunk count is
 * remembered until the database changes, and when every indexed artifact is in scope the
 * BM25 candidates come from FTS5 alone, with no per-match join against the chunk rows.
 */
import type { Database } from './database.js';
import type { QueryTerm } from './query.js';
import type { Candidate, ChunkLines, RankingSource, SectionLine } from './ranking.js';
import type { SearchStatements } from './search-statements.js';

type ChunkRow = Omit<Candidate, 'score' | 'bm25'>;

/** The chunk count with what it was counted at: this connection's changes and the others'. */
interface CountMemo {
  readonly changes: number;
  readonly version: number;
  readonly n: number;
}

/** State a searcher keeps between searches, for {@link createRankingSource}. */
export interface SourceMemo {
  count?: CountMemo;
}

/** What one search's source reads. */
export interface SourceOptions {
  readonly db: Database;
  readonly st: SearchStatements;
  /** The artifacts in scope (row id to locator). */
  readonly inScope: ReadonlyMap<number, string>;
  readonly memo: SourceMemo;
  /** A chunk's lines, read back through the reader. */
  lines(c: Candidate): Promise<ChunkLines | null>;
}

/** The {@link RankingSource} of one search. */
export function createRankingSource(options: SourceOptions): RankingSource & { section(id: number): SectionLine | undefined } {
  const { st, inScope, memo } = options;
  const scope = JSON.stringify([...inScope.keys()]);
  // Every artifact the index holds is in scope (each chunk row belongs to an artifact row,
  // and the scope is a set of those rows): a match needs no check of its chunk's artifact.
  const wholeIndex = (st.artifactCount.get() as { n: number }).n === inScope.size;
  // Every chunk handed to the ranking, so that a term's coverage is asked for all at once.
  const seen: number[] = [];
  const holding = new Map<string, Set<number>>();

  const candidates = (expression: string, limit: number): Candidate[] => {
    let rows: (ChunkRow & { bm25: number })[];
    if (wholeIndex) {
      // The same rows in the same order as the joined query: FTS5 yields matches in rowid
      // order and the sort by BM25 is over the same sequence of values.
      const matches = st.matches.all(expression, limit) as { chunk: number; bm25: number }[];
      const byId = new Map<number, ChunkRow>();
      if (matches.length > 0) {
        for (const row of st.chunksByIds.all(JSON.stringify(matches.map((m) => m.chunk))) as ChunkRow[]) byId.set(row.chunk, row);
      }
      rows = [];
      for (const m of matches) {
        const row = byId.get(m.chunk);
        if (row !== undefined) rows.push({ ...row, bm25: m.bm25 });
      }
    } else {
      rows = st.matchesInScope.all(expression, scope, limit) as (ChunkRow & { bm25: number })[];
    }
    for (const r of rows) seen.push(r.chunk);
    holding.clear();
    return rows.map((c) => ({ ...c, score: 0 }));
  };

  const chunkCount = (): number => {
    const changes = (st.totalChanges.get() as { n: number }).n;
    const version = (st.dataVersion.get() as { data_version: number }).data_version;
    const known = memo.count;
    if (known !== undefined && known.changes === changes && known.version === version) return known.n;
    const n = (st.chunkCount.get() as { n: number }).n;
    memo.count = { changes, version, n };
    return n;
  };

  const holds = (term: QueryTerm, chunk: number): boolean => {
    let set = holding.get(term.fts);
    if (set === undefined) {
      set = new Set((st.holdingOf.all(term.fts, JSON.stringify(seen)) as { id: number }[]).map((r) => r.id));
      holding.set(term.fts, set);
    }
    return set.has(chunk);
  };

  return {
    candidates,
    chunkCount,
    documentFrequency: (term) => (st.docCount.get(term.fts) as { n: number }).n,
    holds,
    section: (id) => st.section.get(id) as SectionLine | undefined,
    lines: (c) => options.lines(c),
  };
}
