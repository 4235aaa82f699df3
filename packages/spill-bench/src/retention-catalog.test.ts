import { createRetention } from '@spillway/retention';
import { describe, expect, it } from 'vitest';
import { GeneratedCatalog, ageRankAt, generatedBytes, isPermutableCount, naiveQuotaSweep, retentionQuota, sweepGenerated } from './retention-catalog.js';

async function listAll(catalog: GeneratedCatalog): Promise<{ locator: string; bytes: number; createdAt: number }[]> {
  const out: { locator: string; bytes: number; createdAt: number }[] = [];
  for await (const e of catalog.list()) out.push({ locator: e.locator, bytes: e.bytes, createdAt: e.createdAt.getTime() });
  return out;
}

describe('the generated retention catalog', () => {
  it('lists every age rank exactly once, out of age order', () => {
    for (const count of [1, 2, 999, 1000, 10_000]) {
      expect(isPermutableCount(count)).toBe(true);
      const ranks = Array.from({ length: count }, (_, i) => ageRankAt(i, count));
      expect(new Set(ranks).size).toBe(count);
      if (count > 2) expect(ranks).not.toEqual([...ranks].sort((a, b) => a - b));
    }
  });

  it('refuses a count the listing permutation cannot cover', () => {
    expect(isPermutableCount(7919 * 3)).toBe(false);
    expect(() => new GeneratedCatalog(7919 * 2)).toThrow(RangeError);
    expect(() => new GeneratedCatalog(0)).toThrow(RangeError);
  });

  it('deletes an entry once, tracks the remaining bytes, and stops listing it', async () => {
    const catalog = new GeneratedCatalog(50);
    const listed = await listAll(catalog);
    expect(listed.reduce((s, e) => s + e.bytes, 0)).toBe(GeneratedCatalog.totalBytes(50));
    const victim = listed[7];
    if (victim === undefined) throw new Error('no entry');
    expect(await catalog.delete(victim.locator as never)).toBe(true);
    expect(await catalog.delete(victim.locator as never)).toBe(false);
    expect(catalog.remainingBytes).toBe(GeneratedCatalog.totalBytes(50) - victim.bytes);
    expect((await listAll(catalog)).map((e) => e.locator)).not.toContain(victim.locator);
  });

  it('makes sizes between 1 KiB and 9 KiB', () => {
    for (let rank = 0; rank < 5000; rank++) {
      expect(generatedBytes(rank)).toBeGreaterThanOrEqual(1024);
      expect(generatedBytes(rank)).toBeLessThan(1024 + 8192);
    }
  });
});

describe('the naive quota sweep (the baseline)', () => {
  it('deletes the oldest entries and stops as soon as the total is under the quota', async () => {
    const catalog = new GeneratedCatalog(1000);
    const quota = retentionQuota(1000);
    const outcome = await naiveQuotaSweep(catalog, quota);
    expect(catalog.remainingBytes).toBeLessThanOrEqual(quota);
    const left = await listAll(catalog);
    const oldestLeft = Math.min(...left.map((e) => e.createdAt));
    // The deleted ones are exactly ranks 0 … deleted-1 (the oldest), and one deletion fewer would be over quota.
    expect(left.length).toBe(1000 - outcome.deleted);
    const rankOfOldestLeft = Number(left.find((e) => e.createdAt === oldestLeft)?.locator.split('/').pop()?.slice(0, -4));
    expect(rankOfOldestLeft).toBe(outcome.deleted);
    expect(catalog.remainingBytes + generatedBytes(outcome.deleted - 1)).toBeGreaterThan(quota);
  });

  it('agrees with createRetention on what to delete', async () => {
    const naive = await sweepGenerated('baseline', 2001, createRetention);
    const spillway = await sweepGenerated('spillway', 2001, createRetention);
    expect(spillway.deleted).toBe(naive.deleted);
    expect(spillway.remainingBytes).toBe(naive.remainingBytes);
    expect(spillway.passes).toBeGreaterThanOrEqual(1);
  });
});
