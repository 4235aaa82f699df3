/**
 * Candidate ranking: BM25 candidates from FTS5, scored by how much of the query they cover
 * (rarer terms weigh more), spread across artifacts, and the best few ranked again by what
 * their lines and section lines show. Everything it needs from the index and the backend
 * comes through a {@link RankingSource}, so that this file holds the ranking and nothing else.
 */
import { throwIfAborted } from '@spillway/core';
import type { CandidateLimits } from './bm25-candidates.js';
import type { QueryTerm } from './query.js';
import { fieldScore, lineScore } from './snippet.js';

/** Candidates taken from BM25 before the coverage ranking. */
const ANY_CANDIDATES = 60;
const ALL_CANDIDATES = 40;
/**
 * How many of the best chunks are ranked again by their lines. An answer shows about eight
 * snippets; with only eight judged, a chunk just below them whose line holds the query as
 * fields never got the chance to outrank one that merely holds its words (12 found two
 * more of the labelled set's tuned part than 8; 12 to 16 found the same, 20 and 24 fewer).
 */
const RERANK = 12;
/** Weight of the best line's coverage, and of the section line's, in that ranking. */
const LINE_WEIGHT = 0.6;
const SECTION_WEIGHT = 0.25;
/** Weight of the query's terms standing as whole fields of that line (see `fieldScore`). */
const FIELD_WEIGHT = 0.3;
/** Chunks counted for a term's document frequency at most. */
export const DF_CAP = 1000;
/** Chunks of one artifact ranked as they score; each further one loses {@link ARTIFACT_REPEAT_PENALTY}. */
const PER_ARTIFACT_FIRST_PASS = 2;
const ARTIFACT_REPEAT_PENALTY = 0.08;

/** One chunk that matched, with its BM25 and the score the ranking gives it. */
export interface Candidate {
  readonly chunk: number;
  readonly artifact: number;
  readonly startLine: number;
  readonly endLine: number;
  readonly section: number | null;
  /**
   * Where the first line read back with the chunk starts, in bytes (see `read-back.ts`),
   * when the index knows it exactly; `null` when it does not.
   */
  readonly contextByte?: number | null;
  readonly bm25: number;
  score: number;
}

/** A chunk's lines as read back, numbered from `first`. */
export interface ChunkLines {
  readonly first: number;
  readonly lines: string[];
  readonly endLine: number;
  readonly truncated: boolean;
}

/** A section line as the index keeps it. */
export interface SectionLine {
  readonly line: number;
  readonly text: string;
}

/** What the ranking asks of the index and the backend. */
export interface RankingSource {
  /**
   * The best chunks in scope by BM25 that hold every term (for a query of several: what
   * the FTS5 expression `allOf` matches) and that hold any (`anyOf`), at most `limits` of
   * each, with `score` 0; `everyComplete` when the first are every chunk in scope that
   * holds every term. The first may go past `limits.every` with chunks of the second that
   * are known to hold every term.
   */
  candidates(terms: readonly QueryTerm[], limits: CandidateLimits): { every: Candidate[]; everyComplete: boolean; any: Candidate[] };
  /** How many chunks the index holds. */
  chunkCount(): number;
  /**
   * How many chunks hold a term, counted up to {@link DF_CAP}. Below the cap the count has
   * seen every such chunk, and {@link RankingSource.holding} of that term asks the index nothing.
   */
  documentFrequency(term: QueryTerm): number;
  /** Which of the chunks hold the term. */
  holding(term: QueryTerm, chunks: readonly number[]): ReadonlySet<number>;
  /** A section line by its row. */
  section(id: number): SectionLine | undefined;
  /** A chunk's lines, with some context around them; `null` once its artifact is gone. */
  lines(c: Candidate): Promise<ChunkLines | null>;
}

/** The ranked chunks, best first, and each term's weight (for the snippets). */
export interface Ranking {
  readonly order: Candidate[];
  readonly weights: number[];
}

/** Ranks the chunks that match the query; `undefined` when none does. */
export async function rankCandidates(terms: readonly QueryTerm[], source: RankingSource, signal?: AbortSignal): Promise<Ranking | undefined> {
  // Candidates: the chunks that hold every term (full coverage by definition), then the
  // best by BM25 that hold any term.
  // The terms' counts first: below DF_CAP they also tell the source which chunks hold them.
  const dfs = terms.length > 1 ? terms.map((t) => source.documentFrequency(t)) : [];
  const candidates = new Map<number, Candidate>();
  const full = new Set<number>();
  const found = source.candidates(terms, { every: ALL_CANDIDATES, any: ANY_CANDIDATES });
  // True when every chunk in scope that holds every term is in `full`.
  const fullComplete = found.everyComplete;
  for (const c of found.every) {
    candidates.set(c.chunk, c);
    full.add(c.chunk);
  }
  for (const c of found.any) if (!candidates.has(c.chunk)) candidates.set(c.chunk, c);
  if (candidates.size === 0) return undefined;

  // Coverage: the share of the query's weight (rarer terms weigh more) that a chunk holds.
  // With one term, or for the chunks that hold every term, it is 1 without asking.
  const total = terms.length > 1 ? Math.max(1, source.chunkCount()) : 1;
  const weights = terms.length > 1 ? terms.map((t, i) => idf(t, dfs[i] ?? 0, total)) : [1];
  const weightSum = weights.reduce((a, b) => a + b, 0) || 1;
  const covered = new Map<number, number>();
  const rest = terms.length > 1 ? [...candidates.keys()].filter((id) => !full.has(id)) : [];
  const held = holdingSets(terms, dfs, rest, fullComplete, source);
  for (const id of candidates.keys()) {
    if (terms.length === 1 || full.has(id)) {
      covered.set(id, weightSum);
      continue;
    }
    for (let i = 0; i < terms.length; i += 1) {
      if (held[i]?.has(id) === true) covered.set(id, (covered.get(id) ?? 0) + (weights[i] ?? 0));
    }
  }
  let bestBm25 = 0;
  for (const c of candidates.values()) bestBm25 = Math.min(bestBm25, c.bm25);
  for (const c of candidates.values()) {
    const coverage = (covered.get(c.chunk) ?? 0) / weightSum;
    // BM25 (negative in FTS5: lower is better) only orders chunks of equal coverage.
    c.score = coverage + (bestBm25 < 0 ? 0.25 * (c.bm25 / bestBm25) : 0);
  }
  const ranked = diversify([...candidates.values()].sort((a, b) => b.score - a.score || a.chunk - b.chunk));

  // The best few are ranked again by what their lines show: a chunk where the query's
  // words meet on one line, or under a section line that names them, comes first.
  const head = ranked.slice(0, RERANK);
  await Promise.all(head.map((c) => source.lines(c))); // the reads overlap
  for (const c of head) {
    throwIfAborted(signal);
    const page = await source.lines(c);
    if (page === null) {
      c.score = -Infinity;
      continue;
    }
    let bestLine = 0;
    for (let n = c.startLine; n <= c.endLine; n += 1) {
      const line = page.lines[n - page.first] ?? '';
      const covers = lineScore(line, terms, weights);
      if (covers > 0) bestLine = Math.max(bestLine, LINE_WEIGHT * covers + FIELD_WEIGHT * fieldScore(line, terms, weights));
    }
    const section = c.section === null ? undefined : source.section(c.section);
    const sectionScore = section === undefined ? 0 : lineScore(section.text, terms, weights);
    c.score += (bestLine + SECTION_WEIGHT * sectionScore) / weightSum;
  }
  head.sort((a, b) => b.score - a.score || a.chunk - b.chunk);
  return { order: [...head.filter((c) => c.score > -Infinity), ...ranked.slice(RERANK)], weights };
}

/**
 * Which of the chunks hold each term, for chunks that matched some term but are not known
 * to hold every one. A term in fewer than {@link DF_CAP} chunks costs no query (its count
 * saw them all); a commoner one is asked of the index by rowid, a seek of its doclist in
 * every segment per chunk, which at a large index is most of a query's time. The last
 * common term asked is asked only where the others leave its answer open: a chunk that
 * holds no other term holds it (it matched some term), and one that holds every other term
 * does not when every chunk that holds every term is known. The sets are the same as
 * asking every term of every chunk.
 */
export function holdingSets(
  terms: readonly QueryTerm[],
  dfs: readonly number[],
  chunks: readonly number[],
  fullComplete: boolean,
  source: RankingSource,
): ReadonlySet<number>[] {
  const sets: ReadonlySet<number>[] = terms.map(() => new Set<number>());
  if (chunks.length === 0) return sets;
  const common: number[] = [];
  for (let i = 0; i < terms.length; i += 1) {
    const term = terms[i];
    if (term === undefined) continue;
    if ((dfs[i] ?? DF_CAP) >= DF_CAP) common.push(i);
    else sets[i] = source.holding(term, chunks);
  }
  // A phrase's seek is one per token: the one with the most tokens is the one left last.
  common.sort((a, b) => (terms[a]?.tokens.length ?? 0) - (terms[b]?.tokens.length ?? 0) || a - b);
  const last = common.pop();
  for (const i of common) {
    const term = terms[i];
    if (term !== undefined) sets[i] = source.holding(term, chunks);
  }
  const lastTerm = last === undefined ? undefined : terms[last];
  if (last === undefined || lastTerm === undefined) return sets;
  const derived = new Set<number>();
  const ask: number[] = [];
  for (const c of chunks) {
    let others = 0;
    for (let i = 0; i < terms.length; i += 1) if (i !== last && sets[i]?.has(c) === true) others += 1;
    if (others === 0) derived.add(c);
    else if (!(fullComplete && others === terms.length - 1)) ask.push(c);
  }
  if (ask.length > 0) for (const c of source.holding(lastTerm, ask)) derived.add(c);
  sets[last] = derived;
  return sets;
}

/**
 * Inverse document frequency of a term, from how many chunks hold it (counted up to
 * {@link DF_CAP}: a term that common weighs little whatever its exact count).
 */
function idf(term: QueryTerm, df: number, total: number): number {
  const base = Math.log(1 + (Math.max(total, df) - df + 0.5) / (df + 0.5));
  return term.phrase ? base * 1.2 : base;
}

/**
 * Lowers each further chunk of one artifact a little, so that one huge repetitive output
 * cannot fill the answer while other artifacts hold chunks nearly as good.
 */
function diversify(ranked: readonly Candidate[]): Candidate[] {
  const count = new Map<number, number>();
  const adjusted = ranked.map((c) => {
    const n = count.get(c.artifact) ?? 0;
    count.set(c.artifact, n + 1);
    return { c, score: c.score - ARTIFACT_REPEAT_PENALTY * Math.max(0, n + 1 - PER_ARTIFACT_FIRST_PASS) };
  });
  return adjusted.sort((a, b) => b.score - a.score || a.c.chunk - b.c.chunk).map((x) => x.c);
}
