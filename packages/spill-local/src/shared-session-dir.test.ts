import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSpillError } from '@spillway/core';
import type { SpillRef } from '@spillway/core';
import { createLocalBackendWith } from './backend.js';
import { syncMetadataFsOps } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';
import { filesUnder, makeRoot, request, streamRequest } from './test-helpers.js';

let root: string;
let outside: string;
let cleanups: (() => void)[] = [];
beforeEach(() => {
  const r = makeRoot('spill-shared-dir-test-');
  const o = makeRoot('spill-shared-dir-outside-');
  cleanups = [r.cleanup, o.cleanup];
  root = fs.realpathSync(r.root);
  outside = fs.realpathSync(o.root);
});
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
});

/** The default file-system table, counting directory opens and descriptors still open. */
function counting(): { ops: FsOps; dirOpens: () => number; open: () => number } {
  let dirOpens = 0;
  const fds = new Set<number>();
  const ops: FsOps = {
    ...syncMetadataFsOps,
    open: async (p, flags, mode) => {
      const fd = await syncMetadataFsOps.open(p, flags, mode);
      if ((flags & fs.constants.O_DIRECTORY) !== 0) dirOpens++;
      fds.add(fd);
      return fd;
    },
    close: async (fd) => {
      fds.delete(fd);
      await syncMetadataFsOps.close(fd);
    },
  };
  return { ops, dirOpens: () => dirOpens, open: () => fds.size };
}

/** A stream save held open (its directory leased) until `finish` is called. */
function pausedStream(): { chunks: AsyncIterable<string>; finish: () => void; started: Promise<void> } {
  let finish = (): void => undefined;
  let started = (): void => undefined;
  const startedP = new Promise<void>((resolve) => { started = resolve; });
  const gate = new Promise<void>((resolve) => { finish = resolve; });
  async function* chunks(): AsyncGenerator<string> {
    yield 'first chunk\n';
    started();
    await gate;
    yield 'last chunk\n';
  }
  return { chunks: chunks(), finish, started: startedP };
}

describe('saves in flight at once share their session directory', () => {
  it('32 concurrent saves in one known session open its directory once and close every descriptor', async () => {
    const c = counting();
    const backend = createLocalBackendWith({ root }, { ops: c.ops });
    await backend.saveText(request('warm-up'));
    const before = c.dirOpens();
    const refs = await Promise.all(Array.from({ length: 32 }, (_, i) => backend.saveText(request(`content ${String(i)}\n`))));
    // One open for the shared directory; the first save of the batch may see it closing.
    expect(c.dirOpens() - before).toBeLessThanOrEqual(2);
    expect(c.open()).toBe(0);
    for (const [i, ref] of refs.entries()) expect(fs.readFileSync(ref.locator, 'utf8')).toBe(`content ${String(i)}\n`);
    expect(new Set(refs.map((r) => r.locator)).size).toBe(32);
  });

  it('each session gets its own directory even when saves of several sessions interleave', async () => {
    const backend = createLocalBackendWith({ root }, { ops: syncMetadataFsOps });
    await Promise.all(['a', 'b', 'c'].map((s) => backend.saveText(request('warm', 'w.txt', s))));
    const refs = await Promise.all(
      Array.from({ length: 30 }, (_, i) => backend.saveText(request(`n${String(i)}`, 'x.txt', ['a', 'b', 'c'][i % 3]))),
    );
    const dirs = refs.map((r) => path.dirname(r.locator));
    expect(new Set(dirs).size).toBe(3);
    for (let i = 0; i < refs.length; i++) expect(dirs[i]).toBe(dirs[i % 3]);
  });

  it('a directory removed while it is shared is created afresh: the next save still succeeds', async () => {
    const backend = createLocalBackendWith({ root }, { ops: syncMetadataFsOps });
    const first = await backend.saveText(request('warm-up'));
    const sessionDir = path.dirname(first.locator);
    const held = pausedStream();
    const streaming = backend.saveTextStream(streamRequest(held.chunks));
    await held.started;
    fs.rmSync(sessionDir, { recursive: true });
    const ref = await backend.saveText(request('after the removal\n'));
    expect(fs.readFileSync(ref.locator, 'utf8')).toBe('after the removal\n');
    expect(path.dirname(ref.locator)).toBe(sessionDir);
    held.finish();
    // The stream's temp file went with the directory: it fails, and publishes nothing.
    const outcome: unknown = await streaming.then((r: SpillRef) => r, (e: unknown) => e);
    expect(isSpillError(outcome, 'SPILL_STORAGE_FAILED')).toBe(true);
    expect(filesUnder(root).filter((f) => path.basename(f).startsWith('.tmp-'))).toEqual([]);
  });

  it('a directory swapped for a symlink while it is shared is refused, and nothing lands where the link points', async () => {
    const backend = createLocalBackendWith({ root }, { ops: syncMetadataFsOps });
    const first = await backend.saveText(request('warm-up'));
    const sessionDir = path.dirname(first.locator);
    const held = pausedStream();
    const streaming = backend.saveTextStream(streamRequest(held.chunks));
    streaming.catch(() => undefined);
    await held.started;
    fs.renameSync(sessionDir, path.join(root, 'moved-away'));
    fs.symlinkSync(outside, sessionDir);
    const outcome = await backend.saveText(request('secret\n')).then((r: SpillRef) => r, (e: unknown) => e);
    expect(isSpillError(outcome, 'SPILL_UNSAFE_ROOT')).toBe(true);
    expect(filesUnder(outside)).toEqual([]);
    // What was written inside the root (the moved directory) was not published.
    expect(filesUnder(path.join(root, 'moved-away')).map((f) => fs.readFileSync(f, 'utf8'))).not.toContain('secret\n');
    held.finish();
    await streaming.catch(() => undefined);
    expect(filesUnder(outside)).toEqual([]);
  });
});
