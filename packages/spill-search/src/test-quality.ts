/**
 * The labelled set and how it is scored: the corpus (real outputs of tools run in this
 * repository, under `corpus/outputs`), the queries written before the engine
 * (`corpus/queries.json`), the held-out third, and the two systems compared: `spill_search`
 * as the model gets it (one answer of at most 4 KiB) and the baseline, grep of the query's
 * rarest word over every spill, cut at the same 4 KiB.
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
  const backend = createMemoryBackend({ maxBytes: 256 * 1024 * 1024 });
  const session = sessionId('labelled-set');
  const files = new Map<SpillLocator, string>();
  let bytes = 0;
  for (const name of readdirSync(path.join(CORPUS, 'outputs')).sort()) {
    const content = readFileSync(path.join(CORPUS, 'outputs', name), 'utf8');
    const ref = await backend.saveText({ owner: { sessionId: session }, source: { toolName: 'bash', callId: callId(name) }, suggestedName: name, content });
    files.set(ref.locator, name);
    bytes += ref.bytes;
  }
  return { backend, session, files, bytes };
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
  const words = grepWords(q.query);
  let rarest: string | undefined;
  let fewest = Infinity;
  let counts = lineCounts.get(backend);
  if (counts === undefined) lineCounts.set(backend, (counts = new Map<string, number>()));
  for (const word of words) {
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
  if (rarest === undefined) return { hit: false, rank: 0 };
  let used = 0;
  let rank = 0;
  for (const [locator, file] of files) {
    const { matches } = await backend.reader.grep(locator, rarest, { literal: true, ignoreCase: true, maxMatches: 1000 });
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

/** Everything the quality test and the bench report: per split and kind, both systems. */
export async function evaluate(): Promise<{
  rows: { split: 'tune' | 'held-out'; kind: LabelledQuery['kind']; search: Score; grep: Score; grepStrict: Score }[];
  misses: { id: string; split: string; search: Outcome; grep: Outcome }[];
}> {
  const { backend, session, files } = await corpusSession();
  const search = await createBackendSearch(backend);
  try {
    const results: { q: LabelledQuery; s: Outcome; g: Outcome; gs: Outcome }[] = [];
    for (const q of labelledQueries()) {
      results.push({
        q,
        s: await searchOutcome(search, session, files, q),
        g: await grepOutcome(backend, files, q, 'present'),
        gs: await grepOutcome(backend, files, q, 'strict'),
      });
    }
    const rows = (['tune', 'held-out'] as const).flatMap((split) =>
      (['keyword', 'question'] as const).map((kind) => {
        const part = results.filter((r) => r.q.kind === kind && heldOut(r.q) === (split === 'held-out'));
        return { split, kind, search: score(part.map((r) => r.s)), grep: score(part.map((r) => r.g)), grepStrict: score(part.map((r) => r.gs)) };
      }),
    );
    const misses = results.filter((r) => !r.s.hit).map((r) => ({ id: r.q.id, split: heldOut(r.q) ? 'held-out' : 'tune', search: r.s, grep: r.g }));
    return { rows, misses };
  } finally {
    await search.close();
  }
}
