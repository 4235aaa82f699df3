// One contract for spill_search, checked on every surface that offers it (the MCP proxy,
// the AI SDK and LangChain adapters, `spillway search --json`): over the same stored
// outputs, each request answers what the shared run answers (the policy's runSpillSearch
// over a searcher on the same backend), byte for byte for a model, hit for hit for the CLI.
import assert from 'node:assert/strict';
import { callId, sessionId, type SpillBackend, type SpillSearcher } from '@spillway/core';
import { runSpillSearch } from '@spillway/tools';

/** One stored output of the fixture. */
export interface SearchFixtureArtifact {
  readonly name: string;
  readonly content: string;
}

/** One `spill_search` request, as a model sends it, with what its best hit must hold. */
export interface SearchRequestCase {
  readonly args: { readonly query: string; readonly maxResults?: number };
  /** A line the first hit must show; `null` when nothing may match. */
  readonly expectTop: string | null;
}

/** A hit as every surface can name it. */
export interface SearchHitRange {
  readonly locator: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly text: string;
}

/** The shared run's answer to one request, which every surface must give. */
export interface SearchReference {
  /** The text a model is shown. */
  readonly text: string;
  /** The hits that text shows, in order. */
  readonly hits: readonly SearchHitRange[];
}

/** The session the fixture is stored in. */
export const SEARCH_SESSION = 'search-contract';

function dpkg(): string {
  const rows = ['Desired=Unknown/Install/Remove/Purge/Hold', '||/ Name  Version  Architecture  Description', '+++-====-=======-============-==========='];
  for (let i = 0; i < 600; i++) rows.push(`ii  lib-pkg${String(i)}  1.${String(i % 17)}.${String(i % 5)}-1  amd64  support library number ${String(i)}`);
  rows.splice(420, 0, 'ii  curl  7.88.1-10+deb12u14  amd64  command line tool for transferring data with URL syntax');
  rows.splice(77, 0, 'ii  openssl  3.0.17-1~deb12u2  amd64  Secure Sockets Layer toolkit - cryptographic utility');
  return rows.join('\n');
}

function gitLog(): string {
  const out: string[] = [];
  for (let c = 0; c < 60; c++) {
    out.push(`commit ${(c * 2654435761 >>> 0).toString(16).padStart(8, '0')}${'0'.repeat(32)}`, `Author: Dev ${String(c % 4)} <dev${String(c % 4)}@example.org>`, '', `    change ${String(c)} of the preview code`, '');
    out.push(`diff --git a/src/preview-${String(c)}.ts b/src/preview-${String(c)}.ts`, '@@ -1,3 +1,3 @@', `-const limit = ${String(c)};`, `+const limit = ${String(c + 1)};`);
    if (c === 41) out.push('+export const json_max_depth = 64; // deeper documents get a shape, not a cut');
  }
  return out.join('\n');
}

function serviceLog(): string {
  const lines: string[] = [];
  for (let i = 1; i <= 5000; i++) {
    if (i === 3210) lines.push('2026-12-01T10:53:30Z api ERROR TypeError: Cannot read properties of undefined (reading \'shardId\') at router.ts:88');
    else if (i === 4321) lines.push('2026-12-01T11:12:01Z db FATAL disk quota exceeded on shard 17 (ENOSPC)');
    else lines.push(`2026-12-01T10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z worker ${String(i)} heartbeat ok`);
  }
  return lines.join('\n');
}

/** Three outputs an agent produces (a package list, a patch log, a service log), stored in {@link SEARCH_SESSION}. */
export function searchFixture(): readonly SearchFixtureArtifact[] {
  return [
    { name: 'dpkg-l.txt', content: dpkg() },
    { name: 'git-log-p.txt', content: gitLog() },
    { name: 'service.log', content: serviceLog() },
  ];
}

/** The requests every surface answers: words, phrases, identifiers, query syntax that must stay words, a bound, and no match. */
export const SEARCH_REQUESTS: readonly SearchRequestCase[] = [
  { args: { query: 'disk quota exceeded' }, expectTop: 'FATAL disk quota exceeded on shard 17 (ENOSPC)' },
  { args: { query: 'curl transferring data' }, expectTop: 'ii  curl  7.88.1-10+deb12u14' },
  { args: { query: 'json_max_depth' }, expectTop: '+export const json_max_depth = 64;' },
  { args: { query: '"cannot read properties" error', maxResults: 2 }, expectTop: 'TypeError: Cannot read properties of undefined' },
  { args: { query: 'NEAR(openssl* ^toolkit', maxResults: 1 }, expectTop: 'ii  openssl  3.0.17-1~deb12u2' },
  { args: { query: 'heartbeat worker', maxResults: 12 }, expectTop: 'heartbeat ok' },
  { args: { query: 'zebra xylophone' }, expectTop: null },
];

const HEADER = /^\[(\d+)\] (\S+) lines? (\d+)(?:-(\d+))?(?: \(long lines cut\))?$/gm;

/** The hits a model-facing `spill_search` answer names, from its `[n] <locator> lines a-b` headers. */
export function hitsNamedIn(text: string): { locator: string; startLine: number; endLine: number }[] {
  const named: { locator: string; startLine: number; endLine: number }[] = [];
  for (const m of text.matchAll(HEADER)) {
    const start = Number(m[3]);
    named.push({ locator: m[2] ?? '', startLine: start, endLine: m[4] === undefined ? start : Number(m[4]) });
  }
  return named;
}

function checkReference(c: SearchRequestCase, reference: SearchReference): void {
  const where = JSON.stringify(c.args);
  if (c.expectTop === null) {
    assert.deepEqual(reference.hits, [], `${where}: nothing may match`);
    return;
  }
  assert.ok(reference.hits.length > 0, `${where}: the shared run found nothing`);
  assert.ok(reference.hits[0]?.text.includes(c.expectTop), `${where}: the first hit does not show ${JSON.stringify(c.expectTop)}`);
  if (c.args.maxResults !== undefined) assert.ok(reference.hits.length <= c.args.maxResults, `${where}: more hits than maxResults`);
  assert.deepEqual(
    hitsNamedIn(reference.text),
    reference.hits.map(({ locator, startLine, endLine }) => ({ locator, startLine, endLine })),
    `${where}: the text names other hits than it holds`,
  );
}

/**
 * For every {@link SEARCH_REQUESTS} case: a model-facing surface answers exactly the
 * reference's text (not an error), and that text names the reference's hits.
 */
export async function expectSameSearchAnswers(
  surface: (args: SearchRequestCase['args']) => Promise<{ readonly text: string; readonly isError: boolean }>,
  reference: (args: SearchRequestCase['args']) => Promise<SearchReference>,
): Promise<void> {
  for (const c of SEARCH_REQUESTS) {
    const expected = await reference(c.args);
    checkReference(c, expected);
    const got = await surface(c.args);
    assert.equal(got.isError, false, `${JSON.stringify(c.args)}: the surface answered an error: ${got.text}`);
    assert.equal(got.text, expected.text, `${JSON.stringify(c.args)}: the surface answers otherwise than the shared run`);
  }
}

/** For every {@link SEARCH_REQUESTS} case: a surface that lists hits (the CLI's `--json`) lists the reference's, in order. */
export async function expectSameSearchHits(
  surface: (args: SearchRequestCase['args']) => Promise<readonly SearchHitRange[]>,
  reference: (args: SearchRequestCase['args']) => Promise<SearchReference>,
): Promise<void> {
  for (const c of SEARCH_REQUESTS) {
    const expected = await reference(c.args);
    checkReference(c, expected);
    const got = (await surface(c.args)).map(({ locator, startLine, endLine, text }) => ({ locator, startLine, endLine, text }));
    assert.deepEqual(got, expected.hits.map(({ locator, startLine, endLine, text }) => ({ locator, startLine, endLine, text })), `${JSON.stringify(c.args)}: other hits than the shared run`);
  }
}

/** Saves {@link searchFixture} into {@link SEARCH_SESSION} of a backend, as a shell tool's outputs. */
export async function saveSearchFixture(backend: Pick<SpillBackend, 'saveText'>): Promise<void> {
  for (const [i, a] of searchFixture().entries()) {
    await backend.saveText({ owner: { sessionId: sessionId(SEARCH_SESSION) }, source: { toolName: 'bash', callId: callId(`c${String(i)}`) }, suggestedName: a.name, content: a.content });
  }
}

/**
 * The shared run every surface is held to: the policy's `runSpillSearch` over `searcher`,
 * in {@link SEARCH_SESSION}, with the default bounds. An error answer fails the check.
 */
export function sharedSearchRun(searcher: SpillSearcher): (args: SearchRequestCase['args']) => Promise<SearchReference> {
  return async (args) => {
    const answer = await runSpillSearch(searcher, args, { sessionId: sessionId(SEARCH_SESSION) });
    if (answer.isError) throw new Error(answer.text);
    return { text: answer.text, hits: answer.data.hits };
  };
}
