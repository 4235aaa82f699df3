/**
 * The search contract, over any backend with a reader and a catalog: whatever searcher
 * the options give (by default `@spillway/search`), seen only through core's
 * `SpillSearcher`. Every hit is checked against what the test saved and against the
 * backend's own `reader.read` at the lines it claims.
 */
import {
  DEFAULT_SEARCH_MAX_BYTES,
  DEFAULT_SEARCH_MAX_RESULTS,
  MAX_SEARCH_QUERY_LENGTH,
  MAX_SEARCH_RESULTS,
  isSpillError,
  sessionId,
  spillLocator,
  utf8ByteLength,
  type SpillReader,
  type SpillSearchHit,
  type SpillSearchRequest,
  type SpillSearcher,
} from '@spillway/core';
import fc from 'fast-check';
import { describe, it, type TestContext } from 'vitest';
import { ConformanceFailure, describeError, fail, withHarness, type Harness } from '../harness.js';
import type { ConformanceSearchFactory, ResolvedConformanceOptions, SpillBackendFixture } from '../options.js';
import { loadDefaultSearch, type LoadedSearch } from '../search-loader.js';
import { toStoredText } from '../text.js';
import { fcParams } from './fc-params.js';

/** What a search test saved, by locator: the only artifacts a hit may come from. */
type Saved = Map<string, string>;

/** A search test body: a fresh harness, a searcher over its backend, and vitest's context. */
type SearchBody<F extends SpillBackendFixture> = (h: Harness<F>, searcher: SpillSearcher, ctx: TestContext) => Promise<void>;

let defaultSearch: Promise<LoadedSearch> | undefined;

async function searcherFactory<F extends SpillBackendFixture>(options: ResolvedConformanceOptions<F>, ctx: TestContext): Promise<ConformanceSearchFactory<F>> {
  if (options.search === false) return ctx.skip('search tests turned off (search: false)');
  if (options.search !== undefined) return options.search;
  defaultSearch ??= loadDefaultSearch();
  const loaded = await defaultSearch;
  if ('skip' in loaded) return ctx.skip(loaded.skip);
  return loaded.factory;
}

function numbered(n: number, make: (i: number) => string): string {
  return Array.from({ length: n }, (_, i) => make(i + 1)).join('\n') + '\n';
}

/** The lines of a stored text as a hit shows them: split at `\n`, no phantom line after a final one. */
function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

/**
 * Checks one hit: it names an artifact the test saved in scope, and its text is that
 * artifact's lines `startLine`..`endLine`, verbatim (a cut line shows a part of the real
 * one), both in what was saved and in what the backend's `read` answers there.
 */
async function expectVerbatim(reader: SpillReader, saved: Saved, hit: SpillSearchHit, what: string): Promise<void> {
  const content = saved.get(hit.locator);
  if (content === undefined) fail(`${what}: a hit names ${hit.locator}, which is not an artifact saved in the scope searched`);
  if (!Number.isSafeInteger(hit.startLine) || hit.startLine < 1 || !Number.isSafeInteger(hit.endLine) || hit.endLine < hit.startLine) {
    fail(`${what}: a hit claims lines ${String(hit.startLine)}..${String(hit.endLine)}`);
  }
  if (typeof hit.text !== 'string' || typeof hit.truncated !== 'boolean') fail(`${what}: a hit lacks a string text or a boolean truncated`);
  const count = hit.endLine - hit.startLine + 1;
  const shown = hit.text.split('\n');
  if (shown.length !== count) fail(`${what}: a hit claims lines ${String(hit.startLine)}..${String(hit.endLine)} but shows ${String(shown.length)} lines`);
  const stored = linesOf(toStoredText(content));
  if (hit.endLine > stored.length) fail(`${what}: a hit claims line ${String(hit.endLine)} of an artifact of ${String(stored.length)} lines`);
  const page = await reader.read(hit.locator, { offset: hit.startLine, limit: count, maxBytes: 1024 * 1024 });
  const read = linesOf(page.text);
  const sources: [string, string[]][] = [
    ['what was saved', stored.slice(hit.startLine - 1, hit.endLine)],
    [`read({ offset: ${String(hit.startLine)}, limit: ${String(count)} })`, read],
  ];
  for (const [source, real] of sources) {
    shown.forEach((line, i) => {
      const actual = real[i] ?? '';
      // A line cut short still shows part of it: an empty line stands only for an empty one.
      const ok = hit.truncated ? actual.includes(line) && (line !== '' || actual === '') : actual === line;
      if (!ok) fail(`${what}: line ${String(hit.startLine + i)} of a hit is ${JSON.stringify(line.slice(0, 120))}, but ${source} has ${JSON.stringify(actual.slice(0, 120))} there`);
    });
  }
  if (hit.section !== undefined) {
    const { line, text } = hit.section;
    if (!Number.isSafeInteger(line) || line < 1 || line > hit.startLine) fail(`${what}: a hit starting at line ${String(hit.startLine)} names section line ${String(line)}`);
    if (!(stored[line - 1] ?? '').startsWith(text)) fail(`${what}: section line ${String(line)} is shown as ${JSON.stringify(text)}, not as the artifact has it`);
  }
}

/** `Array.isArray` without its narrowing to `any[]`. */
function isArray(value: unknown): boolean {
  return Array.isArray(value);
}

/** Searches, then checks the bounds and every hit. */
async function searchChecked(searcher: SpillSearcher, reader: SpillReader, saved: Saved, request: SpillSearchRequest): Promise<SpillSearchHit[]> {
  const what = `search(${JSON.stringify({ ...request, query: request.query.slice(0, 60) })})`;
  const answer = await searcher.search(request);
  const hits: readonly SpillSearchHit[] = answer.hits;
  if (!isArray(hits) || typeof answer.more !== 'boolean') fail(`${what} answered no hits array or no boolean more`);
  const maxResults = Math.min(request.maxResults ?? DEFAULT_SEARCH_MAX_RESULTS, MAX_SEARCH_RESULTS);
  if (hits.length > maxResults) fail(`${what} answered ${String(hits.length)} hits, more than the ${String(maxResults)} allowed`);
  const bytes = hits.reduce((n, hit) => n + utf8ByteLength(hit.text), 0);
  const maxBytes = request.maxBytes ?? DEFAULT_SEARCH_MAX_BYTES;
  if (bytes > maxBytes) fail(`${what} answered ${String(bytes)} bytes of snippets, more than maxBytes ${String(maxBytes)}`);
  for (const hit of hits) await expectVerbatim(reader, saved, hit, what);
  return [...hits];
}

/** Registers the search tests (skipped without a reader, a catalog or a searcher). */
export function describeSearch<F extends SpillBackendFixture>(options: ResolvedConformanceOptions<F>): void {
  const test = (title: string, body: SearchBody<F>): void => {
    it(
      title,
      async (ctx) => {
        const factory = await searcherFactory(options, ctx);
        await withHarness(options, async (h) => {
          h.requireReader(ctx);
          h.requireCatalog(ctx);
          const searcher = await factory(h.backend, h.fixture);
          try {
            await body(h, searcher, ctx);
          } finally {
            await searcher.close?.();
          }
        });
      },
      options.testTimeoutMs,
    );
  };

  /** Saves in `session` and records what was saved under its locator. */
  const keep = async (h: Harness<F>, saved: Saved, session: string, content: string): Promise<string> => {
    const ref = await h.save(content, { sessionId: session });
    saved.set(ref.locator, content);
    return ref.locator;
  };

  describe('search', () => {
    test('answers a line deep in an artifact with its locator and lines that read gives back verbatim', async (h, searcher) => {
      const saved: Saved = new Map();
      const text = numbered(3000, (i) => (i === 2222 ? 'ERROR: json_max_depth exceeded while parsing payload' : `info: request ${String(i)} served in ${String(i % 17)} ms`));
      const locator = await keep(h, saved, 'search-deep', text);
      const hits = await searchChecked(searcher, h.backend.reader as SpillReader, saved, { query: 'json_max_depth', sessionId: sessionId('search-deep') });
      const hit = hits[0];
      if (hit === undefined) return fail('a search for a word on line 2222 answered nothing');
      if (hit.locator !== locator) fail(`the best hit is in ${hit.locator}, not in the one artifact that holds the word`);
      if (hit.startLine > 2222 || hit.endLine < 2222) fail(`the best hit covers lines ${String(hit.startLine)}..${String(hit.endLine)}, not line 2222 that holds the word`);
    });

    test('answers a short line below very long ones with that line, verbatim', async (h, searcher) => {
      const saved: Saved = new Map();
      // Six lines of 11,000 bytes fill a 64 KiB read before line 7: a searcher that reads
      // context above a chunk must still show the line itself, never an empty stand-in.
      const text = `${Array.from({ length: 6 }, (_, i) => `${String(i)} ${'x'.repeat(11_000)}`).join('\n')}\nthe wombat sleeps on line seven\nand the end\n`;
      await keep(h, saved, 'search-long-above', text);
      const hits = await searchChecked(searcher, h.backend.reader as SpillReader, saved, { query: 'wombat', sessionId: sessionId('search-long-above') });
      if (!hits.some((hit) => hit.text.includes('the wombat sleeps on line seven'))) fail('a search for a word on a short line below six long ones did not show that line');
    });

    test("searches only the session asked for: another session's artifact is never answered", async (h, searcher) => {
      const reader = h.backend.reader as SpillReader;
      const inA: Saved = new Map();
      const inB: Saved = new Map();
      await keep(h, inA, 'search-scope-a', 'the quokka lives on Rottnest\n');
      await keep(h, inB, 'search-scope-b', 'a quokka photo went viral\n');
      // A large one too, and one streamed: backends often store those on another path.
      await keep(h, inB, 'search-scope-b', numbered(2000, (i) => (i === 1500 ? 'quokka census, large output' : `padding line ${String(i)} ${'p'.repeat(40)}`)));
      const streamed = 'streamed quokka sighting\n';
      const ref = await h.backend.saveTextStream(h.streamRequest(['streamed ', 'quokka sighting\n'], { sessionId: 'search-scope-b' }));
      inB.set(ref.locator, streamed);
      const onlyA = await searchChecked(searcher, reader, inA, { query: 'quokka', sessionId: sessionId('search-scope-a') });
      if (onlyA.length === 0) fail("a search of session A answered none of A's artifact");
      const onlyB = await searchChecked(searcher, reader, inB, { query: 'quokka', sessionId: sessionId('search-scope-b'), maxResults: 20 });
      if (new Set(onlyB.map((hit) => hit.locator)).size !== inB.size) fail(`a search of session B answered ${String(new Set(onlyB.map((hit) => hit.locator)).size)} of its ${String(inB.size)} artifacts`);
      await searchChecked(searcher, reader, new Map(), { query: 'quokka', sessionId: sessionId('search-scope-nobody') });
      const all = await searchChecked(searcher, reader, new Map([...inA, ...inB]), { query: 'quokka', maxResults: 20 });
      if (new Set(all.map((hit) => hit.locator)).size !== inA.size + inB.size) fail('a search of every session did not answer every artifact that holds the word');
    });

    test('finds a new save on the next search, and never answers a deleted artifact again', async (h, searcher) => {
      const reader = h.backend.reader as SpillReader;
      const catalog = h.backend.catalog;
      if (catalog === undefined) return fail('the search tests need a catalog');
      const session = sessionId('search-follow');
      const saved: Saved = new Map();
      const first = await keep(h, saved, session, 'alpha marmot one\n');
      const once = await searchChecked(searcher, reader, saved, { query: 'marmot', sessionId: session });
      if (once.map((hit) => hit.locator).join() !== first) fail('the first search did not answer the one artifact saved');
      const second = await keep(h, saved, session, 'beta marmot two\n');
      const both = await searchChecked(searcher, reader, saved, { query: 'marmot', sessionId: session });
      if (!both.some((hit) => hit.locator === second)) fail('an artifact saved after a search is not found by the next search');
      if (!(await catalog.delete(spillLocator(first)))) fail('delete of a stored artifact answered false');
      saved.delete(first);
      for (const request of [{ query: 'marmot', sessionId: session }, { query: 'alpha marmot' }, { query: '"alpha marmot one"' }]) {
        const after = await searchChecked(searcher, reader, saved, request);
        if (after.some((hit) => hit.locator === first)) fail(`${JSON.stringify(request)} answered a deleted artifact`);
      }
    });

    test('matches identifiers, paths and camelCase parts', async (h, searcher) => {
      const reader = h.backend.reader as SpillReader;
      const saved: Saved = new Map();
      const session = sessionId('search-identifiers');
      await keep(h, saved, session, [
        ...Array.from({ length: 200 }, (_, i) => `ok ${String(i)} nothing here`),
        ' FAIL  src/preview.test.ts:57:12 expected 3 to be 4',
        'TypeError: Cannot read properties of undefined (reading "length")',
        'config.json_max_depth = 64',
      ].join('\n'));
      const expectations: [string, string][] = [
        ['preview.test.ts:57', 'src/preview.test.ts:57:12'],
        ['json_max_depth', 'config.json_max_depth = 64'],
        ['error undefined', 'TypeError: Cannot read'],
        ['"cannot read properties"', 'TypeError: Cannot read'],
      ];
      for (const [query, expected] of expectations) {
        const hits = await searchChecked(searcher, reader, saved, { query, sessionId: session });
        if (!(hits[0]?.text ?? '').includes(expected)) fail(`the best hit for ${JSON.stringify(query)} does not show ${JSON.stringify(expected)}`);
      }
    });

    test('treats query syntax as plain words: NEAR(, *, ^, column filters and stray quotes are harmless', async (h, searcher) => {
      const reader = h.backend.reader as SpillReader;
      const saved: Saved = new Map();
      const session = sessionId('search-hostile');
      await keep(h, saved, session, 'body: NEAR the wildcard * and caret ^ live here\nanother line\n');
      const queries = ['NEAR(', 'NEAR(a b, 2)', '*', 'wild*', '^caret', 'body:', 'body: NEAR', '"unbalanced', '"', '""', 'a AND OR NOT b', '(((', ')', '-', '\u0000', 'col:val "x', '{body}: caret'];
      for (const query of queries) {
        try {
          await searchChecked(searcher, reader, saved, { query, sessionId: session });
        } catch (error) {
          if (error instanceof ConformanceFailure) throw error;
          fail(`search(${JSON.stringify(query)}) rejected (${describeError(error)}): a model's text must never be parsed as query syntax`);
        }
      }
      const near = await searchChecked(searcher, reader, saved, { query: 'NEAR(', sessionId: session });
      if (!(near[0]?.text ?? '').includes('NEAR the wildcard')) fail('search("NEAR(") did not find the line holding NEAR');
      const column = await searchChecked(searcher, reader, saved, { query: 'body: caret', sessionId: session });
      if (!(column[0]?.text ?? '').includes('caret ^')) fail('search("body: caret") did not find the line holding those words');
    });

    test('keeps every answer within maxBytes and maxResults, whatever they ask', async (h, searcher) => {
      const reader = h.backend.reader as SpillReader;
      const saved: Saved = new Map();
      const session = sessionId('search-bounds');
      for (let k = 0; k < 6; k += 1) await keep(h, saved, session, numbered(400, (i) => `gecko ${String(k)}-${String(i)} ${'x'.repeat(i % 90)}`));
      const requests: Omit<SpillSearchRequest, 'query'>[] = [{}, { maxResults: 1 }, { maxResults: 3, maxBytes: 256 }, { maxResults: 50, maxBytes: 1024 }, { maxResults: 50, maxBytes: 4096 }, { maxResults: 50 }];
      for (const request of requests) {
        const hits = await searchChecked(searcher, reader, saved, { ...request, query: 'gecko', sessionId: session });
        if (hits.length === 0) fail(`search(${JSON.stringify(request)}) for a word on 2400 lines answered nothing`);
      }
    });

    test('rejects a bad request with SPILL_INVALID_INPUT', async (_h, searcher) => {
      const bad = [{ query: 3 }, { query: 'x', maxResults: 0 }, { query: 'x', maxResults: 1.5 }, { query: 'x', maxBytes: -1 }, { query: 'x', maxBytes: 1.5 }, { query: 'x'.repeat(MAX_SEARCH_QUERY_LENGTH + 1) }];
      for (const request of bad) {
        let error: unknown;
        try {
          await searcher.search(request as never);
        } catch (caught) {
          error = caught;
        }
        if (!isSpillError(error, 'SPILL_INVALID_INPUT')) fail(`search(${JSON.stringify(request).slice(0, 80)}) answered ${error === undefined ? 'hits' : describeError(error)}, not SPILL_INVALID_INPUT`);
      }
    });

    const WORDS = ['alpha', 'build', 'cache', 'delta', 'error', 'fetch', 'green', 'index', 'json', 'kernel', 'local', 'merge', 'node', 'output', 'path', 'query', 'retry', 'stack', 'token', 'value'];
    const output = fc
      .record({
        lines: fc.array(fc.array(fc.constantFrom(...WORDS), { maxLength: 8 }).map((words) => words.join(' ')), { minLength: 1, maxLength: 40 }),
        at: fc.nat(),
        planted: fc.stringMatching(/^[a-z]{4,8}$/).map((s) => `zq${s}`),
        maxBytes: fc.integer({ min: 256, max: 4096 }),
        maxResults: fc.integer({ min: 1, max: 20 }),
        finalNewline: fc.boolean(),
      })
      .map(({ lines, at, planted, finalNewline, ...bounds }) => {
        const line = at % lines.length;
        const withWord = lines.map((l, i) => (i === line ? `${l} ${planted} ${l}`.trim() : l));
        return { text: withWord.join('\n') + (finalNewline ? '\n' : ''), line: line + 1, planted, ...bounds };
      });

    test('property: a word planted in any small output is found, verbatim at its line and within the bounds', async (h, searcher) => {
      const reader = h.backend.reader as SpillReader;
      let run = 0;
      await fc.assert(
        fc.asyncProperty(output, async ({ text, line, planted, maxBytes, maxResults }) => {
          run += 1;
          const session = `search-property-${String(run)}`;
          const saved: Saved = new Map();
          const locator = await keep(h, saved, session, text);
          const hits = await searchChecked(searcher, reader, saved, { query: planted, sessionId: sessionId(session), maxBytes, maxResults });
          const hit = hits[0];
          if (hit === undefined) return fail(`a word planted on line ${String(line)} was not found`);
          if (hit.locator !== locator || hit.startLine > line || hit.endLine < line || !hit.text.includes(planted)) {
            fail(`the best hit covers lines ${String(hit.startLine)}..${String(hit.endLine)} without the word planted on line ${String(line)}`);
          }
        }),
        fcParams(options, options.numRuns),
      );
    });
  });
}
