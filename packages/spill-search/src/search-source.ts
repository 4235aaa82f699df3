/**
 * What the ranking reads from the index, made cheap for a search over a large session:
 * which candidates hold a term held by fewer than DF_CAP chunks comes from the walk that
 * counted them, a commoner term is asked for all its candidates in one query, the chunk
 * count is summed from the artifact rows' counts and remembered until the database
 * changes, and when every indexed artifact is in scope the BM25 candidates come from FTS5
 * alone, with no per-match join against the chunk rows. In any scope, the candidates of a
 * query with one common term come from queries that leave out the chunks that hold only it,
 * and those of a query of common terms alone from the chunks that hold them all when they
 * are enough (`bm25-candidates.ts`).
 */
import { commonTermsCandidates, noChunkInEvery, prunedCandidates, type Match } from './bm25-candidates.js';
import type { Database } from './database.js';
import { allOf, anyOf, type QueryTerm } from './query.js';
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
  // Each term's walk up to DF_CAP, once a search: the chunks that hold it when fewer do
  // (so that which candidates hold it needs no query of its own), `null` when as many do.
  const walked = new Map<string, Set<number> | null>();
  const holdersOf = (term: QueryTerm): Set<number> | null => {
    let known = walked.get(term.fts);
    if (known === undefined) {
      const ids = (st.docRows.all(term.fts) as { id: number }[]).map((r) => r.id);
      known = ids.length < DF_CAP ? new Set(ids) : null;
      walked.set(term.fts, known);
    }
    return known;
  };
  // For a common term, which of the chunks that hold a rare one hold it (from the plan of
  // bm25-candidates.ts, which scored those).
  const partly = new Map<string, { within: ReadonlySet<number>; holders: ReadonlySet<number> }>();

  // The chunk rows of matches, in their order; a match without one (an orphan the next gc
  // sweeps) is left out, though it took its place in the query's limit.
  const withRows = (lists: readonly (readonly Match[])[]): Candidate[][] => {
    const ids = [...new Set(lists.flatMap((l) => l.map((m) => m.chunk)))];
    const byId = new Map<number, ChunkRow>();
    if (ids.length > 0) for (const row of st.chunksByIds.all(JSON.stringify(ids)) as ChunkRow[]) byId.set(row.chunk, row);
    return lists.map((l) =>
      l.flatMap((m) => {
        const row = byId.get(m.chunk);
        return row === undefined ? [] : [{ ...row, bm25: m.bm25, score: 0 }];
      }),
    );
  };

  // True when no chunk holds every term, as the holders of the rare terms show: the
  // every-term query would match nothing.
  const noneHoldsEvery = (terms: readonly QueryTerm[]): boolean => noChunkInEvery(terms.flatMap((t) => holdersOf(t) ?? []));

  // A query of several terms, each held by DF_CAP chunks or more: the every-term query,
  // which scores only the chunks that hold them all, may answer for the any-term one, which
  // scores every chunk that holds one (`commonTermsCandidates`).
  const allCommon = (terms: readonly QueryTerm[]): boolean => terms.length > 1 && terms.every((t) => holdersOf(t) === null);

  // The best matches of an expression in scope by BM25, and every match with its BM25.
  // With every indexed artifact in scope FTS5 alone answers, with no join against the chunk
  // rows: the same rows in the same order as the joined query, since FTS5 yields matches in
  // rowid order and the sort by BM25 is over the same sequence of values.
  const matches = wholeIndex
    ? (expression: string, limit: number) => st.matches.all(expression, limit) as Match[]
    : (expression: string, limit: number) => st.matchesInScope.all(expression, scope, limit) as Match[];
  const scored = wholeIndex ? (expression: string) => st.scored.all(expression) as Match[] : (expression: string) => st.scoredInScope.all(expression, scope) as Match[];

  const candidates: RankingSource['candidates'] = (terms, limits) => {
    const several = terms.length > 1;
    const pruned = several ? prunedCandidates(st, terms, (t) => holdersOf(t) ?? undefined, limits, scored) : undefined;
    if (pruned !== undefined) partly.set(pruned.common.term.fts, pruned.common);
    const common = pruned === undefined && allCommon(terms) ? commonTermsCandidates(st, terms, limits, matches) : undefined;
    const known = pruned ?? common;
    const every = known?.every ?? (several && !noneHoldsEvery(terms) ? matches(allOf(terms), limits.every) : []);
    const everyComplete = known?.everyComplete ?? (several && every.length < limits.every);
    const any = known?.any ?? matches(anyOf(terms), limits.any);
    const [everyRows = [], anyRows = []] = withRows([every, any]);
    return { every: everyRows, everyComplete, any: anyRows };
  };

  const chunkCount = (): number => {
    const changes = (st.totalChanges.get() as { n: number }).n;
    const version = (st.dataVersion.get() as { data_version: number }).data_version;
    const known = memo.count;
    if (known !== undefined && known.changes === changes && known.version === version) return known.n;
    // Summed from the artifact rows where each has its count; counted where one has none.
    const n = (st.keptChunkCount.get() as { n: number | null }).n ?? (st.chunkCount.get() as { n: number }).n;
    memo.count = { changes, version, n };
    return n;
  };

  const documentFrequency = (term: QueryTerm): number => holdersOf(term)?.size ?? DF_CAP;

  const holding = (term: QueryTerm, chunks: readonly number[]): ReadonlySet<number> => {
    const known = walked.get(term.fts) ?? undefined;
    if (known !== undefined) return new Set(chunks.filter((c) => known.has(c)));
    const part = partly.get(term.fts);
    if (part !== undefined && chunks.every((c) => part.within.has(c))) return new Set(chunks.filter((c) => part.holders.has(c)));
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
