/**
 * The search contract, run over any backend with a reader and a catalog: what a search
 * answers (locators and line ranges that `read` follows verbatim), session scope, an index
 * that follows saves and deletes, identifiers, hostile queries, sections and the byte bound.
 */
import { callId, sessionId, type SessionId, type SpillBackend, type SpillLocator, type SpillSearchHit } from '@spillway/core';
import { runSpillSearch } from '@spillway/policy/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { createBackendSearch, type SpillSearch } from './index.js';

/** A backend that can be searched. */
export type SearchableBackend = SpillBackend & Required<Pick<SpillBackend, 'reader' | 'catalog'>>;

/** Makes a fresh backend (and its index location) for one test. */
export type SearchableFactory = () => Promise<{ backend: SearchableBackend; location?: string; cleanup?: () => Promise<void> }>;

let counter = 0;

/** Saves `content` in `session` and answers its locator. */
export async function save(backend: SpillBackend, session: SessionId, content: string, name = 'out.txt'): Promise<SpillLocator> {
  counter += 1;
  const ref = await backend.saveText({ owner: { sessionId: session }, source: { toolName: 'bash', callId: callId(`c${String(counter)}`) }, suggestedName: name, content });
  return ref.locator;
}

/** Checks that a hit is what `read` gives at the lines it names. */
export async function expectVerbatim(backend: SearchableBackend, hit: SpillSearchHit): Promise<void> {
  const read = await backend.reader.read(hit.locator, { offset: hit.startLine, limit: hit.endLine - hit.startLine + 1, maxBytes: 1024 * 1024 });
  const real = read.text.endsWith('\n') ? read.text.slice(0, -1).split('\n') : read.text.split('\n');
  const shown = hit.text.split('\n');
  expect(shown.length).toBe(hit.endLine - hit.startLine + 1);
  if (!hit.truncated) {
    expect(shown).toEqual(real);
  } else {
    shown.forEach((line, i) => {
      expect(real[i] ?? '').toContain(line);
    });
  }
}

function numbered(n: number, make: (i: number) => string): string {
  return Array.from({ length: n }, (_, i) => make(i + 1)).join('\n') + '\n';
}

/** Registers the search contract for one backend. */
export function describeSearchOver(name: string, factory: SearchableFactory): void {
  describe(`search over ${name}`, () => {
    const open: { search: SpillSearch; cleanup?: () => Promise<void> }[] = [];
    afterEach(async () => {
      for (const o of open.splice(0)) {
        await o.search.close();
        await o.cleanup?.();
      }
    });
    const setup = async () => {
      const made = await factory();
      const search = await createBackendSearch(made.backend, made.location === undefined ? {} : { location: made.location });
      open.push({ search, ...(made.cleanup ? { cleanup: made.cleanup } : {}) });
      return { backend: made.backend, search };
    };

    it('answers a line deep in an artifact with its locator and a line range that read gives back verbatim', async () => {
      const { backend, search } = await setup();
      const s = sessionId(`s-${name}-1`);
      const text = numbered(3000, (i) => (i === 2222 ? 'ERROR: json_max_depth exceeded while parsing payload' : `info: request ${String(i)} served in ${String(i % 17)} ms`));
      const locator = await save(backend, s, text);
      const { hits } = await search.search({ query: 'json_max_depth', sessionId: s });
      expect(hits.length).toBeGreaterThan(0);
      const hit = hits[0];
      if (hit === undefined) throw new Error('no hit');
      expect(hit.locator).toBe(locator);
      expect(hit.startLine).toBeLessThanOrEqual(2222);
      expect(hit.endLine).toBeGreaterThanOrEqual(2222);
      expect(hit.text).toContain('json_max_depth exceeded');
      for (const h of hits) await expectVerbatim(backend, h);
    });

    it('searches only the session asked for, and every session when none is given', async () => {
      const { backend, search } = await setup();
      const a = sessionId(`s-${name}-a`);
      const b = sessionId(`s-${name}-b`);
      const inA = await save(backend, a, 'the quokka lives on Rottnest\n');
      const inB = await save(backend, b, 'a quokka photo went viral\n');
      const onlyA = await search.search({ query: 'quokka', sessionId: a });
      expect(onlyA.hits.map((h) => h.locator)).toEqual([inA]);
      const all = await search.search({ query: 'quokka' });
      expect(new Set(all.hits.map((h) => h.locator))).toEqual(new Set([inA, inB]));
    });

    it('indexes what was saved since the last search, and never answers what was deleted', async () => {
      const { backend, search } = await setup();
      const s = sessionId(`s-${name}-2`);
      const first = await save(backend, s, 'alpha marmot one\n');
      expect((await search.search({ query: 'marmot', sessionId: s })).hits.map((h) => h.locator)).toEqual([first]);
      const second = await save(backend, s, 'beta marmot two\n');
      const both = await search.search({ query: 'marmot', sessionId: s });
      expect(new Set(both.hits.map((h) => h.locator))).toEqual(new Set([first, second]));
      expect(await backend.catalog.delete(first)).toBe(true);
      const after = await search.search({ query: 'marmot', sessionId: s });
      expect(after.hits.map((h) => h.locator)).toEqual([second]);
      const everywhere = await search.search({ query: 'alpha marmot' });
      expect(everywhere.hits.map((h) => h.locator)).not.toContain(first);
    });

    it('matches identifiers, paths and camelCase parts', async () => {
      const { backend, search } = await setup();
      const s = sessionId(`s-${name}-3`);
      const text = [
        ...Array.from({ length: 200 }, (_, i) => `ok ${String(i)} nothing here`),
        ' FAIL  src/preview.test.ts:57:12 expected 3 to be 4',
        'TypeError: Cannot read properties of undefined (reading "length")',
        'config.json_max_depth = 64',
      ].join('\n');
      await save(backend, s, text);
      const first = async (query: string): Promise<string> => (await search.search({ query, sessionId: s })).hits[0]?.text ?? '';
      expect(await first('preview.test.ts:57')).toContain('src/preview.test.ts:57:12');
      expect(await first('json_max_depth')).toContain('config.json_max_depth = 64');
      expect(await first('error undefined')).toContain('TypeError: Cannot read');
      expect(await first('"cannot read properties"')).toContain('TypeError: Cannot read');
    });

    it('treats query syntax as plain words: NEAR(, *, ^, column filters and stray quotes are harmless', async () => {
      const { backend, search } = await setup();
      const s = sessionId(`s-${name}-4`);
      await save(backend, s, 'body: NEAR the wildcard * and caret ^ live here\nanother line\n');
      for (const query of ['NEAR(', 'NEAR(a b, 2)', '*', 'wild*', '^caret', 'body:', 'body: NEAR', '"unbalanced', '"', '""', 'a AND OR NOT b', '(((', ')', '-', '\u0000', 'col:val "x', '{body}: caret']) {
        await expect(search.search({ query, sessionId: s })).resolves.toBeDefined();
      }
      const near = await search.search({ query: 'NEAR(', sessionId: s });
      expect(near.hits[0]?.text).toContain('NEAR the wildcard');
      const column = await search.search({ query: 'body: caret', sessionId: s });
      expect(column.hits[0]?.text).toContain('caret ^');
    });

    it('shows the nearest section line above a snippet', async () => {
      const { backend, search } = await setup();
      const s = sessionId(`s-${name}-5`);
      const text = [
        'commit 0123456789abcdef0123456789abcdef01234567',
        'Author: someone',
        '',
        'diff --git a/src/widget.ts b/src/widget.ts',
        ...Array.from({ length: 80 }, (_, i) => `+  const filler${String(i)} = ${String(i)};`),
        '+  throw new RangeError("zebrafish overflow");',
        ...Array.from({ length: 10 }, (_, i) => `+  const tail${String(i)} = ${String(i)};`),
      ].join('\n');
      await save(backend, s, text);
      const { hits } = await search.search({ query: 'zebrafish', sessionId: s, maxBytes: 300 });
      expect(hits[0]?.text).toContain('zebrafish overflow');
      expect(hits[0]?.section).toEqual({ line: 4, text: 'diff --git a/src/widget.ts b/src/widget.ts' });
    });

    it('keeps the tool answer within its byte bound, whatever maxResults asks', async () => {
      const { backend, search } = await setup();
      const s = sessionId(`s-${name}-6`);
      for (let k = 0; k < 6; k += 1) await save(backend, s, numbered(400, (i) => `gecko ${String(k)}-${String(i)} ${'x'.repeat(i % 90)}`));
      for (const maxSearchBytes of [512, 1500, 4096]) {
        const answer = await runSpillSearch(search, { query: 'gecko', maxResults: 50 }, { sessionId: s, maxSearchBytes });
        expect(answer.isError).toBe(false);
        expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(maxSearchBytes);
        if (!answer.isError) expect(answer.data.hits.length).toBeGreaterThan(0);
      }
    });

    it('rejects a bad request with SPILL_INVALID_INPUT', async () => {
      const { search } = await setup();
      for (const bad of [{ query: 3 }, { query: 'x', maxResults: 0 }, { query: 'x', maxResults: 1.5 }, { query: 'x', maxBytes: 10 }, { query: 'x'.repeat(5000) }]) {
        await expect(search.search(bad as never)).rejects.toMatchObject({ code: 'SPILL_INVALID_INPUT' });
      }
    });
  });
}
