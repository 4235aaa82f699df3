import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAudit, type TranscriptFormat } from '@spillway/audit';
import { describe, expect, it } from 'vitest';
import { searchOutputOnDemand } from './audit-search.js';

const corpus = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'spill-audit', 'corpus');

describe('searchOutputOnDemand', () => {
  it('searches one output as spill_search does, within its default answer', async () => {
    const { search, unavailable } = searchOutputOnDemand();
    const output = [...Array.from({ length: 3000 }, (_, i) => `worker ${String(i)} heartbeat ok`), 'FATAL disk quota exceeded on shard 17 (ENOSPC)'].join('\n');
    const found = (await search(output, 'disk quota')) ?? [];
    expect(found.some((t) => t.includes('FATAL disk quota exceeded'))).toBe(true);
    expect(await search(output, 'zebra xylophone')).toEqual([]);
    // Many matches: the answer stays within the tool's 4 KiB.
    const many = (await search(output, 'heartbeat worker')) ?? [];
    expect(many.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(many.join(''))).toBeLessThanOrEqual(4096);
    expect(unavailable()).toBe(false);
  });

  it('loads nothing until asked, and answers undefined when the search cannot load', async () => {
    let loads = 0;
    const { search, unavailable } = searchOutputOnDemand(() => {
      loads++;
      return Promise.reject(new Error('no libsql'));
    });
    expect(loads).toBe(0);
    expect(unavailable()).toBe(false);
    expect(await search('text', 'text')).toBeUndefined();
    expect(await search('text', 'text')).toBeUndefined();
    expect(loads).toBe(1);
    expect(unavailable()).toBe(true);
  });
});

interface Label {
  readonly transcript: string;
  readonly format: TranscriptFormat;
  readonly split: 'tuning' | 'held-out';
  readonly committed: boolean;
}

describe('the spill_search check on the committed hand-labelled transcripts', () => {
  // The figures docs/audit.md reports ("Would spill_search have found it?").
  const REPORTED = {
    tuning: { neededLater: 2, checked: 2, found: 2, foundWithoutNeeded: 0 },
    'held-out': { neededLater: 1, checked: 1, found: 1, foundWithoutNeeded: 0 },
  } as const;

  it('finds what docs/audit.md says, per part', async () => {
    const { search } = searchOutputOnDemand();
    const { cap, labels } = JSON.parse(readFileSync(join(corpus, 'labels.json'), 'utf8')) as { cap: number; labels: Label[] };
    const transcripts = new Map(labels.filter((l) => l.committed).map((l) => [l.transcript, l]));
    const sums = { tuning: { neededLater: 0, checked: 0, found: 0, foundWithoutNeeded: 0 }, 'held-out': { neededLater: 0, checked: 0, found: 0, foundWithoutNeeded: 0 } };
    for (const [name, l] of transcripts) {
      const r = await runAudit({ format: l.format, paths: [join(corpus, `${name}.jsonl`)], cap, env: {}, home: '/nowhere', searchOutput: search });
      const s = sums[l.split];
      s.neededLater += r.total.neededLater;
      s.checked += r.search?.checked ?? 0;
      s.found += r.search?.found ?? 0;
      s.foundWithoutNeeded += r.search?.foundWithoutNeeded ?? 0;
    }
    expect(sums).toEqual(REPORTED);
  }, 60_000);
});
