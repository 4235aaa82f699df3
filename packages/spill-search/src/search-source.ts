/**
 * What the ranking reads from the index, made cheap for a search over a large session:
 * which candidates hold a term held by fewer than DF_CAP chunks comes from the walk that
 * counted them, a commoner term is asked for all its candidates in one query, the chunk
 * count is remembered until the database changes, and when every indexed artifact is in
 * scope the BM25 candidates come from FTS5 alone, with no per-match join against the
 * chunk rows.
 */
import type { Database } from './database.js';
import type { QueryTerm } from './query.js';
import { DF_CAP, type Candidate, type ChunkLines, type RankingSource, type SectionLine } from './ranking.js';
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
  // The chunks that hold a term, for each term held by fewer than DF_CAP chunks: its
  // count walked them all, so that which candidates hold it needs no query of its own.
  const holders = new Map<string, Set<number>>();

  const candidates = (expression: string, limit: number): { rows: Candidate[]; complete: boolean } => {
    let rows: (ChunkRow & { bm25: number })[];
    let complete: boolean;
    if (wholeIndex) {
      // The same rows in the same order as the joined query: FTS5 yields matches in rowid
      // order and the sort by BM25 is over the same sequence of values.
      const matches = st.matches.all(expression, limit) as { chunk: number; bm25: number }[];
      // Counted before the chunk rows are looked up: a match without one (an orphan the
      // next gc sweeps) still took a place in the limit.
      complete = matches.length < limit;
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
      complete = rows.length < limit;
    }
    return { rows: rows.map((c) => ({ ...c, score: 0 })), complete };
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

  const documentFrequency = (term: QueryTerm): number => {
    const ids = (st.docRows.all(term.fts) as { id: number }[]).map((r) => r.id);
    if (ids.length < DF_CAP) holders.set(term.fts, new Set(ids));
    return ids.length;
  };

  const holding = (term: QueryTerm, chunks: readonly number[]): ReadonlySet<number> => {
    const known = holders.get(term.fts);
    if (known !== undefined) return new Set(chunks.filter((c) => known.has(c)));
    if (chunks.length === 0) return new Set();
    return new Set((st.holdingOf.all(term.fts, JSON.stringify(chunks)) as { id: number }[]).map((r) => r.id));
  };

  return {
    candidates,
    chunkCount,
    documentFrequency,
    holding,
    section: (id) => st.section.get(id) as SectionLine | undefined,
    lines: (c) => options.lines(c),
  };
}
