// Two processes on one index file: one indexes an artifact slowly (its reader waits between
// pages) while another sweeps and refreshes the same file. The index must come out whole:
// one row for the artifact, each chunk once, nothing left without its artifact.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { callId, sessionId, type SpillReader } from '@spillway/core';
import { createLocalBackend } from '@spillway/local';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpillSearch } from '@spillway/search';

const run = promisify(execFile);
const session = sessionId('two-processes');
let dir = '';
let root = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'spill-search-processes-'));
  root = path.join(dir, 'root');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The index's own tables, read with libsql directly. */
async function inspect(file: string): Promise<{ artifacts: { complete: number }[]; chunks: number; repeated: number; orphans: number }> {
  const Database = (await import('libsql')).default as unknown as new (f: string) => {
    prepare(sql: string): { all(): unknown[]; get(): unknown };
    close(): void;
  };
  const db = new Database(file);
  try {
    return {
      artifacts: db.prepare('SELECT complete FROM artifacts').all() as { complete: number }[],
      chunks: (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n,
      repeated: (db.prepare('SELECT count(*) AS n FROM (SELECT 1 FROM chunks GROUP BY artifact, start_line HAVING count(*) > 1)').get() as { n: number }).n,
      orphans: (db.prepare('SELECT count(*) AS n FROM chunks WHERE artifact NOT IN (SELECT id FROM artifacts)').get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}

describe('two processes on one index file', () => {
  it('one indexing slowly while the other sweeps and refreshes leaves one whole copy of the artifact', { timeout: 300_000 }, async () => {
    const backend = createLocalBackend({ root, createRoot: true });
    // About 10 MiB: several of the indexer's 4 MiB transactions.
    const line = (i: number): string => `request ${String(i)} served by worker ${String(i % 7)} in ${String(i % 97)} ms, status ok, path /api/items/${String(i)}`;
    const content = Array.from({ length: 110_000 }, (_, i) => line(i + 1)).join('\n');
    const ref = await backend.saveText({ owner: { sessionId: session }, source: { toolName: 'bash', callId: callId('big') }, suggestedName: 'big.log', content });

    let reads = 0;
    let release: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (release = resolve));
    const reader = backend.reader as SpillReader;
    const slow: SpillReader = {
      ...reader,
      read: async (locator, options) => {
        reads += 1;
        // Past the first commit: the other process now sees an unfinished row.
        if (reads === 20) release();
        await new Promise((resolve) => setTimeout(resolve, 150));
        return reader.read(locator, options);
      },
    };
    const file = path.join(dir, 'index', 'index.sqlite');
    const first = createSpillSearch({ reader: slow, catalog: backend.catalog, location: file });
    const indexing = first.refresh({ sessionId: session });
    await started;

    const script = `
      const { createLocalBackend } = await import(${JSON.stringify(import.meta.resolve('@spillway/local'))});
      const { createSpillSearch } = await import(${JSON.stringify(import.meta.resolve('@spillway/search'))});
      const backend = createLocalBackend({ root: ${JSON.stringify(root)} });
      const other = createSpillSearch({ reader: backend.reader, catalog: backend.catalog, location: ${JSON.stringify(file)} });
      const refresh = await other.refresh();
      const gc = await other.gc();
      await other.close();
      process.stdout.write(JSON.stringify({ gc, refresh }));
    `;
    const child = await run(process.execPath, ['--input-type=module', '-e', script], { timeout: 240_000 });
    const done = await indexing;
    await first.close();

    // The other process left the unfinished artifact alone: it neither indexed nor dropped it.
    const { gc, refresh } = JSON.parse(child.stdout) as { gc: { indexed: number; removed: number }; refresh: { indexed: number; removed: number } };
    expect(refresh).toMatchObject({ indexed: 0, removed: 0 });
    expect(gc).toMatchObject({ indexed: 0, removed: 0 });
    expect(done.indexed).toBe(1);

    // A fresh index of the same artifact, alone, is what the shared file must hold.
    const aloneFile = path.join(dir, 'alone', 'index.sqlite');
    const alone = createSpillSearch({ reader, catalog: backend.catalog, location: aloneFile });
    await alone.refresh({ sessionId: session });
    await alone.close();
    const shared = await inspect(file);
    const expected = await inspect(aloneFile);
    expect(shared.artifacts).toEqual([{ complete: 1 }]);
    expect(shared.repeated).toBe(0);
    expect(shared.orphans).toBe(0);
    expect(shared.chunks).toBe(expected.chunks);

    const again = createSpillSearch({ reader, catalog: backend.catalog, location: file });
    const { hits } = await again.search({ query: 'request 77777', sessionId: session });
    await again.close();
    expect(hits[0]?.locator).toBe(ref.locator);
    expect(hits[0]?.text).toContain(line(77_777));
  });
});
