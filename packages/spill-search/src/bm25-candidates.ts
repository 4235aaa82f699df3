/**
 * The BM25 candidates of a query whose terms are rare but one, or all common: found without
 * scoring every chunk that holds a common one.
 *
 * FTS5 computes BM25 for every chunk an expression matches, so the any-term query of
 * `spill bowtie` scores each of the hundreds of thousands of chunks that hold `spill` to
 * answer 60 that all hold `bowtie`. The same scores come from smaller queries, exactly:
 * FTS5's bm25 adds up, phrase by phrase in the order the phrases stand in the expression,
 * each phrase's share in the chunk (its IDF over the whole table times a function of how
 * often it occurs there, which stays below k1 + 1 = 2.2), and a phrase the chunk does not
 * hold adds nothing. So a chunk scores the same under AND as under OR of the same phrases,
 * and the same under an expression without the phrases it does not hold, as long as the
 * others stand in the same order. The chunks that hold a rare term (one that fewer than
 * DF_CAP chunks hold: its count walked them all) are scored by `rare OR …` when they do
 * not hold the common term and by `common AND (rare OR …)` when they do, in the query's
 * order; a chunk that holds the common term alone scores less than 2.2 times its IDF,
 * which is bounded from how many chunks hold it at least. When the 60th best chunk that
 * holds a rare term scores more than that, those 60 are the any-term query's answer, and
 * in its order: by BM25, then by rowid (FTS5 yields matches in rowid order, and SQLite's
 * sort for a LIMIT keeps the first of equal ones).
 *
 * A query whose terms are all common is answered the same way from the other side: a chunk
 * that lacks a term scores less than the bounds of the others' shares, so when the 60th best
 * chunk that holds every term scores more than that, those are the any-term answer.
 */
import type { Statement } from './database.js';
import { allOf, type QueryTerm } from './query.js';
import { DF_CAP } from './ranking.js';

/** k1 + 1 in FTS5's bm25: a phrase's share in a chunk is less than its IDF times this. */
const SHARE_BOUND = 2.2;
/** Room for the rounding of FTS5's arithmetic and of the bound's own. */
const SLACK = 1e-9;

/** A chunk that matched, as FTS5 scores it (lower is better). */
export interface Match {
  readonly chunk: number;
  readonly bm25: number;
}

/** The statements the plan runs. */
export interface PrunedStatements {
  /** Every match of an expression with its BM25, unordered: `rowid AS chunk, bm25`. */
  readonly scored: Statement;
  /** How many chunks match an expression, counted up to a limit. */
  readonly countUpTo: Statement;
  /** FTS5's averages record (`fts_data` row 1): the row count BM25 uses, then column totals. */
  readonly averages: Statement;
}

/** How many candidates each query takes. */
export interface CandidateLimits {
  readonly every: number;
  readonly any: number;
}

/** What the plan found: what the two BM25 queries would answer, and who holds the common term. */
export interface PrunedCandidates {
  /** The every-term query's answer, best first. */
  readonly every: Match[];
  /** True when `every` is every chunk that holds every term. */
  readonly everyComplete: boolean;
  /** The any-term query's answer, best first; `undefined` when it has to be asked. */
  readonly any: Match[] | undefined;
  /** The common term, and which of the chunks that hold a rare term (`within`) hold it. */
  readonly common: { readonly term: QueryTerm; readonly within: ReadonlySet<number>; readonly holders: ReadonlySet<number> };
}

/**
 * The plan for a query of several terms all held by fewer than DF_CAP chunks but one, the
 * first or the last (so that an expression of it AND the others lists the phrases in the
 * query's order); `undefined` for any other query. `holdersOf` answers the chunks that
 * hold a rare term (in the whole index) and `undefined` for the common one. `scored`
 * answers every match of an expression in scope with its BM25 (by default, in the whole
 * index): the bound holds whatever the scope, since BM25's statistics are the whole index's.
 */
export function prunedCandidates(
  st: PrunedStatements,
  terms: readonly QueryTerm[],
  holdersOf: (term: QueryTerm) => ReadonlySet<number> | undefined,
  limits: CandidateLimits,
  scored: (expression: string) => Match[] = (expression) => st.scored.all(expression) as Match[],
): PrunedCandidates | undefined {
  if (terms.length < 2) return undefined;
  const sets = terms.map((t) => holdersOf(t));
  const commonAt = sets.flatMap((s, i) => (s === undefined ? [i] : []));
  const at = commonAt[0];
  if (commonAt.length !== 1 || at === undefined || (at !== 0 && at !== terms.length - 1)) return undefined;
  const common = terms[at];
  if (common === undefined) return undefined;
  const rareSets = sets.filter((s): s is ReadonlySet<number> => s !== undefined);
  let held = 0;
  for (const s of rareSets) held += s.size;
  // Fewer chunks hold a rare term than the any-term query takes: it answers chunks of the
  // common term alone, and those are only found by scoring them all.
  if (held < limits.any) return undefined;
  const rareOr = terms
    .filter((_, i) => i !== at)
    .map((t) => t.fts)
    .join(' OR ');
  const withCommon = new Map<number, number>();
  for (const m of scored(at === 0 ? `${common.fts} AND (${rareOr})` : `(${rareOr}) AND ${common.fts}`)) withCommon.set(m.chunk, m.bm25);
  const ranked: Match[] = [];
  const within = new Set<number>();
  for (const m of scored(rareOr)) {
    within.add(m.chunk);
    ranked.push({ chunk: m.chunk, bm25: withCommon.get(m.chunk) ?? m.bm25 });
  }
  ranked.sort((a, b) => a.bm25 - b.bm25 || a.chunk - b.chunk);
  const everyAll = ranked.filter((m) => withCommon.has(m.chunk) && rareSets.every((s) => s.has(m.chunk)));
  const result = { every: everyAll.slice(0, limits.every), everyComplete: everyAll.length < limits.every, common: { term: common, within, holders: new Set(withCommon.keys()) } };
  const last = ranked[limits.any - 1];
  if (last === undefined) return { ...result, any: undefined };
  return { ...result, any: commonAloneLoses(st, common, -last.bm25) ? ranked.slice(0, limits.any) : undefined };
}

/**
 * The candidates of a query whose terms are all common (each held by DF_CAP chunks or
 * more), from the every-term query alone when it can answer for the any-term one too: a
 * chunk that lacks a term scores less than the shares of the terms it may hold, each below
 * 2.2 times that term's IDF, so when the {@link CandidateLimits.any}th best chunk that holds
 * every term scores more than the most that all terms but one could, the best chunks of
 * the any-term query are those, in the same order, and `every` holds them all (more than
 * {@link CandidateLimits.every} when the any-term limit is larger). Otherwise `any` is
 * `undefined`, and the any-term query has to be asked. `best` asks FTS5 for the best
 * matches of an expression in scope, by BM25: the bound holds whatever the scope, since
 * BM25's statistics are the whole index's.
 */
export function commonTermsCandidates<M extends Match>(
  st: PrunedStatements,
  terms: readonly QueryTerm[],
  limits: CandidateLimits,
  best: (expression: string, limit: number) => M[],
): { every: M[]; everyComplete: boolean; any: M[] | undefined } {
  const asked = Math.max(limits.every, limits.any);
  const found = best(allOf(terms), asked);
  const last = found[limits.any - 1];
  // The any-term answer holds every term: all of it is given as such, so that the ranking
  // asks nobody which terms those chunks hold.
  if (last !== undefined && lackingOneLoses(st, terms, -last.bm25)) return { every: found, everyComplete: found.length < asked, any: found.slice(0, limits.any) };
  return { every: found.slice(0, limits.every), everyComplete: found.length < limits.every, any: undefined };
}

/**
 * True when no chunk that lacks one of `terms` can score `threshold` or better. Each term's
 * share is bounded first from its holders being at least DF_CAP; if that is not enough,
 * from a count of them up to as many as make its share small enough for the sum of all
 * but one to stay below the threshold (a term held by more needs no exact count).
 */
function lackingOneLoses(st: PrunedStatements, terms: readonly QueryTerm[], threshold: number): boolean {
  const rows = rowCount(st);
  if (rows === undefined) return false;
  // The most a chunk can score with all terms but the one of the smallest share.
  const most = (shares: readonly number[]): number => shares.reduce((a, b) => a + b, 0) - Math.min(...shares);
  if (most(terms.map(() => shareBound(rows, DF_CAP))) < threshold) return true;
  const limit = holdersForShareBelow(rows, threshold / (terms.length - 1)) ?? rows;
  const counted = terms.map((t) => shareBound(rows, Math.max(DF_CAP, (st.countUpTo.get(t.fts, limit) as { n: number }).n)));
  return most(counted) < threshold;
}

/**
 * The fewest holders past DF_CAP that make a term's share bound below `share`, about the
 * smallest n with {@link shareBound} below it (solved for n, then stepped past the
 * rounding); `undefined` when no count of at most `rows` does.
 */
function holdersForShareBelow(rows: number, share: number): number | undefined {
  const e = Math.exp(share / (SHARE_BOUND * (1 + SLACK)));
  let need = Math.floor((rows + 0.5 - 0.5 * e) / (1 + e)) + 1;
  if (!Number.isFinite(need)) return undefined;
  need = Math.max(need, DF_CAP + 1);
  for (let step = 0; step < 4 && need <= rows && shareBound(rows, need) >= share; step += 1) need += 1;
  return need > rows || shareBound(rows, need) >= share ? undefined : need;
}

/** True when some sets are given and no chunk is in all of them. */
export function noChunkInEvery(sets: readonly ReadonlySet<number>[]): boolean {
  const [smallest, ...others] = [...sets].sort((a, b) => a.size - b.size);
  if (smallest === undefined) return false;
  for (const c of smallest) if (others.every((s) => s.has(c))) return false;
  return true;
}

/**
 * More than a term's share in any chunk can be: 2.2 times its IDF, log((N - n + 0.5) /
 * (n + 0.5)) with N the rows and n the rows that hold it, here at least `atLeast` (FTS5
 * takes an IDF of at most 0 as 1e-6).
 */
function shareBound(rows: number, atLeast: number): number {
  return SHARE_BOUND * Math.max(1e-6, Math.log((rows - atLeast + 0.5) / (atLeast + 0.5))) * (1 + SLACK);
}

/**
 * True when no chunk that holds only the common term can score `threshold` or better (see
 * {@link shareBound}), its holders being at least DF_CAP, or as many as a count up to what
 * the threshold needs finds.
 */
function commonAloneLoses(st: PrunedStatements, common: QueryTerm, threshold: number): boolean {
  const rows = rowCount(st);
  if (rows === undefined) return false;
  if (shareBound(rows, DF_CAP) < threshold) return true;
  const need = holdersForShareBelow(rows, threshold);
  if (need === undefined) return false;
  const found = (st.countUpTo.get(common.fts, need) as { n: number }).n;
  return found >= need && shareBound(rows, found) < threshold;
}

/** The row count FTS5's BM25 uses: the first varint of its averages record. */
export function rowCount(st: PrunedStatements): number | undefined {
  const row = st.averages.get() as { block?: unknown } | undefined;
  const block = row?.block;
  if (!(block instanceof Uint8Array) || block.length === 0) return undefined;
  // SQLite's varint: seven bits a byte, high bit set while more follow; a ninth byte gives eight.
  let value = 0;
  for (let i = 0; i < 9 && i < block.length; i += 1) {
    const byte = block[i] ?? 0;
    if (i === 8) return value * 256 + byte;
    value = value * 128 + (byte & 0x7f);
    if (byte < 0x80) return value;
  }
  return undefined;
}
