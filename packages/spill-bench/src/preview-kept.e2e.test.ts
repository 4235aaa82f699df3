import { readFile, writeFile } from 'node:fs/promises';
import { createMemoryBackend } from '@spillway/memory';
import { createSpillPolicy } from '@spillway/policy';
import { describe, expect, it } from 'vitest';
import { CORPUS_DIR, LIST_CORPUS_DIR, loadCorpus, type CorpusCase } from './preview-corpus.js';

/**
 * The labelled corpora as a regression test: every needle that the default preview keeps in
 * `corpus/kept.json` must still be kept, at each cap. A change that keeps more needles
 * passes and says so; record them with `SPILLWAY_UPDATE_KEPT=1`, so that they are guarded
 * from then on. A needle may leave the file only by a reviewed edit of it.
 */
const KEPT_FILE = new URL('../corpus/kept.json', import.meta.url);
const CAPS = [2048, 8192, 32_768];
const exec = { toolName: 'bash', callId: 'call-1', sessionId: 'kept-needles' };

/** Case name (with its corpus) → cap → needles kept. */
type Kept = Record<string, Record<string, string[]>>;

async function keptToday(): Promise<Kept> {
  const kept: Kept = {};
  const corpora: [string, CorpusCase[]][] = [
    ['preview', await loadCorpus(CORPUS_DIR)],
    ['lists', await loadCorpus(LIST_CORPUS_DIR)],
  ];
  for (const [corpus, cases] of corpora) {
    for (const c of cases) {
      if (c.needles.length === 0) continue;
      const byCap: Record<string, string[]> = {};
      for (const cap of CAPS) {
        const policy = createSpillPolicy({ backend: createMemoryBackend(), maxInlineBytes: cap });
        const out = await policy.applyToResult(exec, { content: [{ type: 'text', text: c.text }] });
        const shown = (out.content[0] as { text: string }).text;
        byCap[String(cap)] = c.needles.filter((n) => shown.includes(n));
      }
      kept[`${corpus}/${c.name}`] = byCap;
    }
  }
  return kept;
}

describe('needles the preview keeps today', () => {
  it('are all still kept, at 2, 8 and 32 KiB, over both corpora', async () => {
    const today = await keptToday();
    if (process.env.SPILLWAY_UPDATE_KEPT === '1') await writeFile(KEPT_FILE, `${JSON.stringify(today, null, 1)}\n`);
    const recorded = JSON.parse(await readFile(KEPT_FILE, 'utf8')) as Kept;
    const lost: string[] = [];
    let guarded = 0;
    for (const [name, byCap] of Object.entries(recorded)) {
      for (const [cap, needles] of Object.entries(byCap)) {
        const now = new Set(today[name]?.[cap] ?? []);
        for (const needle of needles) {
          guarded++;
          if (!now.has(needle)) lost.push(`${name} at ${cap} bytes: ${JSON.stringify(needle)}`);
        }
      }
    }
    expect(lost, 'needles the preview used to keep').toEqual([]);
    // The file guards something real: most of the labelled needles.
    expect(guarded).toBeGreaterThan(100);
  });
});
