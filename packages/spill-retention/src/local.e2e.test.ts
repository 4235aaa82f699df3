import { mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SpillEntry, type SpillLocator, callId, isSpillError, sessionId } from '@spillway/core';
import { type LocalBackend, createLocalBackend } from '@spillway/local';
import { formatSpillNotice } from '@spillway/core/notice';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRetention } from './retention.js';
import { explainMissingArtifacts } from './missing.js';
import { keepReferenced } from './references.js';
import { referenceSweep } from './test-catalog.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let root: string;
let backend: LocalBackend;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spill-retention-'));
  backend = createLocalBackend({ root });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function save(session: string, name: string, content: string): Promise<SpillLocator> {
  const ref = await backend.saveText({
    owner: { sessionId: sessionId(session) },
    source: { toolName: 'test', callId: callId(name) },
    suggestedName: name,
    content,
  });
  return ref.locator;
}

/** Backdates an artifact: the local catalog reports its mtime as createdAt. */
async function age(locator: SpillLocator, ms: number, now: number): Promise<void> {
  const when = new Date(now - ms);
  await utimes(locator, when, when);
}

async function listAll(): Promise<SpillEntry[]> {
  const out: SpillEntry[] = [];
  for await (const e of backend.catalog.list()) out.push(e);
  return out;
}

describe('retention over the local backend', () => {
  it('deletes by age and total size, oldest first, keeping referenced artifacts', async () => {
    const now = Date.now();
    const locators: SpillLocator[] = [];
    for (let i = 0; i < 30; i++) {
      const loc = await save(`s${i % 3}`, `out-${i}.txt`, 'x'.repeat(100 + i));
      await age(loc, (30 - i) * HOUR, now);
      locators.push(loc);
    }
    const referenced = [locators[0], locators[5]] as SpillLocator[];
    const transcript = referenced
      .map((l) => `result…\n\n${formatSpillNotice({ omittedBytes: 9000, locator: l, retrievalHint: 'Use read with offset/limit, or grep this path to search within it.' })}\n`)
      .join('');
    const keep = await keepReferenced([transcript]);
    const before = await listAll();
    const options = { maxAgeMs: 25 * HOUR, maxTotalBytes: 2000, maxSessionBytes: 900 };
    const expected = referenceSweep(before, {
      start: now,
      graceMs: 5 * 60_000,
      ...options,
      keep: new Set<string>(referenced),
    });

    const report = await createRetention({ catalog: backend.catalog, now: () => now, keep, ...options }).sweep();

    const after = new Set((await listAll()).map((e) => e.locator as string));
    const gone = new Set(locators.filter((l) => !after.has(l)));
    expect(gone).toEqual(expected);
    for (const l of referenced) expect(after.has(l)).toBe(true);
    expect(report.complete).toBe(true);
    expect(report.errorCount).toBe(0);
    expect(report.deleted.count).toBe(expected.size);
    expect(report.kept.byReason.keep.count).toBeGreaterThan(0);
    expect(report.limits.total?.met).toBe(true);
  });

  it('deletes nothing in a dry run, file for file', async () => {
    const now = Date.now();
    for (let i = 0; i < 10; i++) await age(await save('s', `f${i}.txt`, 'y'.repeat(50)), 10 * DAY, now);
    const before = (await listAll()).map((e) => [e.locator, e.bytes, e.createdAt.getTime()]);
    const report = await createRetention({ catalog: backend.catalog, maxAgeMs: DAY, maxTotalBytes: 0, dryRun: true }).sweep();
    expect(report.deleted.count).toBe(10);
    expect((await listAll()).map((e) => [e.locator, e.bytes, e.createdAt.getTime()])).toEqual(before);
  });

  it('answers SPILL_NOT_FOUND for a deleted artifact, with a message that says to run the tool again', async () => {
    const now = Date.now();
    const loc = await save('s', 'gone.txt', 'content\n');
    await age(loc, 10 * DAY, now);
    await createRetention({ catalog: backend.catalog, maxAgeMs: DAY }).sweep();
    const error: unknown = await explainMissingArtifacts(backend.reader)
      .read(loc)
      .catch((e: unknown) => e);
    expect(isSpillError(error, 'SPILL_NOT_FOUND')).toBe(true);
    expect((error as Error).message).toMatch(/run the tool that produced it again/i);
  });

  it('removes crash leftovers through the backend temp sweep, but not fresh ones', async () => {
    const loc = await save('s', 'keep.txt', 'k');
    const sessionDir = join(loc, '..');
    const stale = join(sessionDir, `.tmp-${'a'.repeat(32)}`);
    const fresh = join(sessionDir, `.tmp-${'b'.repeat(32)}`);
    await writeFile(stale, 'partial', { mode: 0o600 });
    await writeFile(fresh, 'in flight', { mode: 0o600 });
    const old = new Date(Date.now() - 2 * HOUR);
    await utimes(stale, old, old);
    const report = await createRetention({ catalog: backend.catalog }).sweep();
    expect(report.temp).toEqual({ removed: 1, bytes: 7 });
    const names = await readdir(sessionDir);
    expect(names).toContain(`.tmp-${'b'.repeat(32)}`);
    expect(names).not.toContain(`.tmp-${'a'.repeat(32)}`);
    await expect(stat(loc)).resolves.toBeDefined();
  });

  it('loses no artifact saved while a sweep that wants everything gone is running', async () => {
    const now = Date.now();
    for (let i = 0; i < 40; i++) await age(await save(`s${i % 4}`, `old-${i}.txt`, 'z'.repeat(200)), DAY, now);
    const retention = createRetention({ catalog: backend.catalog, maxTotalBytes: 0, maxSessionBytes: 0, graceMs: 0 });
    const saving = (async () => {
      const out: SpillLocator[] = [];
      for (let i = 0; i < 40; i++) out.push(await save(`s${i % 5}`, `new-${i}.txt`, 'n'.repeat(300)));
      return out;
    })();
    const [report, saved] = await Promise.all([retention.sweep(), saving]);
    const left = new Set((await listAll()).map((e) => e.locator as string));
    for (const loc of saved) expect(left.has(loc)).toBe(true);
    expect(report.deleted.count).toBe(40);
    // The last pass saw artifacts saved during the sweep, so the two really overlapped.
    expect(report.scanned.count).toBeGreaterThan(40);
  });

  it('purges one session and leaves the others', async () => {
    const a = await save('conversation-a', 'a.txt', 'a');
    const b = await save('conversation-b', 'b.txt', 'b');
    const now = Date.now();
    await age(a, 10_000, now);
    const report = await createRetention({ catalog: backend.catalog }).purgeSession(sessionId('conversation-a'));
    expect(report.deleted.count).toBe(1);
    const left = (await listAll()).map((e) => e.locator);
    expect(left).toEqual([b]);
  });
});
