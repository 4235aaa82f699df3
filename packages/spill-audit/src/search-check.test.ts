import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAudit, type AuditReport } from './audit.js';
import { renderAuditHtml } from './html.js';
import { MAX_SEARCH_CHECKS, MAX_SEARCH_QUERY_LENGTH, searchQueryFor, type SearchOutput } from './search-check.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-search-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const line = (session: string, tool: string, input: unknown, output: string): string => JSON.stringify({ session, tool, input, output });
/** An output of `n` plain rows before and after `middle`, which no preview at a small cap shows. */
const log = (tag: string, middle: string, n = 200): string =>
  [...Array.from({ length: n }, (_, i) => `${tag} head ${String(i).padStart(5, '0')} ok`), middle, ...Array.from({ length: n }, (_, i) => `${tag} tail ${String(i).padStart(5, '0')} ok`)].join('\n');

/**
 * A fake search: the output's lines holding a query word of 4+ characters, at most three,
 * each call recorded. A needed string is found when its line shares such a word with the query.
 */
function fakeSearch(): { search: SearchOutput; calls: { output: string; query: string }[] } {
  const calls: { output: string; query: string }[] = [];
  const search: SearchOutput = (output, query) => {
    calls.push({ output, query });
    const words = query.split(' ').filter((w) => w.length >= 4);
    return Promise.resolve(output.split('\n').filter((l) => words.some((w) => l.includes(w))).slice(0, 3));
  };
  return { search, calls };
}

function write(name: string, lines: readonly string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The report less what searching adds, as JSON. */
function withoutSearch(r: AuditReport): string {
  const strip = <T extends { foundBySearch?: number }>({ foundBySearch: _f, ...rest }: T): Omit<T, 'foundBySearch'> => rest;
  const { search: _s, ...rest } = r;
  return JSON.stringify({
    ...rest,
    total: strip(r.total),
    sessions: r.sessions.map(strip),
    tools: r.tools.map(strip),
    servers: r.servers.map(strip),
    calls: r.calls.map((c) => ({ ...c, caps: c.caps.map(({ foundBySearch: _f, ...o }) => o) })),
  });
}

describe('searchQueryFor', () => {
  it('takes the values of JSON arguments, not their keys, distinctive strings first, without the needed strings', () => {
    const q = searchQueryFor(JSON.stringify({ command: 'grep -n deploy_id=blob_5e6f7a8b logs/build.log', timeout: 30 }), ['blob_5e6f7a8b']);
    expect(q).toBe('deploy_id logs/build.log build.log grep -n deploy_id= 30');
    expect(q).not.toContain('command');
  });

  it('takes out a needed path before its needed parts, reads other input as text, and answers empty when nothing is left', () => {
    expect(searchQueryFor('cat src/deep/mod_42.ts now', ['mod_42.ts', 'src/deep/mod_42.ts'])).toBe('cat now');
    expect(searchQueryFor('{"path":"blob_5e6f7a8b"}', ['blob_5e6f7a8b'])).toBe('');
  });

  it('cuts a long input at a word, within the limit', () => {
    const q = searchQueryFor(Array.from({ length: 400 }, (_, i) => `word${String(i)}x`).join(' '), []);
    expect(q.length).toBeLessThanOrEqual(MAX_SEARCH_QUERY_LENGTH);
    expect(q.length).toBeGreaterThan(MAX_SEARCH_QUERY_LENGTH - 12);
    expect(q.endsWith('x')).toBe(true);
  });
});

describe('runAudit with searchOutput', () => {
  it('searches each needed output of interleaved sessions with the words of the call that needed it first', async () => {
    const file = write('two-sessions.jsonl', [
      line('s-a', 'bash', { command: 'make' }, log('alpha', 'artifact stored as blob_aaaa1111')),
      line('s-b', 'bash', { command: 'ls -R' }, log('beta', 'cache entry blob_bbbb2222 written')),
      line('s-b', 'bash', { command: 'cp blob_bbbb2222 backup/' }, 'done'),
      line('s-a', 'bash', { command: 'show the artifact stored blob_aaaa1111' }, 'done'),
      line('s-a', 'bash', { command: 'rm blob_aaaa1111 stored' }, 'done'),
    ]);
    const { search, calls } = fakeSearch();
    const report = await runAudit({ format: 'generic', paths: [file], cap: 1024, env: {}, home: '/nowhere', searchOutput: search });
    // With its own words each call finds what it needed; without the needed string, only the words on its line do.
    expect(report.total).toMatchObject({ spilled: 2, neededLater: 2, foundBySearch: 2 });
    expect(report.search).toEqual({ checked: 2, found: 2, foundWithoutNeeded: 1, unchecked: 0 });
    // Each output searched is the one that was needed, whatever the order of the sessions' lines:
    // in the file's order of outputs, each with the words of the first call that needed it.
    expect(calls).toEqual([
      { output: expect.stringContaining('blob_aaaa1111') as string, query: 'blob_aaaa1111 show the artifact stored' },
      { output: expect.stringContaining('blob_aaaa1111') as string, query: 'show the artifact stored' },
      { output: expect.stringContaining('blob_bbbb2222') as string, query: 'blob_bbbb2222 cp backup/' },
      { output: expect.stringContaining('blob_bbbb2222') as string, query: 'cp backup/' },
    ]);
    expect(report.sessions.map((s) => [s.name, s.neededLater, s.foundBySearch])).toEqual(
      expect.arrayContaining([
        ['s-a', 1, 1],
        ['s-b', 1, 1],
      ]),
    );
    expect(report.calls.flatMap((c) => c.caps.filter((o) => o.cap === 1024).map((o) => o.foundBySearch))).toEqual([true, true]);
  });

  it('without it, reports what it reports with it, less the search figures, and has none of them', async () => {
    const file = write('plain.jsonl', [line('s', 'bash', { command: 'make' }, log('gamma', 'artifact stored as blob_cccc3333')), line('s', 'bash', { command: 'cat blob_cccc3333 stored' }, 'ok')]);
    const plain = await runAudit({ format: 'generic', paths: [file], cap: 1024, env: {}, home: '/nowhere' });
    const searched = await runAudit({ format: 'generic', paths: [file], cap: 1024, env: {}, home: '/nowhere', searchOutput: fakeSearch().search });
    expect(searched.search).toEqual({ checked: 1, found: 1, foundWithoutNeeded: 1, unchecked: 0 });
    expect('search' in plain).toBe(false);
    expect('foundBySearch' in plain.total).toBe(false);
    expect(JSON.stringify(plain)).not.toContain('foundBySearch');
    expect(withoutSearch(searched)).toBe(JSON.stringify(plain));
    // The page adds the line and a column only when the audit searched, and no content either way.
    const page = renderAuditHtml(searched);
    expect(page).toContain("spill_search, given the later call's words, finds 1 of 1 needed-later parts; without the strings it needed, 1.");
    expect(page).toContain('<th>found by spill_search</th>');
    expect(page).not.toContain('blob_cccc3333');
    expect(renderAuditHtml(plain)).not.toContain('spill_search');
    // A search that cannot run (on its first or a later output) leaves the report as without it.
    for (const after of [0, 1]) {
      let calls = 0;
      const unavailable: SearchOutput = (output, query) => (calls++ < after ? fakeSearch().search(output, query) : Promise.resolve(undefined));
      expect(JSON.stringify(await runAudit({ format: 'generic', paths: [file], cap: 1024, env: {}, home: '/nowhere', searchOutput: unavailable }))).toBe(JSON.stringify(plain));
      expect(calls).toBe(after + 1);
    }
  });

  it(`searches several needed outputs of one file, at most ${String(MAX_SEARCH_CHECKS)}, the first needed first`, async () => {
    const n = MAX_SEARCH_CHECKS + 3;
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(line('s', 'bash', { command: `job ${String(i)}` }, log(`out${String(i)}`, `kept as blob_${String(i).padStart(8, '0')}`, 20)));
    // Used in reverse: the last output is needed first.
    for (let i = n - 1; i >= 0; i--) lines.push(line('s', 'bash', { command: `fetch kept blob_${String(i).padStart(8, '0')}` }, 'ok'));
    const { search, calls } = fakeSearch();
    const report = await runAudit({ format: 'generic', paths: [write('many.jsonl', lines)], cap: 256, env: {}, home: '/nowhere', searchOutput: search });
    expect(report.total.neededLater).toBe(n);
    expect(report.search).toEqual({ checked: MAX_SEARCH_CHECKS, found: MAX_SEARCH_CHECKS, foundWithoutNeeded: MAX_SEARCH_CHECKS, unchecked: 3 });
    expect(report.total.foundBySearch).toBe(MAX_SEARCH_CHECKS);
    // The second pass gives each check its own output, in the file's order.
    expect(calls.map((c) => /blob_(\d+)/.exec(c.output)?.[1])).toEqual(Array.from({ length: MAX_SEARCH_CHECKS }, (_, k) => String(k + 3).padStart(8, '0')).flatMap((id) => [id, id]));
  });
});
