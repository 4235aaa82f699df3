// Retention and the local backend together always make progress: no listing holds
// descriptor permits while retention waits for the deletes that need them, and concurrent
// sweeps over one catalog run in turn. Each case hung for good before that was so; the
// test timeout is what turns a hang into a failure.
import { chmod, mkdir, mkdtemp, rm, symlink, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SpillLocator, callId, sessionId } from '@spillway/core';
import { type LocalBackend, createLocalBackend } from '@spillway/local';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRetention } from './retention.js';

const HOUR = 3_600_000;
/** Generous: each case takes well under a second when it works (more on a loaded machine), and never ends when it hangs. */
const HANG_TIMEOUT_MS = 60_000;

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spill-retention-progress-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function saveAged(backend: LocalBackend, session: string, i: number, ageMs: number): Promise<SpillLocator> {
  const ref = await backend.saveText({
    owner: { sessionId: sessionId(session) },
    source: { toolName: 'test', callId: callId(`c${i}`) },
    suggestedName: `out-${i}.txt`,
    content: `artifact ${i}\n`.repeat(10),
  });
  const when = new Date(Date.now() - ageMs);
  await utimes(ref.locator, when, when);
  return ref.locator;
}

async function count(backend: LocalBackend): Promise<number> {
  let n = 0;
  for await (const entry of backend.catalog.list()) n += entry.bytes > 0 ? 1 : 0;
  return n;
}

describe('retention over the local backend never deadlocks', () => {
  it('two concurrent sweeps at maxOpenFiles 8 over 60 aged artifacts in 3 sessions settle, delete each artifact once, and leave the backend usable', { timeout: HANG_TIMEOUT_MS }, async () => {
    const backend = createLocalBackend({ root, maxOpenFiles: 8 });
    for (let i = 0; i < 60; i++) await saveAged(backend, `s${i % 3}`, i, 2 * HOUR);
    const retention = createRetention({ catalog: backend.catalog, maxAgeMs: 60_000, graceMs: 0 });
    const [a, b] = await Promise.all([retention.sweep(), retention.sweep()]);
    // The second found the first still waiting for its turn and shared it.
    expect(b).toBe(a);
    expect(a.complete).toBe(true);
    expect(a.deleted.count).toBe(60);
    expect(a.vanished.count).toBe(0);
    expect(await count(backend)).toBe(0);
    // Saves still go through afterwards.
    await saveAged(backend, 's0', 99, 0);
    expect(await count(backend)).toBe(1);
  });

  it('two concurrent sweeps with their own signals at maxOpenFiles 8 run in turn: the second finds nothing left', { timeout: HANG_TIMEOUT_MS }, async () => {
    const backend = createLocalBackend({ root, maxOpenFiles: 8 });
    for (let i = 0; i < 60; i++) await saveAged(backend, `s${i % 3}`, i, 2 * HOUR);
    const retention = createRetention({ catalog: backend.catalog, maxAgeMs: 60_000, graceMs: 0 });
    const [a, b] = await Promise.all([
      retention.sweep({ signal: new AbortController().signal }),
      retention.sweep({ signal: new AbortController().signal }),
    ]);
    expect(a.complete && b.complete).toBe(true);
    expect([a.deleted.count, b.deleted.count]).toEqual([60, 0]);
    expect(a.vanished.count + b.vanished.count).toBe(0);
    expect(b.scanned.count).toBe(0);
    expect(b.startedAt.getTime()).toBeGreaterThanOrEqual(a.startedAt.getTime() + a.durationMs - 50);
  });

  it('sweeps started faster than they finish never pile up: at most one runs and one waits', { timeout: HANG_TIMEOUT_MS }, async () => {
    const backend = createLocalBackend({ root, maxOpenFiles: 8 });
    for (let i = 0; i < 30; i++) await saveAged(backend, `s${i % 3}`, i, 2 * HOUR);
    const retention = createRetention({ catalog: backend.catalog, maxAgeMs: 60_000, graceMs: 0 });
    const first = retention.sweep();
    await Promise.resolve(); // the first has taken its turn
    await new Promise((r) => setTimeout(r, 0));
    const rest = Array.from({ length: 50 }, () => retention.sweep());
    const reports = await Promise.all([first, ...rest]);
    expect(new Set(reports).size).toBeLessThanOrEqual(2);
    expect(reports.reduce((n, r, i) => n + (reports.indexOf(r) === i ? r.deleted.count : 0), 0)).toBe(30);
  });

  it('sweeps from two retentions over one catalog run in turn too', { timeout: HANG_TIMEOUT_MS }, async () => {
    const backend = createLocalBackend({ root, maxOpenFiles: 8 });
    for (let i = 0; i < 30; i++) await saveAged(backend, `s${i % 3}`, i, 2 * HOUR);
    const one = createRetention({ catalog: backend.catalog, maxAgeMs: 60_000, graceMs: 0 });
    const two = createRetention({ catalog: backend.catalog, maxAgeMs: 60_000, graceMs: 0 });
    const reports = await Promise.all([one.sweep(), two.sweep(), one.sweep()]);
    expect(reports.map((r) => r.deleted.count)).toEqual([30, 0, 0]);
  });

  it('32 concurrent purgeSession calls over 32 sessions at the default maxOpenFiles settle, and saves go on', { timeout: HANG_TIMEOUT_MS }, async () => {
    const backend = createLocalBackend({ root });
    // More artifacts per session than the purge deletes at once, so that each purge waits
    // for its deletes while its listing is paused.
    for (let i = 0; i < 256; i++) await saveAged(backend, `p${i % 32}`, i, HOUR);
    const retention = createRetention({ catalog: backend.catalog, maxAgeMs: 60_000, graceMs: 0 });
    const reports = await Promise.all(Array.from({ length: 32 }, (_, s) => retention.purgeSession(sessionId(`p${s}`))));
    expect(reports.every((r) => r.complete)).toBe(true);
    expect(reports.reduce((n, r) => n + r.deleted.count, 0)).toBe(256);
    await saveAged(backend, 'p0', 200, 0);
    expect(await count(backend)).toBe(1);
  });

  it('at the smallest maxOpenFiles, sweeps, purges, saves and reads running together all settle', { timeout: HANG_TIMEOUT_MS }, async () => {
    const backend = createLocalBackend({ root, maxOpenFiles: 2 });
    const locators: SpillLocator[] = [];
    for (let i = 0; i < 24; i++) locators.push(await saveAged(backend, `t${i % 4}`, i, 2 * HOUR));
    const retention = createRetention({ catalog: backend.catalog, maxAgeMs: 60_000, graceMs: 0 });
    const results = await Promise.allSettled([
      retention.sweep(),
      retention.purgeSession(sessionId('t1')),
      retention.sweep(),
      ...Array.from({ length: 8 }, (_, i) => saveAged(backend, 'fresh', 100 + i, 0)),
      ...locators.slice(0, 8).map((l) => backend.reader.read(l).catch(() => 'gone')),
      retention.purgeSession(sessionId('t2')),
    ]);
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    expect(await count(backend)).toBe(8);
  });

  it('a consumer that deletes while it iterates a listing makes progress at maxOpenFiles 2', { timeout: HANG_TIMEOUT_MS }, async () => {
    const backend = createLocalBackend({ root, maxOpenFiles: 2 });
    for (let i = 0; i < 12; i++) await saveAged(backend, `u${i % 3}`, i, 0);
    let deleted = 0;
    for await (const entry of backend.catalog.list()) {
      // A save and a delete need every permit there is.
      await saveAged(backend, 'other', 1000 + deleted, 0);
      if (await backend.catalog.delete(entry.locator)) deleted += 1;
    }
    expect(deleted).toBeGreaterThanOrEqual(12);
  });

  it('two listings whose consumers delete as they go both finish at maxOpenFiles 8', { timeout: HANG_TIMEOUT_MS }, async () => {
    const backend = createLocalBackend({ root, maxOpenFiles: 8 });
    for (let i = 0; i < 30; i++) await saveAged(backend, `y${i % 3}`, i, 0);
    const drain = async (): Promise<number> => {
      let removed = 0;
      for await (const entry of backend.catalog.list()) {
        if (await backend.catalog.delete(entry.locator)) removed += 1;
      }
      return removed;
    };
    const [a, b] = await Promise.all([drain(), drain()]);
    // Each artifact is removed exactly once; the other listing finds it gone.
    expect(a + b).toBe(30);
  });

  it('a listing abandoned half-way pins nothing: saves and sweeps go on', { timeout: HANG_TIMEOUT_MS }, async () => {
    const backend = createLocalBackend({ root, maxOpenFiles: 2 });
    for (let i = 0; i < 6; i++) await saveAged(backend, `v${i % 3}`, i, 2 * HOUR);
    const abandoned = backend.catalog.list()[Symbol.asyncIterator]();
    expect((await abandoned.next()).done).toBe(false);
    // Never resumed, never returned.
    const report = await createRetention({ catalog: backend.catalog, maxAgeMs: 60_000, graceMs: 0 }).sweep();
    expect(report.deleted.count).toBe(6);
    await saveAged(backend, 'v0', 50, 0);
  });
});

describe('an unusable session directory is skipped and reported, never fatal', () => {
  async function setUp(): Promise<{ backend: LocalBackend; bad: string[] }> {
    const backend = createLocalBackend({ root });
    for (let i = 0; i < 9; i++) await saveAged(backend, `w${i % 3}`, i, 2 * HOUR);
    // A group-readable session directory, a symlink posing as one, and a directory that
    // is not one at all once opened.
    const loose = join(root, `session-${'a'.repeat(32)}`);
    await mkdir(loose, { mode: 0o700 });
    await chmod(loose, 0o755);
    const link = join(root, `session-${'b'.repeat(32)}`);
    await symlink(tmpdir(), link);
    return { backend, bad: [loose, link] };
  }

  it('sweep() cleans every other session and names the refused ones in its report', { timeout: HANG_TIMEOUT_MS }, async () => {
    const { backend, bad } = await setUp();
    const report = await createRetention({ catalog: backend.catalog, maxAgeMs: 60_000, graceMs: 0 }).sweep();
    expect(report.complete).toBe(true);
    expect(report.deleted.count).toBe(9);
    expect(report.skipped.map((s) => s.where).sort()).toEqual([...bad].sort());
    expect(report.skipped.every((s) => s.code === 'SPILL_UNSAFE_ROOT')).toBe(true);
    // The temp sweep ran too, over the good sessions.
    expect(report.temp).not.toBeNull();
  });

  it('purgeSession of a refused session reports it instead of failing', { timeout: HANG_TIMEOUT_MS }, async () => {
    const backend = createLocalBackend({ root });
    await saveAged(backend, 'x', 1, HOUR);
    let session = '';
    for await (const entry of backend.catalog.list()) session = entry.session;
    const dir = join(root, session);
    await chmod(dir, 0o750);
    const report = await createRetention({ catalog: backend.catalog }).purgeSession(sessionId('x'));
    expect(report.deleted.count).toBe(0);
    expect(report.skipped).toHaveLength(1);
    expect(report.skipped[0]?.where).toBe(dir);
  });
});
