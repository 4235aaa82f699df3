import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { callId, isSpillError, sessionId, type SpillError } from '@spillway/core';
import type { OpenFileSinkSpill } from '@spillway/core/file-sink';
import { createLocalBackend } from './index.js';
import { createLocalBackendWith } from './backend.js';
import { nodeFsOps, type FsOps } from './fs-ops.js';
import { filesUnder, freshRootEachTest } from './test-helpers.js';

let root: string;
freshRootEachTest('spill-local-sink-', (dir) => {
  root = dir;
});

function sinkRequest(name = 'out.bin', session = 'sink-session'): OpenFileSinkSpill {
  return { owner: { sessionId: sessionId(session) }, source: { toolName: 'cmd', callId: callId('c1') }, suggestedName: name };
}

async function rejection(p: Promise<unknown>): Promise<SpillError> {
  const err: unknown = await p.then(() => undefined, (e: unknown) => e);
  expect(isSpillError(err), `expected a SpillError, got ${String(err)}`).toBe(true);
  return err as SpillError;
}

/** Every byte value, several times over, plus invalid UTF-8 and NUL bytes. */
const BINARY = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0]), Buffer.alloc(70_000, 0xa9)]);

describe('the local file sink', () => {
  it('stores written bytes exactly, reads them back at any position, and publishes with the exact size', async () => {
    const backend = createLocalBackend({ root });
    const sink = await backend.fileSink.open(sinkRequest());
    try {
      await sink.write(BINARY.subarray(0, 1000), 0);
      await sink.write(BINARY.subarray(1000), 1000);
      expect(await sink.size()).toBe(BINARY.length);
      const part = Buffer.alloc(10);
      expect(await sink.read(part, 0, 10, 250)).toBe(10);
      expect(part).toEqual(BINARY.subarray(250, 260));
      const free = await sink.freeBytes();
      expect(free === undefined || free > 0).toBe(true);
      // Nothing is visible under a final name before publishing: only the temp file.
      expect(filesUnder(root).map((f) => path.basename(f))).toEqual([expect.stringMatching(/^\.tmp-/)]);
      const ref = await sink.publish();
      expect(ref.bytes).toBe(BINARY.length);
      expect(fs.readFileSync(ref.locator)).toEqual(BINARY);
      expect(fs.statSync(ref.locator).mode & 0o777).toBe(0o600);
      // Reads still work after publishing; writes and truncation are refused.
      expect(await sink.read(part, 0, 10, 0)).toBe(10);
      expect((await rejection(sink.write(Buffer.from('x'), 0))).code).toBe('SPILL_STORAGE_FAILED');
      expect((await rejection(sink.truncate(0))).code).toBe('SPILL_STORAGE_FAILED');
    } finally {
      await sink.close();
    }
    // Closing a published sink keeps the artifact and removes the temp name.
    expect(filesUnder(root).map((f) => path.basename(f))).toEqual([expect.stringMatching(/-out\.bin$/)]);
    await sink.close(); // idempotent
  });

  it('takes a child process\'s stdout and stderr directly, in write order (> file 2>&1)', async () => {
    const backend = createLocalBackend({ root });
    const sink = await backend.fileSink.open(sinkRequest('child.txt'));
    try {
      const r = spawnSync('sh', ['-c', 'printf one; printf two >&2; printf three; cat /usr/bin/true'], { stdio: ['ignore', sink.fd, sink.fd] });
      expect(r.status).toBe(0);
      const ref = await sink.publish();
      const expected = Buffer.concat([Buffer.from('onetwothree'), fs.readFileSync('/usr/bin/true')]);
      expect(fs.readFileSync(ref.locator)).toEqual(expected);
      expect(ref.bytes).toBe(expected.length);
    } finally {
      await sink.close();
    }
  });

  it('leaves nothing behind when closed without publishing', async () => {
    const backend = createLocalBackend({ root });
    const sink = await backend.fileSink.open(sinkRequest());
    await sink.write(Buffer.from('draft'), 0);
    await sink.truncate(2);
    expect(await sink.size()).toBe(2);
    await sink.close();
    expect(filesUnder(root)).toEqual([]);
    expect((await rejection(sink.size())).code).toBe('SPILL_STORAGE_FAILED');
  });

  it('is exactly 0600 under a hostile umask', async () => {
    const previous = process.umask(0o277);
    try {
      const sink = await createLocalBackend({ root }).fileSink.open(sinkRequest());
      try {
        expect(fs.fstatSync(sink.fd).mode & 0o777).toBe(0o600);
      } finally {
        await sink.close();
      }
    } finally {
      process.umask(previous);
    }
  });

  it('refuses an unsafe session directory, as a save does', async () => {
    const backend = createLocalBackend({ root });
    const probe = await backend.fileSink.open(sinkRequest());
    const sessionDir = path.dirname(filesUnder(root)[0] ?? '');
    await probe.close();
    fs.chmodSync(sessionDir, 0o777);
    const fresh = createLocalBackend({ root });
    expect((await rejection(fresh.fileSink.open(sinkRequest()))).code).toBe('SPILL_UNSAFE_ROOT');
  });

  it('turns ENOSPC at write into SPILL_NO_SPACE and keeps what was written readable', async () => {
    let writes = 0;
    const ops: FsOps = {
      ...nodeFsOps,
      write: (...args) => (++writes === 2 ? Promise.reject(Object.assign(new Error('ENOSPC: injected'), { code: 'ENOSPC' })) : nodeFsOps.write(...args)),
    };
    const backend = createLocalBackendWith({ root }, { ops });
    const sink = await backend.fileSink.open(sinkRequest());
    try {
      await sink.write(Buffer.from('kept'), 0);
      expect((await rejection(sink.write(Buffer.from('lost'), 4))).code).toBe('SPILL_NO_SPACE');
      const back = Buffer.alloc(4);
      expect(await sink.read(back, 0, 4, 0)).toBe(4);
      expect(back.toString()).toBe('kept');
    } finally {
      await sink.close();
    }
    expect(filesUnder(root)).toEqual([]);
  });

  it('rejects a malformed request with SPILL_INVALID_INPUT and holds no descriptor', async () => {
    const backend = createLocalBackend({ root, maxOpenFiles: 8 });
    const bad = { ...sinkRequest(), owner: { sessionId: '' } } as unknown as OpenFileSinkSpill;
    expect((await rejection(backend.fileSink.open(bad))).code).toBe('SPILL_INVALID_INPUT');
    // Every permit is back: eight sinks can still be open at once (two descriptors each, four at a time).
    const sinks = await Promise.all(Array.from({ length: 4 }, () => backend.fileSink.open(sinkRequest())));
    await Promise.all(sinks.map((s) => s.close()));
    expect(filesUnder(root)).toEqual([]);
  });
});
