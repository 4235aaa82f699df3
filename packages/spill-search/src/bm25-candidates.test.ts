// The candidates found without scoring every chunk of a common term are the ones FTS5's two
// queries answer, to the last bit of each BM25 score and in the same order, over an index
// large enough (some 10,000 chunks) that several terms are held by DF_CAP chunks or more.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sessionId, type SpillSearchHit } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commonTermsCandidates, noChunkInEvery, prunedCandidates, rowCount, type Match } from './bm25-candidates.js';
import { closeDatabase, openDatabase, type Database } from './database.js';
import { createSpillSearch, type SpillSearch } from './index.js';
import { allOf, anyOf, parseQuery, type QueryTerm } from './query.js';
import { DF_CAP, type Candidate } from './ranking.js';
import { createRankingSource } from './search-source.js';
import { prepareSearchStatements, type SearchStatements } from './search-statements.js';
import { saveText as save } from '@spillway/test-support/save-text';

/** A seeded generator, so that the corpus is the same on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Words and how often a line holds each: from every chunk down to a few dozen. */
const WORDS: readonly [string, number][] = [
  ['commit', 0.5],
  ['author', 0.03],
  ['merge', 0.0066],
  ['pika', 0.0055],
  ['numbat', 0.004],
  ['bowtie', 0.0025],
  ['wombat', 0.0007],
  ['quokka', 0.00015],
  ['shares create', 0.004],
  ['shares', 0.01],
  ['create', 0.015],
  ['TypeError', 0.002],
];
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'si', 'to', 'va'];

/** About 216,000 short lines: filler, the words above (some twice in a line), section lines, repeated blocks. */
function corpus(): string[] {
  const next = random(20261201);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const filler = () => pick(SYLLABLES) + pick(SYLLABLES) + pick(SYLLABLES);
  const blocks: string[][] = [];
  for (let b = 0; b < 9000; b += 1) {
    // Every tenth block repeats an earlier one: equal chunks make equal scores.
    const earlier = blocks[Math.floor(next() * blocks.length)];
    if (b % 10 === 9 && earlier !== undefined) {
      blocks.push(earlier);
      continue;
    }
    const lines: string[] = [];
    for (let l = 0; l < 24; l += 1) {
      if (next() < 0.01) {
        lines.push(`## ${next() < 0.1 ? pick(['bowtie', 'wombat', 'TypeError']) : filler()} notes`);
        continue;
      }
      const words = Array.from({ length: 2 + Math.floor(next() * 6) }, filler);
      for (const [word, p] of WORDS) {
        if (next() < p) words.splice(Math.floor(next() * (words.length + 1)), 0, ...(next() < 0.2 ? [word, word] : [word]));
      }
      lines.push(words.join(' '));
    }
    blocks.push(lines);
  }
  return blocks.map((lines) => lines.join('\n'));
}

const QUERY_WORDS = ['commit', 'author', 'merge', 'numbat', 'pika', 'bowtie', 'wombat', 'quokka', '"shares create"', 'TypeError', 'error', 'kalomi', 'absentword'];

let dir: string;
let db: Database;
let st: SearchStatements;
/**
 * The corpus searched with every indexed artifact in scope, and with one of another session
 * indexed too (the plans run through the joined queries; the tests of each below hold them to
 * FTS5's own queries in a part of the index).
 */
let whole: { search: SpillSearch; locators: string[] };
let scoped: { search: SpillSearch; locators: string[] };

async function indexed(other: boolean, location?: string): Promise<{ search: SpillSearch; locators: string[] }> {
  const backend = createMemoryBackend();
  const texts = corpus();
  const locators: string[] = [];
  // Three artifacts, so that chunks of one text are spread over rowids like a session's.
  for (let i = 0; i < 3; i += 1) locators.push(await save(backend, sessionId('big'), texts.filter((_, b) => b % 3 === i).join('\n')));
  // An empty artifact has a row and no chunks: it changes no BM25 statistic.
  if (other) await save(backend, sessionId('other'), '');
  const search = createSpillSearch({ reader: backend.reader, catalog: backend.catalog, ...(location === undefined ? {} : { location }) });
  await search.refresh();
  return { search, locators };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'spill-search-bm25-'));
  const location = path.join(dir, 'index.sqlite');
  await (await indexed(false, location)).search.close();
  db = await openDatabase(location);
  st = prepareSearchStatements(db);
  whole = await indexed(false);
  scoped = await indexed(true);
}, 120_000);

afterAll(async () => {
  closeDatabase(db);
  await whole.search.close();
  await scoped.search.close();
  await rm(dir, { recursive: true, force: true });
});

function holdersOf(term: QueryTerm): ReadonlySet<number> | undefined {
  const ids = (st.docRows.all(term.fts) as { id: number }[]).map((r) => r.id);
  return ids.length < DF_CAP ? new Set(ids) : undefined;
}

const asked = (expression: string, limit: number): Match[] => (st.matches.all(expression, limit) as Match[]).map((m) => ({ chunk: m.chunk, bm25: m.bm25 }));
/** Two of the three artifacts: the statistics BM25 scores with stay the whole index's. */
const partScope = (): string => JSON.stringify((db.prepare('SELECT id FROM artifacts ORDER BY id LIMIT 2').all() as { id: number }[]).map((r) => r.id));
const askedInPart = (expression: string, limit: number): Match[] =>
  (st.matchesInScope.all(expression, partScope(), limit) as Match[]).map((m) => ({ chunk: m.chunk, bm25: m.bm25 }));
const scoredInPart = (expression: string): Match[] => st.scoredInScope.all(expression, partScope()) as Match[];

describe('BM25 candidates without scoring every chunk of a common term', () => {
  it('has terms on both sides of DF_CAP, and the row count BM25 uses', () => {
    const df = (word: string) => st.docRows.all(parseQuery(word).terms[0]?.fts).length;
    expect(df('commit')).toBe(DF_CAP);
    expect(df('pika')).toBe(DF_CAP);
    expect(df('numbat')).toBeLessThan(DF_CAP);
    expect(df('wombat')).toBeGreaterThan(60);
    expect(df('quokka')).toBeLessThan(60);
    // BM25's row count, which the bound reads from FTS5's averages record, is the table's.
    expect(rowCount(st)).toBe((db.prepare('SELECT count(*) AS n FROM fts_docsize').get() as { n: number }).n);
  });

  it('answers what the every-term and any-term queries answer, score for score, over the whole index or part of it', () => {
    const used = { both: 0, everyOnly: 0, part: 0 };
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...QUERY_WORDS), { minLength: 2, maxLength: 4 }), fc.boolean(), (words, part) => {
        const { terms } = parseQuery(words.join(' '));
        const plan = part ? prunedCandidates(st, terms, holdersOf, { every: 40, any: 60 }, scoredInPart) : prunedCandidates(st, terms, holdersOf, { every: 40, any: 60 });
        if (plan === undefined) return;
        const best = part ? askedInPart : asked;
        const every = best(allOf(terms), 40);
        expect(plan.every).toEqual(every);
        expect(plan.everyComplete).toBe(every.length < 40);
        // Which of the chunks that hold a rare term hold the common one, asked of FTS5.
        const within = [...plan.common.within];
        const holders = (st.holdingOf.all(plan.common.term.fts, JSON.stringify(within)) as { id: number }[]).map((r) => r.id);
        expect([...plan.common.holders].sort((a, b) => a - b)).toEqual(holders.sort((a, b) => a - b));
        if (plan.any === undefined) {
          used.everyOnly += 1;
          return;
        }
        used.both += 1;
        if (part) used.part += 1;
        expect(plan.any).toEqual(best(anyOf(terms), 60));
      }),
      // With these, the bound fails: `pika` is common but only just, and the others' best
      // chunks score less than a chunk of `pika` alone could.
      { numRuns: 300, examples: [[['numbat', 'pika'], false], [['"shares create"', 'pika'], true], [['pika', 'numbat', 'absentword'], false]] },
    );
    // Both outcomes were met: the bound held for some queries (in part of the index too) and
    // not for others.
    expect(used.both).toBeGreaterThan(20);
    expect(used.part).toBeGreaterThan(5);
    expect(used.everyOnly).toBeGreaterThanOrEqual(3);
  });

  it('answers a search the same as the plan that asks both queries', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...QUERY_WORDS), { minLength: 1, maxLength: 4 }), async (words) => {
        const query = words.join(' ');
        const a = await whole.search.search({ query, sessionId: sessionId('big'), maxResults: 10 });
        const b = await scoped.search.search({ query, sessionId: sessionId('big'), maxResults: 10 });
        const comparable = (hits: readonly SpillSearchHit[], locators: readonly string[]) => hits.map((h) => ({ ...h, locator: locators.indexOf(h.locator) }));
        expect(comparable(a.hits, whole.locators)).toEqual(comparable(b.hits, scoped.locators));
        expect(a.more).toBe(b.more);
      }),
      { numRuns: 60, examples: [[['numbat', 'commit']], [['pika', 'wombat']], [['numbat', 'pika']]] },
    );
  });

  it('answers, for a query of common terms alone, what the every-term and any-term queries answer, over the whole index or part of it', () => {
    const used = { both: 0, everyOnly: 0 };
    const common = ['commit', 'author', 'merge', 'pika', 'shares', 'create', '"shares create"', 'commit author'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...common), { minLength: 2, maxLength: 4 }), fc.boolean(), (words, part) => {
        const { terms } = parseQuery(words.join(' '));
        if (terms.length < 2 || terms.some((t) => holdersOf(t) !== undefined)) return;
        const best = part ? askedInPart : asked;
        const plan = commonTermsCandidates(st, terms, { every: 40, any: 60 }, best);
        if (plan.any === undefined) {
          used.everyOnly += 1;
          const every = best(allOf(terms), 40);
          expect(plan.every).toEqual(every);
          expect(plan.everyComplete).toBe(every.length < 40);
          return;
        }
        used.both += 1;
        // The any-term answer, all of it given among the chunks that hold every term.
        expect(plan.any).toEqual(best(anyOf(terms), 60));
        const every = best(allOf(terms), 60);
        expect(plan.every).toEqual(every);
        expect(plan.everyComplete).toBe(every.length < 60);
      }),
      // `shares` and `create` stand together in many lines, so that the chunks holding both
      // outscore any chunk of one alone; `commit` is in every chunk (an IDF of about 0).
      {
        numRuns: 300,
        examples: [
          [['shares', 'create'], false],
          [['create', 'shares'], true],
          [['shares', 'create', '"shares create"'], false],
          [['"shares create"', 'create', 'shares'], true],
          [['create', 'shares', 'merge'], false],
          [['merge', 'pika'], true],
          [['commit', 'author'], false],
        ],
      },
    );
    // Both outcomes were met: the chunks holding every term answered for some queries, and
    // the any-term query had to be asked for others.
    expect(used.both).toBeGreaterThanOrEqual(2);
    expect(used.everyOnly).toBeGreaterThan(10);
  });

  it("gives a search of part of the index the candidates FTS5's own queries of that part give", () => {
    // Two of the three artifacts in scope, as for a session that shares its index with
    // others: the plans run through the joined statements.
    const ids = (db.prepare('SELECT id, locator FROM artifacts ORDER BY id LIMIT 2').all() as { id: number; locator: string }[]).map((r) => [r.id, r.locator] as const);
    const source = createRankingSource({ db, st, inScope: new Map(ids), memo: {}, lines: () => Promise.resolve(null) });
    const rows = (matches: readonly Match[]): Candidate[] => {
      const byId = new Map((st.chunksByIds.all(JSON.stringify(matches.map((m) => m.chunk))) as Omit<Candidate, 'bm25' | 'score'>[]).map((r) => [r.chunk, r]));
      return matches.flatMap((m) => {
        const row = byId.get(m.chunk);
        return row === undefined ? [] : [{ ...row, bm25: m.bm25, score: 0 }];
      });
    };
    const planned = { pruned: 0, common: 0 };
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...QUERY_WORDS, 'shares', 'create'), { minLength: 2, maxLength: 4 }), (words) => {
        const { terms } = parseQuery(words.join(' '));
        const got = source.candidates(terms, { every: 40, any: 60 });
        const any = rows(askedInPart(anyOf(terms), 60));
        const every = terms.length > 1 ? rows(askedInPart(allOf(terms), 60)) : [];
        expect(got.any).toEqual(any);
        // The first 40 are the every-term query's; any further ones are its next best,
        // given because they are the any-term answer.
        expect(got.every.slice(0, 40)).toEqual(every.slice(0, 40));
        expect(got.every.slice(40)).toEqual(got.every.length > 40 ? every.slice(40) : []);
        expect(got.everyComplete).toBe(terms.length > 1 && (got.every.length > 40 ? every.length < 60 : every.length < 40));
        // Which plan answered, as its own function tells for the same part.
        if (terms.length > 1 && prunedCandidates(st, terms, holdersOf, { every: 40, any: 60 }, scoredInPart)?.any !== undefined) planned.pruned += 1;
        if (terms.length > 1 && terms.every((t) => holdersOf(t) === undefined) && commonTermsCandidates(st, terms, { every: 40, any: 60 }, askedInPart).any !== undefined) planned.common += 1;
      }),
      { numRuns: 200, examples: [[['shares', 'create']], [['create', 'shares']], [['numbat', 'commit']], [['pika', 'wombat']]] },
    );
    expect(planned.pruned).toBeGreaterThan(10);
    expect(planned.common).toBeGreaterThanOrEqual(2);
  });

  it('is not used when two terms are common, or the common one stands between the others', () => {
    const terms = (q: string) => parseQuery(q).terms;
    expect(prunedCandidates(st, terms('commit author wombat'), holdersOf, { every: 40, any: 60 })).toBeUndefined();
    expect(prunedCandidates(st, terms('wombat commit bowtie'), holdersOf, { every: 40, any: 60 })).toBeUndefined();
    expect(prunedCandidates(st, terms('wombat commit'), holdersOf, { every: 40, any: 60 })?.any).toBeDefined();
  });

  it('knows that nothing holds every term when no chunk is in every set of holders', () => {
    fc.assert(
      fc.property(fc.array(fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { maxLength: 10 }), { maxLength: 4 }), (lists) => {
        const sets = lists.map((l) => new Set(l));
        const shared = [...Array(13).keys()].some((c) => sets.every((s) => s.has(c)));
        expect(noChunkInEvery(sets)).toBe(sets.length > 0 && !shared);
      }),
    );
  });
});
