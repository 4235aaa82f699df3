import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callId, sessionId, spillLocator, type SpillEntry } from '@spillway/core';
import { createLocalBackend } from '@spillway/local';
import { localBackendFactory, type BackendFactory, type CliBackend } from '../context.js';
import { main } from '../main.js';
import { testIO } from '../test-io.js';
import fc from 'fast-check';
import { columnsOf, lsRow, LS_WIDTH } from '../format.js';

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'spillway-cli-ls-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const ROOT = '/home/somebody/.local/state/spillway';
const KEY = 'session-4fbb9b354a21ad5e1f6b903a2a472654';

function entry(minute: number, leaf: string, bytes = 100): SpillEntry {
  return {
    locator: spillLocator(`${ROOT}/${KEY}/${leaf}`),
    bytes,
    createdAt: new Date(Date.UTC(2026, 0, 2, 3, minute)),
    session: KEY,
  };
}

/** Entries in the order a directory walk might give them: not by time. */
const SHUFFLED = [
  entry(30, '0632920c78fc50452dc5-seq.txt'),
  entry(10, 'a1b2c3d4e5f60718293a-web_fetch.txt', 4_817_233),
  entry(50, `ffeeddccbbaa99887766-${'very_long_tool_name_'.repeat(5)}.txt`),
  entry(20, '1234567890abcdef1234-notes.md'),
];

function listing(entries: readonly SpillEntry[]): BackendFactory {
  const fail = (): Promise<never> => Promise.reject(new Error('not used'));
  const backend: CliBackend = {
    specificationVersion: 'v1',
    name: 'listing',
    saveText: fail,
    saveTextStream: fail,
    reader: { read: fail, grep: fail },
    catalog: {
      delete: fail,
      // eslint-disable-next-line @typescript-eslint/require-await
      list: async function* () {
        yield* entries;
      },
    },
  };
  return () => backend;
}

async function ls(args: string[], backend: BackendFactory) {
  const { io, stdout, stderr } = testIO({ env: { SPILLWAY_ROOT: join(base, 'never-used') }, homedir: join(base, 'home') });
  const code = await main(['ls', ...args], io, { backend });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('spillway ls', () => {
  it('lists oldest first, whatever order the catalog yields', async () => {
    const r = await ls([], listing(SHUFFLED));
    expect(r.code).toBe(0);
    const times = r.stdout.split('\n').filter((l) => l.startsWith('2026')).map((l) => l.slice(0, 20));
    expect(times).toEqual(['2026-01-02T03:10:00Z', '2026-01-02T03:20:00Z', '2026-01-02T03:30:00Z', '2026-01-02T03:50:00Z']);
  });

  it(`fits ${String(LS_WIDTH)} columns by default, without repeating the session key in each row`, async () => {
    const r = await ls([], listing(SHUFFLED));
    const lines = r.stdout.trimEnd().split('\n');
    for (const line of lines) expect(columnsOf(line), line).toBeLessThanOrEqual(LS_WIDTH);
    expect(lines[0]).toBe('CREATED                     SIZE  SESSION   ARTIFACT');
    expect(lines[1]).toBe('2026-01-02T03:10:00Z     4.6 MiB  4fbb9b35  a1b2c3d4e5f60718293a-web_fetch.txt');
    expect(lines[4]).toMatch(/^2026-01-02T03:50:00Z {7}100 B {2}4fbb9b35 {2}ffeeddccbbaa99887766-very_long_tool_name_.*…$/);
    expect(r.stdout).not.toContain(KEY);
    expect(lines.at(-1)).toBe('4 artifacts, 4.6 MiB (--long or --json prints whole locators)');
  });

  it(`keeps a name of wide characters (CJK, emoji) within ${String(LS_WIDTH)} columns, counting each as two`, async () => {
    const wide = entry(40, `00112233445566778899-${'検索結果の一覧'.repeat(8)}.txt`);
    const emoji = entry(41, `00112233445566778899-${'📦'.repeat(40)}.txt`);
    const r = await ls([], listing([wide, emoji]));
    const rows = r.stdout.split('\n').filter((l) => l.startsWith('2026'));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(columnsOf(row), row).toBeLessThanOrEqual(LS_WIDTH);
      // Cut as near the edge as whole characters allow: one column short at most.
      expect(columnsOf(row), row).toBeGreaterThanOrEqual(LS_WIDTH - 1);
      expect(row.endsWith('…')).toBe(true);
    }
    expect(rows[0]).toContain('00112233445566778899-検索結果の一覧検索');
    expect(columnsOf('検索 a📦')).toBe(8);
  });

  it('counts a combining mark and other zero-width characters as no column, and never cuts a character from its marks', async () => {
    // `é` spelt as e + U+0301: 21 + 30 + 4 = 55 columns, within the 56 a name gets.
    const decomposed = entry(42, `00112233445566778899-${'e\u0301'.repeat(30)}.txt`);
    const joined = entry(43, `00112233445566778899-${'👨\u200D👩\u200D👧'.repeat(4)}-a\uFE0E-x\u20DD.txt`);
    const long = entry(44, `00112233445566778899-${'a\u0301\u0323'.repeat(60)}.txt`);
    const r = await ls([], listing([decomposed, joined, long]));
    const rows = r.stdout.split('\n').filter((l) => l.startsWith('2026'));
    expect(rows[0]).toBe(`2026-01-02T03:42:00Z       100 B  4fbb9b35  00112233445566778899-${'e\u0301'.repeat(30)}.txt`);
    expect(columnsOf(rows[0] ?? '')).toBe(LS_WIDTH - 1);
    expect(rows[1]).toBe(`2026-01-02T03:43:00Z       100 B  4fbb9b35  00112233445566778899-${'👨\u200D👩\u200D👧'.repeat(4)}-a\uFE0E-x\u20DD.txt`);
    // Cut after whole characters, each with both its marks, as near the edge as they allow.
    expect(rows[2]).toBe(`2026-01-02T03:44:00Z       100 B  4fbb9b35  00112233445566778899-${'a\u0301\u0323'.repeat(34)}…`);
    expect(columnsOf('e\u0301\u200D\uFE0F\u20DD')).toBe(2); // U+FE0F: the emoji presentation, two columns
    expect(columnsOf('\u2764\uFE0F')).toBe(2);
  });

  it(`never prints a default row wider than ${String(LS_WIDTH)} columns, never cuts a name that fits, and never cuts between a character and its marks`, () => {
    // A name is one path segment: no `/`. Marks and joiners also come alone, so that they
    // follow any character, or begin the name.
    const units = fc.constantFrom('a', '検', '📦', 'é', '-', 'e\u0301', '\u0301', '\u0323', '\u20DD', '\u200D', '\uFE0F', '\u2764\uFE0F', '👨\u200D👩\u200D👧', '🇫🇷', '👍🏽');
    const name = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 120, size: 'max' }), fc.string({ unit: units, maxLength: 120, size: 'max' })).filter((s) => !s.includes('/'));
    const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    fc.assert(
      fc.property(name, (leaf) => {
        const row = lsRow(entry(1, `00112233445566778899-${leaf}`)).slice(0, -1);
        expect(columnsOf(row)).toBeLessThanOrEqual(LS_WIDTH);
        const whole = `00112233445566778899-${leaf}`;
        const shown = row.slice(row.indexOf('00112233445566778899-'));
        if (!shown.endsWith('…')) {
          expect(shown).toBe(whole);
          return;
        }
        const kept = shown.slice(0, -1);
        expect(whole.startsWith(kept)).toBe(true);
        // What is cut off starts with no mark (variation selectors are marks too) or joiner
        // that belongs to the last character kept…
        expect(whole.slice(kept.length)).not.toMatch(/^(?:\p{M}|\u200D)/u);
        // …and the cut is between two grapheme clusters.
        const boundaries = [...graphemes.segment(whole)].map((g) => g.index);
        expect(boundaries).toContain(kept.length);
      }),
    );
  });

  it('--long (and -l) prints the whole session key and locator of each row, sorted too', async () => {
    for (const flag of ['--long', '-l']) {
      const r = await ls([flag], listing(SHUFFLED));
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe(`CREATED                     SIZE  SESSION${' '.repeat(34)}  LOCATOR`);
      expect(lines.slice(1, -1)).toEqual(
        [...SHUFFLED]
          .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
          .map((e): unknown => expect.stringMatching(new RegExp(`  ${KEY}  ${e.locator.replace(/[.]/g, '\\.')}$`))),
      );
      expect(lines.at(-1)).toBe('4 artifacts, 4.6 MiB');
    }
  });

  it('--json holds the full detail, oldest first', async () => {
    const r = await ls(['--json'], listing(SHUFFLED));
    const doc = JSON.parse(r.stdout) as { entries: { locator: string; session: string; createdAt: string; bytes: number }[]; count: number; complete: boolean };
    expect(doc.entries.map((e) => e.createdAt)).toEqual(['2026-01-02T03:10:00.000Z', '2026-01-02T03:20:00.000Z', '2026-01-02T03:30:00.000Z', '2026-01-02T03:50:00.000Z']);
    expect(doc.entries[0]).toEqual({ locator: `${ROOT}/${KEY}/a1b2c3d4e5f60718293a-web_fetch.txt`, bytes: 4_817_233, createdAt: '2026-01-02T03:10:00.000Z', session: KEY });
    expect(doc).toMatchObject({ count: 4, complete: true });
  });

  it('on a real local root, rows stay within the width and name each artifact', async () => {
    const root = join(base, 'real');
    const backend = createLocalBackend({ root, createRoot: true });
    for (const name of ['first.txt', 'second.txt']) {
      await backend.saveText({ owner: { sessionId: sessionId('ls-real') }, source: { toolName: 't', callId: callId(name) }, suggestedName: name, content: name });
    }
    const r = await ls(['--root', root], () => backend);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const line of lines) expect(columnsOf(line), line).toBeLessThanOrEqual(LS_WIDTH);
    expect(lines.slice(1, -1).map((l) => l.replace(/^.*-/, ''))).toEqual(expect.arrayContaining(['first.txt', 'second.txt']));
  });

  it('lists what a harness saved through createLocalBackend() with no root: one default root for both', async () => {
    const state = join(base, 'state');
    vi.stubEnv('XDG_STATE_HOME', state);
    try {
      const ref = await createLocalBackend().saveText({ owner: { sessionId: sessionId('harness') }, source: { toolName: 'web_fetch', callId: callId('c1') }, suggestedName: 'page.html', content: 'x'.repeat(50) });
      const { io, stdout } = testIO({ env: { XDG_STATE_HOME: state }, homedir: join(base, 'home') });
      expect(await main(['ls', '--json'], io, { backend: localBackendFactory })).toBe(0);
      const doc = JSON.parse(stdout.text()) as { entries: { locator: string }[] };
      expect(doc.entries.map((e) => e.locator)).toEqual([ref.locator]);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
