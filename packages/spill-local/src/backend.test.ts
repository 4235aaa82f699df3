import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isSpillError, sessionId, spillLocator } from '@spillway/core';
import type { SpillEntry } from '@spillway/core';
import { LOCAL_RETRIEVAL_HINT, createLocalBackend, defaultLocalRoot } from './index.js';
import { sessionDirName } from './names.js';
import { makeRoot, request, streamRequest } from './test-helpers.js';

let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ root, cleanup } = makeRoot());
});
afterEach(() => {
  cleanup();
});

async function collect(it: AsyncIterable<SpillEntry>): Promise<SpillEntry[]> {
  const out: SpillEntry[] = [];
  for await (const e of it) out.push(e);
  return out;
}

describe('createLocalBackend options', () => {
  it.each([
    [{ maxOpenFiles: 0 }],
    [{ maxOpenFiles: 1 }],
    [{ maxOpenFiles: 1.5 }],
    [{ maxOpenFiles: '64' }],
    [{ root: 42 }],
    [{ root: '' }],
    [{ root: '/tmp/a\0b' }],
    [{ durable: 'yes' }],
    [{ createRoot: 1 }],
    [{ temporary: 'yes' }],
    [{ temporary: true, root: '/x' }],
    [{ temporary: true, createRoot: true }],
  ])('throws a TypeError at construction for %j', (opts) => {
    expect(() => createLocalBackend(opts as never)).toThrow(TypeError);
  });

  it.each([
    [{ rooot: '/x' }, 'rooot'],
    [{ root: '/x', maxAge: 1 }, 'maxAge'],
    [{ maxOpenfiles: 64 }, 'maxOpenfiles'],
    [{ durable: true, signal: null }, 'signal'],
  ])('rejects the unknown key in %j with a TypeError that names it and lists the known ones', (opts, key) => {
    expect(() => createLocalBackend(opts as never)).toThrow(
      new TypeError(`createLocalBackend: unknown option "${key}"; expected one of root, createRoot, temporary, durable, maxOpenFiles.`),
    );
  });

  it('accepts every documented key', () => {
    expect(() => createLocalBackend({ root, createRoot: false, durable: false, maxOpenFiles: 8 })).not.toThrow();
    expect(() => createLocalBackend({ temporary: true, durable: false, maxOpenFiles: 8 })).not.toThrow();
  });

  it('resolves a relative root against the working directory at construction', async () => {
    const rel = path.relative(process.cwd(), root);
    const backend = createLocalBackend({ root: rel });
    expect(await backend.root()).toBe(fs.realpathSync(root));
  });

  it("declares the seam's version and answers the search index home <root>.search, a sibling of the root", async () => {
    const backend = createLocalBackend({ root });
    expect(backend.specificationVersion).toBe('v1');
    const real = fs.realpathSync(root);
    expect(await backend.indexHome()).toBe(path.join(path.dirname(real), `${path.basename(real)}.search`));
    // The answer validates the root, as a save does, and creates nothing beside it.
    expect(fs.existsSync(`${real}.search`)).toBe(false);
    const missing = createLocalBackend({ root: path.join(root, 'missing'), createRoot: false });
    expect(isSpillError(await missing.indexHome().catch((e: unknown) => e))).toBe(true);
  });

  it('with no root, uses the per-user state root $XDG_STATE_HOME/spillway, created 0700 (what `spillway ls` and `gc` manage)', async () => {
    vi.stubEnv('XDG_STATE_HOME', path.join(root, 'state'));
    try {
      expect(defaultLocalRoot()).toBe(path.join(root, 'state', 'spillway'));
      for (const backend of [createLocalBackend(), createLocalBackend({})]) {
        const ref = await backend.saveText(request('x'));
        expect(await backend.root()).toBe(path.join(fs.realpathSync(root), 'state', 'spillway'));
        expect(ref.locator.startsWith(`${fs.realpathSync(root)}/state/spillway/session-`)).toBe(true);
      }
      for (const p of [path.join(root, 'state'), path.join(root, 'state', 'spillway')]) expect(fs.statSync(p).mode & 0o777).toBe(0o700);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('the default state root is checked like any root: a group-readable one is refused, never chmod-ed', async () => {
    fs.mkdirSync(path.join(root, 'state', 'spillway'), { recursive: true, mode: 0o700 });
    fs.chmodSync(path.join(root, 'state', 'spillway'), 0o750);
    vi.stubEnv('XDG_STATE_HOME', path.join(root, 'state'));
    try {
      const err: unknown = await createLocalBackend().root().catch((e: unknown) => e);
      expect(isSpillError(err, 'SPILL_UNSAFE_ROOT'), String(err)).toBe(true);
      expect(fs.statSync(path.join(root, 'state', 'spillway')).mode & 0o777).toBe(0o750);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('defaultLocalRoot ignores a relative XDG_STATE_HOME and falls back to ~/.local/state/spillway', () => {
    expect(defaultLocalRoot({ XDG_STATE_HOME: 'rel/state' }, '/home/u')).toBe('/home/u/.local/state/spillway');
    expect(defaultLocalRoot({}, '/home/u')).toBe('/home/u/.local/state/spillway');
    expect(defaultLocalRoot({ XDG_STATE_HOME: '/s' }, '/home/u')).toBe('/s/spillway');
  });

  it('temporary: true makes a private throwaway root lazily under the temp directory', async () => {
    const backend = createLocalBackend({ temporary: true });
    const r = await backend.root();
    try {
      const st = fs.lstatSync(r);
      expect(st.isDirectory()).toBe(true);
      expect(st.mode & 0o777).toBe(0o700);
      expect(path.basename(r)).toMatch(/^spillway-/);
      expect(path.dirname(r)).toBe(fs.realpathSync(os.tmpdir()));
    } finally {
      fs.rmSync(r, { recursive: true, force: true });
    }
  });
});

describe('saving', () => {
  it('stores the full text at <root>/session-<h>/<random>-<name> and returns its exact byte count', async () => {
    const backend = createLocalBackend({ root });
    const content = 'héllo wörld 😀\n'.repeat(100);
    const ref = await backend.saveText(request(content, 'web_fetch.txt', 'chat-1'));
    expect(ref.retrievalHint).toBe(LOCAL_RETRIEVAL_HINT);
    expect(ref.bytes).toBe(Buffer.byteLength(content));
    expect(path.dirname(ref.locator)).toBe(path.join(fs.realpathSync(root), sessionDirName(sessionId('chat-1'))));
    expect(path.basename(ref.locator)).toMatch(/^[0-9a-f]{20}-web_fetch\.txt$/);
    expect(fs.readFileSync(ref.locator, 'utf8')).toBe(content);
    expect(fs.statSync(ref.locator).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(ref.locator)).mode & 0o777).toBe(0o700);
  });

  it('stores an empty text as an empty file', async () => {
    const backend = createLocalBackend({ root });
    const ref = await backend.saveText(request(''));
    expect(ref.bytes).toBe(0);
    expect(fs.readFileSync(ref.locator, 'utf8')).toBe('');
  });

  it('leaves no temp file behind after a successful save', async () => {
    const backend = createLocalBackend({ root });
    const ref = await backend.saveText(request('x'));
    expect(fs.readdirSync(path.dirname(ref.locator))).toEqual([path.basename(ref.locator)]);
  });

  it('writes lone surrogates as U+FFFD, like every UTF-8 encoder, and counts them as 3 bytes', async () => {
    const backend = createLocalBackend({ root });
    const content = 'a\uD800b\uDFFFc';
    const ref = await backend.saveText(request(content));
    expect(fs.readFileSync(ref.locator)).toEqual(Buffer.from(content));
    expect(ref.bytes).toBe(9);
  });

  it('durable saves store the same bytes', async () => {
    const backend = createLocalBackend({ root, durable: true });
    const ref = await backend.saveText(request('durable\n'));
    expect(fs.readFileSync(ref.locator, 'utf8')).toBe('durable\n');
  });

  it('rejects malformed requests with SPILL_INVALID_INPUT', async () => {
    const backend = createLocalBackend({ root });
    await expect(backend.saveText({ ...request('x'), content: 5 } as never)).rejects.toMatchObject({ code: 'SPILL_INVALID_INPUT' });
    await expect(backend.saveText({ ...request('x'), owner: { sessionId: '' } } as never)).rejects.toMatchObject({ code: 'SPILL_INVALID_INPUT' });
    await expect(backend.saveTextStream({ ...request('x'), content: 5 } as never)).rejects.toMatchObject({ code: 'SPILL_INVALID_INPUT' });
  });

  it('rejects an already-aborted save with SPILL_ABORTED and creates nothing', async () => {
    const backend = createLocalBackend({ root });
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await expect(backend.saveText(request('x'), { signal: ac.signal })).rejects.toMatchObject({ code: 'SPILL_ABORTED' });
    expect(fs.readdirSync(root)).toEqual([]);
  });
});

describe('streaming', () => {
  it('concatenates sync and async chunks and keeps a surrogate pair split across chunks whole', async () => {
    const backend = createLocalBackend({ root });
    const chunks = ['ab', '\uD83D', '\uDE00', 'c\n', '', 'end'];
    async function* gen(): AsyncGenerator<string> {
      for (const c of chunks) {
        await Promise.resolve();
        yield c;
      }
    }
    const a = await backend.saveTextStream(streamRequest(chunks));
    const b = await backend.saveTextStream(streamRequest(gen()));
    for (const ref of [a, b]) {
      expect(fs.readFileSync(ref.locator, 'utf8')).toBe(chunks.join(''));
      expect(ref.bytes).toBe(Buffer.byteLength(chunks.join('')));
    }
  });

  it('writes a lone high surrogate at the very end as U+FFFD', async () => {
    const backend = createLocalBackend({ root });
    const ref = await backend.saveTextStream(streamRequest(['x', '\uD83D']));
    expect(fs.readFileSync(ref.locator)).toEqual(Buffer.from('x\uFFFD'));
    expect(ref.bytes).toBe(4);
  });

  it('rejects a stream that throws with SPILL_STREAM_FAILED and publishes nothing', async () => {
    const backend = createLocalBackend({ root });
    async function* bad(): AsyncGenerator<string> {
      yield 'partial';
      await Promise.resolve();
      throw new Error('producer died');
    }
    const err: unknown = await backend.saveTextStream(streamRequest(bad())).catch((e: unknown) => e);
    expect(isSpillError(err, 'SPILL_STREAM_FAILED')).toBe(true);
    const dir = path.join(root, sessionDirName(sessionId('session-a')));
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('rejects a non-string chunk with SPILL_STREAM_FAILED', async () => {
    const backend = createLocalBackend({ root });
    await expect(backend.saveTextStream(streamRequest(['ok', 42 as unknown as string]))).rejects.toMatchObject({
      code: 'SPILL_STREAM_FAILED',
    });
  });
});

describe('reading back', () => {
  it('reads a line range with 1-based offsets and reports what follows', async () => {
    const backend = createLocalBackend({ root });
    const ref = await backend.saveText(request('one\ntwo\nthree\nfour\n'));
    const r = await backend.reader.read(ref.locator, { offset: 2, limit: 2 });
    expect(r).toEqual({ text: 'two\nthree\n', startLine: 2, endLine: 3, truncated: false, hasMore: true, nextOffset: 4, totalBytes: 19 });
  });

  it('answers a read whose maxBytes holds not even the first character as truncated, with no nextOffset', async () => {
    const backend = createLocalBackend({ root });
    const ref = await backend.saveText(request('😀 wide\nnext\n'));
    const r = await backend.reader.read(ref.locator, { maxBytes: 3 });
    expect(r).toEqual({ text: '', startLine: 1, endLine: 0, truncated: true, hasMore: true, totalBytes: 15 });
  });

  it('greps with line numbers, case folding and literal mode', async () => {
    const backend = createLocalBackend({ root });
    const ref = await backend.saveText(request('alpha\nBeta\ngammaZx\nbeta\n'));
    const r1 = await backend.reader.grep(ref.locator, 'beta', { ignoreCase: true });
    expect(r1.matches).toEqual([
      { line: 2, text: 'Beta', truncated: false },
      { line: 4, text: 'beta', truncated: false },
    ]);
    const r2 = await backend.reader.grep(ref.locator, 'a.x', { literal: true });
    expect(r2.matches).toEqual([]);
    const r3 = await backend.reader.grep(ref.locator, 'a.x');
    expect(r3.matches.map((m) => m.line)).toEqual([3]);
    expect(r3.totalBytes).toBe(24);
  });

  it('answers SPILL_NOT_FOUND for a well-formed locator that names nothing', async () => {
    const backend = createLocalBackend({ root });
    const ref = await backend.saveText(request('x'));
    const missing = spillLocator(path.join(path.dirname(ref.locator), '0123456789abcdef0123-gone.txt'));
    await expect(backend.reader.read(missing)).rejects.toMatchObject({ code: 'SPILL_NOT_FOUND' });
    const otherSession = spillLocator(path.join(fs.realpathSync(root), sessionDirName(sessionId('nobody-here')), '0123456789abcdef0123-gone.txt'));
    await expect(backend.reader.read(otherSession)).rejects.toMatchObject({ code: 'SPILL_NOT_FOUND' });
  });
});

describe('catalog', () => {
  it('lists artifacts of every session or of one, with sizes and the session key', async () => {
    const backend = createLocalBackend({ root });
    const a = await backend.saveText(request('aaa', 'a.txt', 's1'));
    const b = await backend.saveText(request('bb', 'b.txt', 's2'));
    const all = await collect(backend.catalog.list());
    expect(all.map((e) => e.locator).sort()).toEqual([a.locator, b.locator].sort());
    const only = await collect(backend.catalog.list({ sessionId: sessionId('s2') }));
    expect(only).toHaveLength(1);
    expect(only[0]).toMatchObject({ locator: b.locator, bytes: 2, session: sessionDirName(sessionId('s2')) });
    expect(only[0]?.createdAt).toBeInstanceOf(Date);
    expect(await collect(backend.catalog.list({ sessionId: sessionId('never-used') }))).toEqual([]);
  });

  it('deletes an artifact once: true, then false', async () => {
    const backend = createLocalBackend({ root });
    const ref = await backend.saveText(request('x'));
    expect(await backend.catalog.delete(ref.locator)).toBe(true);
    expect(fs.existsSync(ref.locator)).toBe(false);
    expect(await backend.catalog.delete(ref.locator)).toBe(false);
    await expect(backend.reader.read(ref.locator)).rejects.toMatchObject({ code: 'SPILL_NOT_FOUND' });
  });

  it('sweeps temp files older than the cutoff and keeps newer ones and artifacts', async () => {
    const backend = createLocalBackend({ root });
    const ref = await backend.saveText(request('keep'));
    const dir = path.dirname(ref.locator);
    const old = path.join(dir, `.tmp-${'a'.repeat(32)}`);
    const fresh = path.join(dir, `.tmp-${'b'.repeat(32)}`);
    fs.writeFileSync(old, 'partial', { mode: 0o600 });
    fs.writeFileSync(fresh, 'partial2', { mode: 0o600 });
    const past = new Date(Date.now() - 3_600_000);
    fs.utimesSync(old, past, past);
    expect(await backend.catalog.sweepTemp({ olderThanMs: 60_000 })).toEqual({ removed: 1, bytes: 7 });
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
    expect(fs.existsSync(ref.locator)).toBe(true);
    const listed = await collect(backend.catalog.list());
    expect(listed.map((e) => e.locator)).toEqual([ref.locator]);
  });
});
