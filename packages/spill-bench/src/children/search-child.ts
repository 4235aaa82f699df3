/**
 * One step of a search run, each in its own process so that its memory is its own:
 * `node search-child.js <prepare|spillway|baseline> <bytes> <artifacts> <queries> <dir>`.
 *
 * `prepare` saves `bytes` of real tool output (the search corpus, each repetition made
 * distinct) as `artifacts` artifacts of one session of a local backend under `dir`, and
 * exits: saving is not indexing, so its memory is not counted against the index. On that
 * root, `spillway` indexes them with `@spillway/search` (through the reader, as a search
 * does) and times `queries` searches; `baseline` inserts the same 24-line chunks straight
 * from the files into a bare contentless FTS5 table with the same tokenizer, and times the
 * same queries as a bare `MATCH … ORDER BY bm25 LIMIT 8`. One JSON line: the times, the
 * index size, the peak RSS before indexing and right after it (the max-RSS hook reports
 * the process's lifetime peak at exit).
 */
import { createReadStream, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { callId, sessionId } from '@spillway/core';
import { createLocalBackend } from '@spillway/local';
import { createBackendSearch, indexDirFor } from '@spillway/search';
import { peakRssBytes } from '../peak-rss.js';

const [mode, bytesArg, artifactsArg, queriesArg, dir] = process.argv.slice(2);
const total = Number(bytesArg);
const artifacts = Number(artifactsArg);
const queries = Number(queriesArg);
if ((mode !== 'prepare' && mode !== 'spillway' && mode !== 'baseline') || !(total > 0) || !(artifacts > 0) || !(queries > 0) || dir === undefined) {
  throw new TypeError('usage: search-child.js <prepare|spillway|baseline> <bytes> <artifacts> <queries> <dir>');
}
const root = path.join(dir, 'root');
const session = sessionId('bench-search');

// The corpus of real outputs the quality figures use (about 8 MiB). Only `prepare` reads
// it: it also writes the queries to a file, so that the processes measured hold neither.
const corpusDir = path.join(path.dirname(fileURLToPath(import.meta.resolve('@spillway/search/package.json'))), 'corpus', 'outputs');
const queriesFile = path.join(dir, 'queries.json');

function readCorpus(): string[] {
  return readdirSync(corpusDir).sort().map((f) => readFileSync(path.join(corpusDir, f), 'utf8'));
}

// eslint-disable-next-line @typescript-eslint/require-await
async function* artifactText(corpus: readonly string[], k: number, bytes: number): AsyncGenerator<string> {
  let left = bytes;
  for (let rep = 0; left > 0; rep++) {
    const piece = `### part ${String(k)}.${String(rep)}\n${corpus[(k + rep) % corpus.length] ?? ''}`;
    const cut = piece.length > left ? piece.slice(0, left) : piece;
    left -= cut.length;
    yield cut;
  }
}

// Two-word queries made of words that occur in the corpus, chosen deterministically.
function queryWords(corpus: readonly string[]): string[] {
  const words = [...new Set(corpus.flatMap((text) => text.match(/[A-Za-z][A-Za-z0-9_]{3,}/g) ?? []))].sort();
  const out: string[] = [];
  let x = 12345;
  for (let i = 0; i < queries; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const a = words[x % words.length] ?? 'error';
    x = (x * 1103515245 + 12345) % 2147483648;
    const b = words[x % words.length] ?? 'version';
    out.push(`${a} ${b}`);
  }
  return out;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}

const backend = createLocalBackend({ root, createRoot: true });
if (mode === 'prepare') {
  const corpus = readCorpus();
  const per = Math.ceil(total / artifacts);
  for (let k = 0; k < artifacts; k++) {
    await backend.saveTextStream({ owner: { sessionId: session }, source: { toolName: 'bench', callId: callId(`c${String(k)}`) }, suggestedName: 'out.txt', content: artifactText(corpus, k, Math.min(per, total - k * per)) });
  }
  writeFileSync(queriesFile, JSON.stringify(queryWords(corpus)));
  process.stdout.write(`${JSON.stringify({ saved: total })}\n`);
  process.exit(0);
}
const qs = JSON.parse(readFileSync(queriesFile, 'utf8')) as string[];
const rssBefore = peakRssBytes();
let rssIndexed: number;
const times: number[] = [];
let indexMs: number;
let indexBytes: number;

if (mode === 'spillway') {
  const search = await createBackendSearch(backend);
  const t0 = performance.now();
  await search.refresh({ sessionId: session });
  indexMs = performance.now() - t0;
  rssIndexed = peakRssBytes();
  for (const query of qs) {
    const t = performance.now();
    await search.search({ query, sessionId: session });
    times.push(performance.now() - t);
  }
  await search.close();
  const file = path.join(indexDirFor(await backend.root()), 'index.sqlite');
  indexBytes = (await fileSize(file)) + (await fileSize(`${file}-wal`));
} else {
  const Database = (await import('libsql')).default;
  const file = path.join(dir, 'bare.sqlite');
  const db = new Database(file);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE VIRTUAL TABLE t USING fts5(body, content = '', tokenize = 'porter unicode61');");
  const insert = db.prepare('INSERT INTO t (rowid, body) VALUES (?, ?)');
  const files: string[] = [];
  for await (const entry of backend.catalog.list({ sessionId: session })) files.push(entry.locator);
  const t0 = performance.now();
  let rowid = 0;
  for (const f of files) {
    let window: string[] = [];
    let batch: string[] = [];
    const flush = (): void => {
      const rows = batch;
      batch = [];
      db.transaction(() => {
        for (const body of rows) insert.run(++rowid, body);
      })();
    };
    for await (const line of createInterface({ input: createReadStream(f), crlfDelay: Infinity })) {
      window.push(line);
      if (window.length === 24) {
        batch.push(window.join('\n'));
        window = [];
        if (batch.length === 200) flush();
      }
    }
    if (window.length > 0) batch.push(window.join('\n'));
    flush();
  }
  indexMs = performance.now() - t0;
  rssIndexed = peakRssBytes();
  const select = db.prepare('SELECT rowid, bm25(t) AS r FROM t WHERE t MATCH ? ORDER BY r LIMIT 8');
  for (const query of qs) {
    const t = performance.now();
    select.all(query.split(' ').map((w) => `"${w}"`).join(' OR '));
    times.push(performance.now() - t);
  }
  db.close();
  indexBytes = (await fileSize(file)) + (await fileSize(`${file}-wal`));
}

process.stdout.write(
  `${JSON.stringify({ indexMs, indexBytes, textBytes: total, rssBefore, rssIndexed, p50: percentile(times, 50), p99: percentile(times, 99) })}\n`,
);
