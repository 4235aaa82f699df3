import { createHash } from 'node:crypto';
import { open, readdir, readFile } from 'node:fs/promises';

/**
 * What a corpus output is: a failure (its needles are what a person debugging needs), a JSON
 * result, a lookup, or a list (its needles are items a later step picks from its middle).
 */
export type CorpusKind = 'failure' | 'json' | 'lookup' | 'list';

/** One real output of a real tool, with the lines a person needs from it (written before any tuning). */
export interface CorpusCase {
  readonly name: string;
  readonly kind: CorpusKind;
  readonly needles: readonly string[];
  readonly text: string;
  /** Held out: never looked at while tuning. */
  readonly heldOut: boolean;
}

/** Where the corpus lives: `corpus/preview` of this package (next to `dist`). */
export const CORPUS_DIR = new URL('../corpus/preview/', import.meta.url);
/** The list corpus: `corpus/lists`, real list outputs (`find`, `ls -l`, `git log`, JSON and NDJSON listings, JSON test reports). */
export const LIST_CORPUS_DIR = new URL('../corpus/lists/', import.meta.url);

/**
 * The held-out third, decided by name alone: the names sorted by their SHA-256, every third
 * one (from the first) held out.
 */
export function heldOutNames(names: readonly string[]): Set<string> {
  const digest = (name: string): string => createHash('sha256').update(name).digest('hex');
  const sorted = [...names].sort((a, b) => (digest(a) < digest(b) ? -1 : digest(a) > digest(b) ? 1 : 0));
  return new Set(sorted.filter((_, i) => i % 3 === 0));
}

/** Reads the corpus: `labels.json` and `outputs/<name>.txt`. */
export async function loadCorpus(dir: URL = CORPUS_DIR): Promise<CorpusCase[]> {
  const labels = JSON.parse(await readFile(new URL('labels.json', dir), 'utf8')) as Record<string, { kind: CorpusKind; needles: string[] }>;
  const names = Object.keys(labels).sort();
  const held = heldOutNames(names);
  const cases: CorpusCase[] = [];
  for (const name of names) {
    const label = labels[name] as { kind: CorpusKind; needles: string[] };
    const text = await readFile(new URL(`outputs/${name}.txt`, dir), 'utf8');
    cases.push({ name, kind: label.kind, needles: label.needles, text, heldOut: held.has(name) });
  }
  return cases;
}

/** How one preview did on one case. */
export interface CaseScore {
  readonly name: string;
  readonly kept: number;
  readonly needles: number;
  /** Whether every needle is in the preview. */
  readonly all: boolean;
}

/** Scores a preview: a needle is kept when the preview holds it verbatim. */
export function scoreCase(c: CorpusCase, preview: string): CaseScore {
  let kept = 0;
  for (const needle of c.needles) if (preview.includes(needle)) kept++;
  return { name: c.name, kept, needles: c.needles.length, all: kept === c.needles.length };
}

/** Totals for one part of the corpus, one cap, one preview. */
export interface PartScore {
  /** Failure outputs whose every needle was kept. */
  readonly casesKept: number;
  readonly cases: number;
  /** Needles kept, over failures and JSON results. */
  readonly needlesKept: number;
  readonly needles: number;
  readonly scores: readonly CaseScore[];
}

/** Sums the scores of failure outputs (cases) and of every labelled output (needles). */
export function sumScores(cases: readonly CorpusCase[], scores: readonly CaseScore[]): PartScore {
  let casesKept = 0;
  let count = 0;
  let needlesKept = 0;
  let needles = 0;
  scores.forEach((s, i) => {
    const c = cases[i] as CorpusCase;
    needlesKept += s.kept;
    needles += s.needles;
    if (c.kind !== 'failure') return;
    count++;
    if (s.all) casesKept++;
  });
  return { casesKept, cases: count, needlesKept, needles, scores };
}

/** Cases that head and tail kept whole and the new preview did not. */
export function lostCases(newer: PartScore, older: PartScore): string[] {
  return newer.scores.filter((s, i) => !s.all && s.needles > 0 && (older.scores[i] as CaseScore).all).map((s) => s.name);
}

/** The corpus's outputs, in name order, joined: real logs of real tools. */
async function corpusOutputs(): Promise<Buffer> {
  const dir = new URL('outputs/', CORPUS_DIR);
  const names = (await readdir(dir)).filter((n) => n.endsWith('.txt')).sort();
  return Buffer.concat(await Promise.all(names.map((n) => readFile(new URL(n, dir)))));
}

/**
 * The corpus's outputs repeated to make `bytes` bytes of real log text (cut at `bytes`):
 * the large output that the cost figures of the scan measure.
 */
export async function corpusLogText(bytes: number): Promise<Buffer> {
  const corpus = await corpusOutputs();
  const out = Buffer.allocUnsafe(bytes);
  for (let at = 0; at < bytes; at += corpus.length) corpus.copy(out, at, 0, Math.min(corpus.length, bytes - at));
  return out;
}

/** Writes {@link corpusLogText} of `bytes` into `file`, a piece at a time (a gigabyte is never held). */
export async function writeCorpusLog(file: string, bytes: number): Promise<void> {
  const corpus = await corpusOutputs();
  const out = await open(file, 'w');
  try {
    for (let written = 0; written < bytes; written += corpus.length) await out.write(corpus, 0, Math.min(corpus.length, bytes - written));
  } finally {
    await out.close();
  }
}
