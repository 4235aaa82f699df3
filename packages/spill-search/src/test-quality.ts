/**
 * The labelled set and how it is scored: the corpus (real outputs of tools run in this
 * repository, under `corpus/outputs`), the queries written before the engine
 * (`corpus/queries.json`), the held-out third, and the systems compared: `spill_search`
 * as the model gets it (one answer of at most 4 KiB), the baseline, grep of the query's
 * rarest word over every spill, cut at the same 4 KiB, and the oracle, told which output
 * answers the query and answering within the same 4 KiB from that output alone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callId, sessionId, type SessionId, type SpillBackend, type SpillLocator } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import { runSpillSearch } from '@spillway/tools';
import { createBackendSearch, type SpillSearch } from './index.js';

/** The answer budget both systems get. */
export const ANSWER_BYTES = 4096;

/** One labelled query. */
export interface LabelledQuery {
  readonly id: string;
  readonly kind: 'keyword' | 'question';
  readonly query: string;
  /** The output that holds the answer. */
  readonly file: string;
  /** Text the answer must show, inside a result from `file`. */
  readonly needle: string;
}

const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../corpus');

/** The labelled queries. */
export function labelledQueries(): LabelledQuery[] {
  return (JSON.parse(readFileSync(path.join(CORPUS, 'queries.json'), 'utf8')) as { queries: LabelledQuery[] }).queries;
}

/** FNV-1a of a string, 32 bits: the deterministic split. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** True for the held-out third (never used to tune). */
export function heldOut(q: LabelledQuery): boolean {
  return fnv1a(q.id) % 3 === 0;
}

/** The corpus saved as one session of a memory backend. */
export async function corpusSession(): Promise<{
  backend: SpillBackend & Required<Pick<SpillBackend, 'reader' | 'catalog'>>;
  session: SessionId;
  files: Map<SpillLocator, string>;
  bytes: number;
}> {
  const session = sessionId('labelled-set');
  const { backend, files, bytes } = await savedCorpus(() => session);
  return { backend, session, files, bytes };
}

/**
 * The corpus saved again, each output as a session of its own, in the same order: its
 * index holds the same chunks as {@link corpusSession}'s once every session is indexed,
 * so the same term statistics (BM25's and the coverage weights'), and a search of one
 * output's session is the engine with every other output taken out of scope.
 */
export async function oracleSessions(): Promise<{
  backend: SpillBackend & Required<Pick<SpillBackend, 'reader' | 'catalog'>>;
  /** Output name to the session that holds it alone. */
  sessions: Map<string, SessionId>;
  files: Map<SpillLocator, string>;
}> {
  const sessions = new Map<string, SessionId>();
  const { backend, files } = await savedCorpus((name) => {
    const session = sessionId(`only-${name}`);
    sessions.set(name, session);
    return session;
  });
  return { backend, sessions, files };
}

/** Every output of the corpus saved to a new memory backend, in name order, under the session `sessionOf` names. */
async function savedCorpus(sessionOf: (name: string) => SessionId): Promise<{
  backend: SpillBackend & Required<Pick<SpillBackend, 'reader' | 'catalog'>>;
  files: Map<SpillLocator, string>;
  bytes: number;
}> {
  const backend = createMemoryBackend({ maxBytes: 256 * 1024 * 1024 });
  const files = new Map<SpillLocator, string>();
  let bytes = 0;
  for (const name of readdirSync(path.join(CORPUS, 'outputs')).sort()) {
    const content = readFileSync(path.join(CORPUS, 'outputs', name), 'utf8');
    const ref = await backend.saveText({ owner: { sessionId: sessionOf(name) }, source: { toolName: 'bash', callId: callId(name) }, suggestedName: name, content });
    files.set(ref.locator, name);
    bytes += ref.bytes;
  }
  return { backend, files, bytes };
}

/** One system's answer to one query: whether the needle was shown, and at which rank. */
export interface Outcome {
  readonly hit: boolean;
  /** 1-based rank of the first result that shows the needle; 0 when none does. */
  readonly rank: number;
}

/** `spill_search` as a model calls it. */
export async function searchOutcome(search: SpillSearch, session: SessionId, files: Map<SpillLocator, string>, q: LabelledQuery): Promise<Outcome> {
  const answer = await runSpillSearch(search, { query: q.query }, { sessionId: session, maxSearchBytes: ANSWER_BYTES });
  if (answer.isError) throw new Error(answer.text);
  const rank = answer.data.hits.findIndex(
    (h) => files.get(h.locator) === q.file && (h.text.includes(q.needle) || (h.section?.text.includes(q.needle) ?? false)),
  );
  return { hit: rank >= 0, rank: rank + 1 };
}

const STOP = new Set('a an and are as at be by do does for from how i in is it of on or the this to was what which who why with'.split(' '));

/** The words a person would grep for: whitespace-separated, trimmed of sentence punctuation. */
export function grepWords(query: string): string[] {
  return query
    .split(/\s+/)
    .map((w) => w.replace(/^["'(]+|["'),.?!:;]+$/g, ''))
    .filter((w) => w.length > 1 && !STOP.has(w.toLowerCase()));
}

/**
 * Which word the baseline greps: `present`, the rarest among the words that occur in the
 * spills at all (a generous reading: it knows which words are absent); `strict`, the
 * rarest word even when that is a word absent from every spill (then grep finds nothing).
 */
export type GrepVariant = 'present' | 'strict';

/** Matching lines of each word over every spill, per backend. */
const lineCounts = new WeakMap<object, Map<string, number>>();
const lowered = new Map<string, string>();

/** An output of the corpus in lower case, read once. */
function lowerText(name: string): string {
  let text = lowered.get(name);
  if (text === undefined) lowered.set(name, (text = readFileSync(path.join(CORPUS, 'outputs', name), 'utf8').toLowerCase()));
  return text;
}

/**
 * How many lines of `text` hold `needle`, as `grep -c -i -F` counts them. Only the choice
 * of the rarest word uses it (the answer itself comes from the backend's own grep); it
 * counts in one pass of `indexOf` where a grep per word and output took minutes.
 */
export function linesHolding(text: string, needle: string): number {
  if (needle === '') return 0;
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; ) {
    count += 1;
    const end = text.indexOf('\n', at + needle.length);
    if (end < 0) break;
    at = text.indexOf(needle, end + 1);
  }
  return count;
}

/**
 * The query's rarest word over every spill (fewest matching lines, see {@link GrepVariant});
 * `undefined` when the query has no word to grep.
 */
function rarestWord(backend: object, files: Map<SpillLocator, string>, q: LabelledQuery, variant: GrepVariant): string | undefined {
  let rarest: string | undefined;
  let fewest = Infinity;
  let counts = lineCounts.get(backend);
  if (counts === undefined) lineCounts.set(backend, (counts = new Map<string, number>()));
  for (const word of grepWords(q.query)) {
    // A word's count is the same for every query (the match is case-insensitive), so it is
    // counted once per backend: the set has a few hundred distinct words.
    const key = word.toLowerCase();
    let n = counts.get(key);
    if (n === undefined) {
      n = 0;
      for (const name of files.values()) n += linesHolding(lowerText(name), key);
      counts.set(key, n);
    }
    if ((n > 0 || variant === 'strict') && n < fewest) {
      fewest = n;
      rarest = word;
    }
  }
  return rarest;
}

/**
 * The lines of the spills that hold `word` (case-insensitive, literal), as
 * `locator:line: text`, spill by spill, cut at the answer budget: a hit when one from
 * `q.file` shows the needle before the budget is spent.
 */
async function grepAnswer(
  backend: SpillBackend & Required<Pick<SpillBackend, 'reader'>>,
  spills: Iterable<[SpillLocator, string]>,
  q: LabelledQuery,
  word: string,
): Promise<Outcome> {
  let used = 0;
  let rank = 0;
  for (const [locator, file] of spills) {
    const { matches } = await backend.reader.grep(locator, word, { literal: true, ignoreCase: true, maxMatches: 1000 });
    for (const m of matches) {
      const row = `${locator}:${String(m.line)}: ${m.text}\n`;
      used += Buffer.byteLength(row);
      if (used > ANSWER_BYTES) return { hit: false, rank: 0 };
      rank += 1;
      if (file === q.file && m.text.includes(q.needle)) return { hit: true, rank };
    }
  }
  return { hit: false, rank: 0 };
}

/**
 * The baseline: the query's rarest word (fewest matching lines over every spill, see
 * {@link GrepVariant}) grepped, case-insensitive and literal, over every spill in turn;
 * the matching lines as `locator:line: text`, cut at the answer budget.
 */
export async function grepOutcome(
  backend: SpillBackend & Required<Pick<SpillBackend, 'reader'>>,
  files: Map<SpillLocator, string>,
  q: LabelledQuery,
  variant: GrepVariant = 'present',
): Promise<Outcome> {
  const rarest = rarestWord(backend, files, q, variant);
  if (rarest === undefined) return { hit: false, rank: 0 };
  return grepAnswer(backend, files, q, rarest);
}

/**
 * The oracle's engine: `spill_search` as a model calls it, over a session that holds only
 * the output that answers the query (see {@link oracleSessions}).
 */
export async function oracleSearchOutcome(search: SpillSearch, sessions: Map<string, SessionId>, files: Map<SpillLocator, string>, q: LabelledQuery): Promise<Outcome> {
  const session = sessions.get(q.file);
  if (session === undefined) throw new Error(`${q.id}: no output named ${q.file} in the corpus.`);
  return searchOutcome(search, session, files, q);
}

/**
 * The oracle's grep: grep restricted to the output that answers the query, of the word
 * the baseline greps (rarest over every spill) or of the query's word with the fewest
 * matching lines in that output, whichever shows the needle within the budget (the first
 * when both do). It finds whatever the baseline finds: its lines of that word are a
 * subset of the baseline's, in the same order.
 */
export async function oracleGrepOutcome(
  backend: SpillBackend & Required<Pick<SpillBackend, 'reader'>>,
  files: Map<SpillLocator, string>,
  q: LabelledQuery,
): Promise<Outcome> {
  const only = [...files].filter(([, file]) => file === q.file);
  const text = lowerText(q.file);
  let local: string | undefined;
  let fewest = Infinity;
  for (const word of grepWords(q.query)) {
    const n = linesHolding(text, word.toLowerCase());
    if (n > 0 && n < fewest) {
      fewest = n;
      local = word;
    }
  }
  const words = [...new Set([rarestWord(backend, files, q, 'present'), local].filter((w): w is string => w !== undefined))];
  for (const word of words) {
    const outcome = await grepAnswer(backend, only, q, word);
    if (outcome.hit) return outcome;
  }
  return { hit: false, rank: 0 };
}

/** The better of two outcomes: the first when it is a hit, else the second. */
export function either(first: Outcome, second: Outcome): Outcome {
  return first.hit ? first : second;
}

/** Hits and MRR of one system over a set of queries. */
export interface Score {
  readonly n: number;
  readonly hits: number;
  readonly mrr: number;
}

/** Sums outcomes. */
export function score(outcomes: readonly Outcome[]): Score {
  const hits = outcomes.filter((o) => o.hit).length;
  const mrr = outcomes.reduce((s, o) => s + (o.rank > 0 ? 1 / o.rank : 0), 0) / Math.max(1, outcomes.length);
  return { n: outcomes.length, hits, mrr: Math.round(mrr * 1000) / 1000 };
}

/** One split and kind of the set, every system's score. */
export interface QualityRow {
  readonly split: 'tune' | 'held-out';
  readonly kind: LabelledQuery['kind'];
  readonly search: Score;
  readonly grep: Score;
  readonly grepStrict: Score;
  /** The oracle: the better of {@link QualityRow.oracleSearch} and {@link QualityRow.oracleGrep}, query by query. */
  readonly oracle: Score;
  /** The engine told the right output (see {@link oracleSearchOutcome}). */
  readonly oracleSearch: Score;
  /** grep told the right output (see {@link oracleGrepOutcome}). */
  readonly oracleGrep: Score;
}

/** A query where search and the oracle differ. */
export interface OracleGap {
  readonly id: string;
  readonly split: QualityRow['split'];
  readonly kind: LabelledQuery['kind'];
  /** Which part of the oracle hit: its engine, its grep, or both. */
  readonly by: 'search' | 'grep' | 'both' | 'none';
}

/** Everything the quality test and the bench report: per split and kind, every system. */
export async function evaluate(): Promise<{
  rows: QualityRow[];
  misses: { id: string; split: string; search: Outcome; grep: Outcome }[];
  /** Queries the oracle finds and search misses. */
  oracleOnly: OracleGap[];
  /** Queries search finds and the oracle misses (it can: see docs/search.md). */
  searchOnly: OracleGap[];
}> {
  const { backend, session, files } = await corpusSession();
  const told = await oracleSessions();
  const search = await createBackendSearch(backend);
  const oracle = await createBackendSearch(told.backend);
  try {
    // Every output indexed before the first query, so that the oracle's index holds what
    // the main one does, with the same statistics, whichever session is searched first.
    await oracle.refresh();
    const results: { q: LabelledQuery; s: Outcome; g: Outcome; gs: Outcome; os: Outcome; og: Outcome }[] = [];
    for (const q of labelledQueries()) {
      results.push({
        q,
        s: await searchOutcome(search, session, files, q),
        g: await grepOutcome(backend, files, q, 'present'),
        gs: await grepOutcome(backend, files, q, 'strict'),
        os: await oracleSearchOutcome(oracle, told.sessions, told.files, q),
        og: await oracleGrepOutcome(backend, files, q),
      });
    }
    const splitOf = (q: LabelledQuery): QualityRow['split'] => (heldOut(q) ? 'held-out' : 'tune');
    const rows = (['tune', 'held-out'] as const).flatMap((split) =>
      (['keyword', 'question'] as const).map((kind) => {
        const part = results.filter((r) => r.q.kind === kind && splitOf(r.q) === split);
        return {
          split,
          kind,
          search: score(part.map((r) => r.s)),
          grep: score(part.map((r) => r.g)),
          grepStrict: score(part.map((r) => r.gs)),
          oracle: score(part.map((r) => either(r.os, r.og))),
          oracleSearch: score(part.map((r) => r.os)),
          oracleGrep: score(part.map((r) => r.og)),
        };
      }),
    );
    const misses = results.filter((r) => !r.s.hit).map((r) => ({ id: r.q.id, split: splitOf(r.q), search: r.s, grep: r.g }));
    const gap = (r: (typeof results)[number]): OracleGap => ({
      id: r.q.id,
      split: splitOf(r.q),
      kind: r.q.kind,
      by: r.os.hit && r.og.hit ? 'both' : r.os.hit ? 'search' : r.og.hit ? 'grep' : 'none',
    });
    const oracleOnly = results.filter((r) => !r.s.hit && (r.os.hit || r.og.hit)).map(gap);
    const searchOnly = results.filter((r) => r.s.hit && !r.os.hit && !r.og.hit).map(gap);
    return { rows, misses, oracleOnly, searchOnly };
  } finally {
    await search.close();
    await oracle.close();
  }
}
