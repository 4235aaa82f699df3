// Incoming files: a command writes into one before anyone knows whether its output will be
// stored, and the file sink takes that very file over. What must hold: the adopted file is
// the one written (no copy), every byte written before and after the takeover is published,
// anything that is not this root's private incoming file is refused with nothing moved and
// the caller's descriptor still readable, and a leftover is swept.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { callId, isSpillError, sessionId, type SpillError } from '@spillway/core';
import type { OpenFileSinkSpill } from '@spillway/core/file-sink';
import { createLocalBackend } from './index.js';
import { discardIncomingFile, INCOMING_DIR, openIncomingFile, type IncomingFile } from './incoming.js';
import { freshRootEachTest, withUmask } from './test-helpers.js';

let root: string;
freshRootEachTest('spill-local-incoming-', (dir) => {
  root = dir;
});

const request: OpenFileSinkSpill = { owner: { sessionId: sessionId('incoming-session') }, source: { toolName: 'cmd', callId: callId('c1') }, suggestedName: 'out.txt' };

async function rejection(p: Promise<unknown>): Promise<SpillError> {
  const err: unknown = await p.then(() => undefined, (e: unknown) => e);
  expect(isSpillError(err), `expected a SpillError, got ${String(err)}`).toBe(true);
  return err as SpillError;
}

const incomingNames = (): string[] => fs.readdirSync(path.join(root, INCOMING_DIR));

/** What `fd` holds from its start, read through the descriptor. */
function readThrough(fd: number): Buffer {
  const size = fs.fstatSync(fd).size;
  const bytes = Buffer.alloc(size);
  fs.readSync(fd, bytes, 0, size, 0);
  return bytes;
}

describe('incoming files', () => {
  it('are made private in a private directory of the root, and discarded without a trace', () => {
    const file = openIncomingFile(root);
    expect(path.dirname(file.path)).toBe(path.join(root, INCOMING_DIR));
    expect(path.basename(file.path)).toMatch(/^\.tmp-[0-9a-f]{32}$/);
    expect(fs.statSync(path.join(root, INCOMING_DIR)).mode & 0o777).toBe(0o700);
    expect(fs.fstatSync(file.fd).mode & 0o777).toBe(0o600);
    discardIncomingFile(file);
    expect(incomingNames()).toEqual([]);
    expect(() => fs.fstatSync(file.fd)).toThrow();
    // Twice is harmless.
    discardIncomingFile(file);
  });

  it('are exactly 0600 in a directory of exactly 0700 whatever the umask', async () => {
    const file = await withUmask(0o277, () => Promise.resolve(openIncomingFile(root)));
    expect(fs.statSync(path.join(root, INCOMING_DIR)).mode & 0o777).toBe(0o700);
    expect(fs.fstatSync(file.fd).mode & 0o777).toBe(0o600);
    fs.writeSync(file.fd, 'still writable\n');
    discardIncomingFile(file);
  });

  it('refuse an incoming directory that others may enter or that is a link', () => {
    fs.mkdirSync(path.join(root, INCOMING_DIR), { mode: 0o755 });
    fs.chmodSync(path.join(root, INCOMING_DIR), 0o755);
    expect(() => openIncomingFile(root)).toThrow(/not a private directory/);
    fs.rmdirSync(path.join(root, INCOMING_DIR));
    const elsewhere = fs.mkdtempSync(path.join(path.dirname(root), 'elsewhere-'));
    try {
      fs.symlinkSync(elsewhere, path.join(root, INCOMING_DIR));
      expect(() => openIncomingFile(root)).toThrow();
      expect(fs.readdirSync(elsewhere)).toEqual([]);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('are never made under a directory others could swap the root from, nor in a root that is not private', () => {
    const parent = fs.mkdtempSync(path.join(root, 'parent-'));
    const inner = path.join(parent, 'root');
    fs.mkdirSync(inner, { mode: 0o700 });
    fs.chmodSync(parent, 0o777);
    expect(() => openIncomingFile(inner)).toThrow(/writable by group or others and not sticky/);
    expect(fs.readdirSync(inner)).toEqual([]);
    // Sticky, as /tmp is: nobody else can rename the root away.
    fs.chmodSync(parent, 0o1777);
    discardIncomingFile(openIncomingFile(inner));
    fs.chmodSync(parent, 0o700);
    fs.chmodSync(inner, 0o750);
    expect(() => openIncomingFile(inner)).toThrow(/not a private directory/);
    expect(() => openIncomingFile('relative/root')).toThrow(/not an absolute path/);
  });

  it('are taken over by the file sink as they are: the same file, every byte written before and after, nothing left behind', async () => {
    const backend = createLocalBackend({ root });
    const file = openIncomingFile(root);
    const before = fs.fstatSync(file.fd);
    fs.writeSync(file.fd, 'written before the takeover\n');
    const sink = await backend.fileSink.adopt(request, file);
    try {
      expect(sink.fd).toBe(file.fd);
      // The command goes on writing through its own descriptor (the same open file).
      fs.writeSync(file.fd, 'and after it\n');
      expect(await sink.size()).toBe(Buffer.byteLength('written before the takeover\nand after it\n'));
      const ref = await sink.publish();
      expect(await backend.reader.read(ref.locator, { limit: 10 })).toMatchObject({ text: 'written before the takeover\nand after it\n' });
      // A local locator is the artifact's path.
      const onDisk = fs.statSync(ref.locator);
      expect(onDisk.ino).toBe(before.ino);
      expect(onDisk.nlink).toBe(1);
    } finally {
      await sink.close();
    }
    expect(incomingNames()).toEqual([]);
  });

  it('refuses what is not this root private incoming file, moves nothing, and leaves the descriptor readable', async () => {
    const backend = createLocalBackend({ root });
    await backend.root();
    const file = openIncomingFile(root);
    fs.writeSync(file.fd, 'the output so far\n');
    const cases: [string, IncomingFile][] = [];
    // A name that is not an incoming file's.
    const plain = path.join(root, INCOMING_DIR, 'output.txt');
    fs.linkSync(file.path, plain);
    fs.unlinkSync(file.path);
    cases.push(['another name', { fd: file.fd, path: plain }]);
    // Another file than the descriptor's, under an incoming name.
    const other = openIncomingFile(root);
    cases.push(['another file', { fd: file.fd, path: other.path }]);
    // A path outside the incoming directory.
    cases.push(['outside the directory', { fd: file.fd, path: path.join(root, path.basename(other.path)) }]);
    for (const [what, candidate] of cases) {
      expect((await rejection(backend.fileSink.adopt(request, candidate))).code, what).toBe('SPILL_UNSAFE_ROOT');
      expect(readThrough(file.fd).toString(), what).toBe('the output so far\n');
    }
    // Two links: somebody could still reach the file under its other name.
    const named = { fd: file.fd, path: path.join(root, INCOMING_DIR, `.tmp-${'a'.repeat(32)}`) };
    fs.linkSync(plain, named.path);
    expect((await rejection(backend.fileSink.adopt(request, named))).code).toBe('SPILL_UNSAFE_ROOT');
    fs.unlinkSync(plain);
    // The directory open to others.
    fs.chmodSync(path.join(root, INCOMING_DIR), 0o750);
    expect((await rejection(backend.fileSink.adopt(request, named))).code).toBe('SPILL_UNSAFE_ROOT');
    fs.chmodSync(path.join(root, INCOMING_DIR), 0o700);
    expect(incomingNames().sort()).toEqual([path.basename(named.path), path.basename(other.path)].sort());
    const sessions = fs.readdirSync(root).filter((name) => name.startsWith('session-'));
    expect(sessions.flatMap((name) => fs.readdirSync(path.join(root, name)))).toEqual([]);
    // Once it is this root's own incoming file, it is taken.
    const sink = await backend.fileSink.adopt(request, named);
    await sink.publish();
    await sink.close();
    expect(incomingNames()).toEqual([path.basename(other.path)]);
    discardIncomingFile(other);
    expect((await rejection(backend.fileSink.adopt(request, { fd: -1, path: named.path }))).code).toBe('SPILL_INVALID_INPUT');
  });

  it('left behind by a killed process are swept when old, never listed, and a fresh one is kept', async () => {
    const backend = createLocalBackend({ root });
    const old = openIncomingFile(root);
    fs.writeSync(old.fd, 'x'.repeat(100));
    fs.closeSync(old.fd);
    const hourAgo = new Date(Date.now() - 3_600_000);
    fs.utimesSync(old.path, hourAgo, hourAgo);
    const fresh = openIncomingFile(root);
    const entries = [];
    for await (const entry of backend.catalog.list()) entries.push(entry);
    expect(entries).toEqual([]);
    expect(await backend.catalog.sweepTemp({ olderThanMs: 60_000 })).toEqual({ removed: 1, bytes: 100 });
    expect(incomingNames()).toEqual([path.basename(fresh.path)]);
    discardIncomingFile(fresh);
  });
});

