import { isSpillError, sessionId, spillLocator, utf8ByteLength } from '@spillway/core';
import type { SaveTextSpill } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MEMORY_MAX_ARTIFACTS,
  DEFAULT_MEMORY_MAX_BYTES,
  MAX_TOOL_NAME_LENGTH,
  MEMORY_RETRIEVAL_HINT,
  createMemoryBackend,
} from './index.js';
import type { MemoryBackendOptions } from './index.js';
import { sessionDirName } from '@spillway/backend-utils/naming';
import { collect, locators, rejection, request, streamRequest } from './test-helpers.js';

const LOCATOR = /^spill\+memory:\/\/(session-[0-9a-f]{32})\/[0-9a-f]{32}$/;

function code(error: unknown): string | undefined {
  return isSpillError(error) ? error.code : undefined;
}

describe('createMemoryBackend options', () => {
  it('has sensible defaults', () => {
    const backend = createMemoryBackend();
    expect(backend.name).toBe('memory');
    expect(backend.stats()).toMatchObject({ maxBytes: DEFAULT_MEMORY_MAX_BYTES, maxArtifacts: DEFAULT_MEMORY_MAX_ARTIFACTS });
    expect(backend.reader).toBeDefined();
    expect(backend.catalog).toBeDefined();
    expect('sweepTemp' in backend.catalog).toBe(false);
  });

  const invalid: readonly [string, unknown][] = [
    ['a negative maxBytes', { maxBytes: -1 }],
    ['a fractional maxBytes', { maxBytes: 1.5 }],
    ['a NaN maxBytes', { maxBytes: Number.NaN }],
    ['an infinite maxBytes', { maxBytes: Infinity }],
    ['a string maxBytes', { maxBytes: '1024' }],
    ['a zero maxArtifacts', { maxArtifacts: 0 }],
    ['a negative maxTombstones', { maxTombstones: -1 }],
    ['a clock that is not a function', { now: 5 }],
    ['an unknown option (a typo)', { maxbytes: 10 }],
    ['null options', null],
    ['a number as options', 7],
  ];
  for (const [label, options] of invalid) {
    it(`throws a TypeError for ${label}`, () => {
      expect(() => createMemoryBackend(options as MemoryBackendOptions)).toThrow(TypeError);
    });
  }

  it('rejects a save with a TypeError, storing nothing, when the injected clock returns garbage', async () => {
    const backend = createMemoryBackend({ now: () => Number.NaN });
    await expect(backend.saveText(request('x'))).rejects.toThrow(TypeError);
    expect(backend.stats().artifacts).toBe(0);
  });

  it('accepts maxBytes 0, which holds only empty artifacts', async () => {
    const backend = createMemoryBackend({ maxBytes: 0 });
    const ref = await backend.saveText(request(''));
    expect(ref.bytes).toBe(0);
    expect(code(await rejection(backend.saveText(request('x'))))).toBe('SPILL_TOO_LARGE');
  });
});

describe('saveText', () => {
  it('stores the content and answers an exact ref with the memory retrieval hint', async () => {
    const backend = createMemoryBackend();
    const content = 'héllo 🌍\nsecond line\n';
    const ref = await backend.saveText(request(content));
    expect(ref.locator).toMatch(LOCATOR);
    expect(ref.bytes).toBe(utf8ByteLength(content));
    expect(ref.retrievalHint).toBe(MEMORY_RETRIEVAL_HINT);
    expect(MEMORY_RETRIEVAL_HINT).toMatch(/spill_read.*spill_grep/);
    const read = await backend.reader.read(ref.locator);
    expect(read.text).toBe(content);
    expect(read.totalBytes).toBe(ref.bytes);
  });

  it('counts a lone surrogate as the 3 bytes of U+FFFD', async () => {
    const backend = createMemoryBackend();
    const ref = await backend.saveText(request('a\uD800b'));
    expect(ref.bytes).toBe(5);
    expect((await backend.reader.read(ref.locator)).text).toBe('a\uFFFDb');
  });

  it('gives every save a distinct locator, even with the same name and session', async () => {
    const backend = createMemoryBackend();
    const refs = await Promise.all(Array.from({ length: 1000 }, () => backend.saveText(request('x'))));
    expect(new Set(refs.map((r) => r.locator)).size).toBe(1000);
  });

  it('rejects (never throws synchronously) a malformed request with SPILL_INVALID_INPUT', async () => {
    const backend = createMemoryBackend();
    const bad: unknown[] = [
      null,
      'text',
      { ...request('x'), content: 42 },
      { ...request('x'), owner: { sessionId: '' } },
      { ...request('x'), source: undefined },
      { ...request('x'), suggestedName: undefined },
    ];
    for (const input of bad) {
      let promise: Promise<unknown> | undefined;
      expect(() => {
        promise = backend.saveText(input as SaveTextSpill);
      }).not.toThrow();
      expect(code(await rejection(promise ?? Promise.resolve()))).toBe('SPILL_INVALID_INPUT');
    }
    expect(backend.stats().artifacts).toBe(0);
  });

  it('rejects with SPILL_ABORTED, storing nothing, when the signal has already fired', async () => {
    const backend = createMemoryBackend();
    const reason = new Error('user cancelled');
    const error = await rejection(backend.saveText(request('x'), { signal: AbortSignal.abort(reason) }));
    expect(code(error)).toBe('SPILL_ABORTED');
    expect((error as Error).cause).toBe(reason);
    expect(backend.stats().artifacts).toBe(0);
  });

  it('refuses content larger than maxBytes with SPILL_TOO_LARGE and evicts nothing', async () => {
    const backend = createMemoryBackend({ maxBytes: 10 });
    const kept = await backend.saveText(request('12345'));
    expect(code(await rejection(backend.saveText(request('€€€€'))))).toBe('SPILL_TOO_LARGE'); // 12 bytes in 4 units
    expect(code(await rejection(backend.saveText(request('x'.repeat(11)))))).toBe('SPILL_TOO_LARGE');
    expect((await backend.reader.read(kept.locator)).text).toBe('12345');
    expect(backend.stats()).toMatchObject({ evictions: 0, artifacts: 1 });
    expect((await backend.saveText(request('x'.repeat(10)))).bytes).toBe(10); // exactly maxBytes fits
  });

  it('keeps the suggested name only as a sanitised label; it never shapes the locator', async () => {
    const backend = createMemoryBackend();
    const names = ['../../etc/passwd', '/abs', 'a/b', '..', '', '\u0000x', '\u202Eevil.txt', 'CON', '-rf', '.hidden', 'ｆｕｌｌ／ｗｉｄｔｈ', 'x'.repeat(300)];
    for (const name of names) {
      const ref = await backend.saveText(request('data', 'session-1', name));
      expect(ref.locator).toMatch(LOCATOR);
      expect(ref.locator).not.toContain(name === '' ? '\u0000' : name);
    }
    const entries = await collect(backend.catalog.list());
    for (const entry of entries) {
      expect(entry.name).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/);
    }
    expect(entries[0]?.name).toBe('etc_passwd');
    expect(entries[4]?.name).toBe('spill.txt');
  });

  it('keeps a bounded slice of a huge suggested name and tool name, however long they are', { timeout: 60_000 }, async () => {
    const backend = createMemoryBackend();
    const huge = '\u{1F600}ab'.repeat(2_500_000); // 10 million code units
    await backend.saveText({ ...request('data', 'session-1', huge), source: { toolName: huge, callId: request('').source.callId } });
    const [entry] = await collect(backend.catalog.list());
    expect(entry?.name.length).toBeLessThanOrEqual(100);
    expect(entry?.toolName.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
    expect(entry?.toolName.startsWith('\u{1F600}ab')).toBe(true);
    // Never half a surrogate pair at the cut.
    expect(entry?.toolName).not.toMatch(/[\uD800-\uDBFF]$/);
  });
});

describe('saveTextStream', () => {
  it('stores the concatenation of sync and async chunks', async () => {
    const backend = createMemoryBackend();
    const sync = await backend.saveTextStream(streamRequest(['a', 'é', '', '😀\n']));
    async function* gen() {
      yield 'x';
      await Promise.resolve();
      yield 'y\n';
    }
    const async = await backend.saveTextStream(streamRequest(gen()));
    expect((await backend.reader.read(sync.locator)).text).toBe('aé😀\n');
    expect(sync.bytes).toBe(utf8ByteLength('aé😀\n'));
    expect((await backend.reader.read(async.locator)).text).toBe('xy\n');
  });

  it('joins a surrogate pair split across chunks, exactly as if concatenated', async () => {
    const backend = createMemoryBackend();
    const [hi, lo] = ['\uD83D', '\uDE00']; // 😀
    const cases: [string[], string][] = [
      [[`a${hi}`, `${lo}b`], 'a😀b'],
      [[hi, '', lo], '😀'],
      [[hi, hi, lo], '\uFFFD😀'],
      [[`x${hi}`], 'x\uFFFD'],
      [[lo, hi], '\uFFFD\uFFFD'],
    ];
    for (const [chunks, expected] of cases) {
      const ref = await backend.saveTextStream(streamRequest(chunks));
      expect((await backend.reader.read(ref.locator)).text).toBe(expected);
      expect(ref.bytes).toBe(utf8ByteLength(chunks.join('')));
    }
  });

  it('stores an empty artifact for a stream with no chunks', async () => {
    const backend = createMemoryBackend();
    const ref = await backend.saveTextStream(streamRequest([]));
    expect(ref.bytes).toBe(0);
  });

  it('rejects a stream that throws with SPILL_STREAM_FAILED, its error as cause, publishing nothing', async () => {
    const backend = createMemoryBackend();
    const boom = new Error('disk read failed');
    async function* failing() {
      yield 'partial output';
      await Promise.resolve();
      throw boom;
    }
    const error = await rejection(backend.saveTextStream(streamRequest(failing())));
    expect(code(error)).toBe('SPILL_STREAM_FAILED');
    expect((error as Error).cause).toBe(boom);
    expect(backend.stats()).toMatchObject({ artifacts: 0, bytes: 0 });
    expect(await collect(backend.catalog.list())).toEqual([]);
  });

  it('rejects non-string chunks with SPILL_STREAM_FAILED, including a Promise in a sync iterable', async () => {
    const backend = createMemoryBackend();
    for (const chunk of [42, null, undefined, { text: 'x' }, Promise.resolve('x'), new Uint8Array([65])]) {
      const error = await rejection(backend.saveTextStream(streamRequest(['ok', chunk] as string[])));
      expect(code(error)).toBe('SPILL_STREAM_FAILED');
    }
    expect(backend.stats().artifacts).toBe(0);
  });

  it('rejects a stream whose iterator breaks the protocol with SPILL_STREAM_FAILED', async () => {
    const backend = createMemoryBackend();
    const broken = { [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve(5) }) };
    expect(code(await rejection(backend.saveTextStream(streamRequest(broken as never))))).toBe('SPILL_STREAM_FAILED');
    const throwing = {
      [Symbol.iterator]: () => {
        throw new Error('no iterator');
      },
    };
    expect(code(await rejection(backend.saveTextStream(streamRequest(throwing as never))))).toBe('SPILL_STREAM_FAILED');
  });

  it('rejects content that is not iterable with SPILL_INVALID_INPUT', async () => {
    const backend = createMemoryBackend();
    expect(code(await rejection(backend.saveTextStream(streamRequest(42 as never))))).toBe('SPILL_INVALID_INPUT');
  });

  it('rejects with SPILL_TOO_LARGE as soon as the running total passes maxBytes, pulling no further', async () => {
    const backend = createMemoryBackend({ maxBytes: 100 });
    let pulled = 0;
    let closed = false;
    function* endless() {
      try {
        for (;;) {
          pulled += 1;
          yield 'x'.repeat(30);
        }
      } finally {
        closed = true;
      }
    }
    const error = await rejection(backend.saveTextStream(streamRequest(endless())));
    expect(code(error)).toBe('SPILL_TOO_LARGE');
    expect(pulled).toBe(4); // 30 + 30 + 30 fit; the 4th passes 100
    expect(closed).toBe(true);
    expect(backend.stats().artifacts).toBe(0);
  });

  it('counts a trailing lone surrogate against maxBytes', async () => {
    const backend = createMemoryBackend({ maxBytes: 4 });
    expect(code(await rejection(backend.saveTextStream(streamRequest(['ab', '\uD800']))))).toBe('SPILL_TOO_LARGE');
    expect((await backend.saveTextStream(streamRequest(['a', '\uD800']))).bytes).toBe(4);
  });

  it('rejects with SPILL_ABORTED when the signal has already fired, without pulling a chunk', async () => {
    const backend = createMemoryBackend();
    let pulled = false;
    const stream = {
      *[Symbol.iterator]() {
        pulled = true;
        yield 'x';
      },
    };
    const error = await rejection(backend.saveTextStream(streamRequest(stream), { signal: AbortSignal.abort() }));
    expect(code(error)).toBe('SPILL_ABORTED');
    expect(pulled).toBe(false);
  });

  it('rejects with SPILL_ABORTED when a sync stream is aborted between chunks', async () => {
    const backend = createMemoryBackend();
    const controller = new AbortController();
    function* chunks() {
      yield 'a';
      controller.abort();
      yield 'b';
      yield 'c';
    }
    expect(code(await rejection(backend.saveTextStream(streamRequest(chunks()), { signal: controller.signal })))).toBe('SPILL_ABORTED');
    expect(backend.stats().artifacts).toBe(0);
  });
});

describe('eviction', () => {
  it('evicts the oldest artifacts first and answers SPILL_EXPIRED for them on read, grep and list', async () => {
    const backend = createMemoryBackend({ maxBytes: 10 });
    const a = await backend.saveText(request('aaaa'));
    const b = await backend.saveText(request('bbbb'));
    const c = await backend.saveText(request('cccc'));
    expect(code(await rejection(backend.reader.read(a.locator)))).toBe('SPILL_EXPIRED');
    expect(code(await rejection(backend.reader.grep(a.locator, 'a')))).toBe('SPILL_EXPIRED');
    expect(locators(await collect(backend.catalog.list()))).toEqual([b.locator, c.locator]);
    expect(backend.stats()).toMatchObject({ bytes: 8, artifacts: 2, evictions: 1, evictedBytes: 4 });
  });

  it('evicts as many as needed, and an empty artifact costs no bytes', async () => {
    const backend = createMemoryBackend({ maxBytes: 10 });
    const small = await Promise.all(['a', 'b', 'c', ''].map((s) => backend.saveText(request(s))));
    const big = await backend.saveText(request('x'.repeat(9)));
    // a and b go (9 + 3 > 10, then 9 + 2 > 10); c, the empty one and the new one fill exactly 10.
    expect(backend.stats()).toMatchObject({ bytes: 10, artifacts: 3, evictions: 2 });
    expect(locators(await collect(backend.catalog.list()))).toEqual([small[2]?.locator, small[3]?.locator, big.locator]);
  });

  it('also evicts the oldest once maxArtifacts would be passed', async () => {
    const backend = createMemoryBackend({ maxArtifacts: 2 });
    const refs = [];
    for (const s of ['', '', '']) refs.push(await backend.saveText(request(s)));
    expect(code(await rejection(backend.reader.read(refs[0]?.locator ?? spillLocator('x'))))).toBe('SPILL_EXPIRED');
    expect(backend.stats().artifacts).toBe(2);
  });

  it('remembers only maxTombstones evictions; older ones answer SPILL_NOT_FOUND', async () => {
    const backend = createMemoryBackend({ maxArtifacts: 1, maxTombstones: 2 });
    const refs = [];
    for (let i = 0; i < 4; i++) refs.push(await backend.saveText(request(String(i))));
    const codes = [];
    for (const ref of refs) {
      codes.push(await backend.reader.read(ref.locator).then(() => 'read', (error: unknown) => code(error)));
    }
    expect(codes).toEqual(['SPILL_NOT_FOUND', 'SPILL_EXPIRED', 'SPILL_EXPIRED', 'read']);
    expect(backend.stats().tombstones).toBe(2);
  });

  it('lets a grep that started before an eviction finish on what it had', { timeout: 120_000 }, async () => {
    const backend = createMemoryBackend({ maxBytes: 10_000_000 });
    const ref = await backend.saveText(request('line with needle\n'.repeat(500_000))); // ~8.5 MB
    // Half a million matches take seconds on a loaded machine: more than grep's default 5 s.
    const grep = backend.reader.grep(ref.locator, 'needle$', { maxMatches: 1_000_000, timeoutMs: 100_000 });
    await backend.saveText(request('x'.repeat(5_000_000))); // evicts the first while the grep runs
    expect((await grep).matches).toHaveLength(500_000);
    expect(code(await rejection(backend.reader.read(ref.locator)))).toBe('SPILL_EXPIRED');
  });
});

describe('catalog', () => {
  it('lists oldest first with exact bytes, createdAt from the clock, and one session key per session', async () => {
    let t = 1_000;
    const backend = createMemoryBackend({ now: () => (t += 1) });
    const a = await backend.saveText(request('one', 's1'));
    const b = await backend.saveText(request('two!', 's2'));
    const c = await backend.saveText(request('three', 's1'));
    const all = await collect(backend.catalog.list());
    expect(locators(all)).toEqual([a.locator, b.locator, c.locator]);
    expect(all.map((e) => e.bytes)).toEqual([3, 4, 5]);
    expect(all.map((e) => e.createdAt.getTime())).toEqual([1001, 1002, 1003]);
    expect(all.map((e) => e.toolName)).toEqual(['bash', 'bash', 'bash']);
    expect(all[0]?.session).toBe(all[2]?.session);
    expect(all[0]?.session).not.toBe(all[1]?.session);
    // The session key is the one in the locator, and the naming rule's name of the session.
    expect(all[0]?.session).toBe(LOCATOR.exec(a.locator)?.[1]);
    expect(all[1]?.session).toBe(LOCATOR.exec(b.locator)?.[1]);
    expect(all[0]?.session).toBe(sessionDirName(sessionId('s1')));
  });

  it('lists only the asked session, telling apart ids that differ only in lone surrogates', async () => {
    const backend = createMemoryBackend();
    const ids = ['s\uD800', 's\uDFFF', 's\uFFFD'];
    const refs = await Promise.all(ids.map((id) => backend.saveText(request(id, id))));
    for (const [i, id] of ids.entries()) {
      const listed = await collect(backend.catalog.list({ sessionId: sessionId(id) }));
      expect(locators(listed)).toEqual([refs[i]?.locator]);
    }
    expect(new Set(refs.map((r) => LOCATOR.exec(r.locator)?.[1])).size).toBe(3);
    expect(await collect(backend.catalog.list({ sessionId: sessionId('nobody') }))).toEqual([]);
  });

  it('hands out fresh Date objects, so a caller cannot change what is stored', async () => {
    const backend = createMemoryBackend({ now: () => 5 });
    await backend.saveText(request('x'));
    const [first] = await collect(backend.catalog.list());
    first?.createdAt.setTime(99);
    const [again] = await collect(backend.catalog.list());
    expect(again?.createdAt.getTime()).toBe(5);
  });

  it('yields every remaining entry exactly once while entries are deleted during the listing', async () => {
    const backend = createMemoryBackend();
    const refs = [];
    for (let i = 0; i < 20; i++) refs.push(await backend.saveText(request(String(i), i % 2 === 0 ? 'even' : 'odd')));
    const seen: string[] = [];
    for await (const entry of backend.catalog.list()) {
      seen.push(entry.locator);
      // Delete this one and the next two, as a retention sweep might.
      const i = refs.findIndex((r) => r.locator === entry.locator);
      for (const ref of refs.slice(i, i + 3)) await backend.catalog.delete(ref.locator);
    }
    expect(seen).toEqual(refs.filter((_, i) => i % 3 === 0).map((r) => r.locator));
    expect(backend.stats().artifacts).toBe(0);
  });

  it('deletes: true once, then false; a read or grep after delete answers SPILL_EXPIRED, telling the model to run the tool again', async () => {
    const backend = createMemoryBackend();
    const ref = await backend.saveText(request('x'));
    expect(await backend.catalog.delete(ref.locator)).toBe(true);
    expect(await backend.catalog.delete(ref.locator)).toBe(false);
    for (const error of [await rejection(backend.reader.read(ref.locator)), await rejection(backend.reader.grep(ref.locator, 'x'))]) {
      expect(code(error)).toBe('SPILL_EXPIRED');
      expect((error as Error).message).toMatch(/expired/i);
      expect((error as Error).message).toMatch(/run the tool again/i);
    }
    expect(await backend.catalog.delete(ref.locator)).toBe(false);
    expect(backend.stats()).toMatchObject({ artifacts: 0, bytes: 0, deletions: 1 });
  });

  it('answers SPILL_NOT_FOUND for a deleted locator once it has dropped out of the tombstone ring', async () => {
    const backend = createMemoryBackend({ maxTombstones: 1 });
    const first = await backend.saveText(request('first'));
    const second = await backend.saveText(request('second'));
    await backend.catalog.delete(first.locator);
    expect(code(await rejection(backend.reader.read(first.locator)))).toBe('SPILL_EXPIRED');
    await backend.catalog.delete(second.locator); // pushes the first tombstone out
    expect(code(await rejection(backend.reader.read(first.locator)))).toBe('SPILL_NOT_FOUND');
    expect(code(await rejection(backend.reader.grep(second.locator, 's')))).toBe('SPILL_EXPIRED');
    expect(await backend.catalog.delete(first.locator)).toBe(false);
  });

  it('remembers nothing with maxTombstones 0: a deleted locator answers SPILL_NOT_FOUND', async () => {
    const backend = createMemoryBackend({ maxTombstones: 0 });
    const ref = await backend.saveText(request('x'));
    await backend.catalog.delete(ref.locator);
    expect(code(await rejection(backend.reader.read(ref.locator)))).toBe('SPILL_NOT_FOUND');
  });

  it('answers false when deleting an evicted or unknown locator', async () => {
    const backend = createMemoryBackend({ maxArtifacts: 1 });
    const old = await backend.saveText(request('a'));
    await backend.saveText(request('b'));
    expect(await backend.catalog.delete(old.locator)).toBe(false);
    expect(await backend.catalog.delete(spillLocator(`spill+memory://session-${'0'.repeat(32)}/${'0'.repeat(32)}`))).toBe(false);
  });

  it('rejects a forged locator with SPILL_INVALID_LOCATOR on delete', async () => {
    const backend = createMemoryBackend();
    expect(code(await rejection(backend.catalog.delete(spillLocator('/etc/passwd'))))).toBe('SPILL_INVALID_LOCATOR');
    expect(code(await rejection(backend.catalog.delete(42 as never)))).toBe('SPILL_INVALID_LOCATOR');
  });

  it('rejects list and delete with SPILL_ABORTED when the signal has fired, deleting nothing', async () => {
    const backend = createMemoryBackend();
    const ref = await backend.saveText(request('x'));
    const signal = AbortSignal.abort();
    expect(code(await rejection(collect(backend.catalog.list({ signal }))))).toBe('SPILL_ABORTED');
    expect(code(await rejection(backend.catalog.delete(ref.locator, { signal })))).toBe('SPILL_ABORTED');
    expect(backend.stats().artifacts).toBe(1);
  });

  it('rejects a listing for an empty or non-string session id with SPILL_INVALID_INPUT', async () => {
    const backend = createMemoryBackend();
    for (const id of ['', 42]) {
      expect(code(await rejection(collect(backend.catalog.list({ sessionId: id as never }))))).toBe('SPILL_INVALID_INPUT');
    }
  });
});

describe('locators', () => {
  it('refuses forged shapes with SPILL_INVALID_LOCATOR and unknown ones with SPILL_NOT_FOUND', async () => {
    const backend = createMemoryBackend();
    const own = await backend.saveText(request('mine'));
    const foreign = await createMemoryBackend().saveText(request('elsewhere'));
    const forged = [
      '/etc/passwd',
      'spill+memory://x/y',
      'file:///tmp/a',
      `${own.locator}/..`,
      `${own.locator}x`,
      own.locator.toUpperCase(),
      ` ${own.locator}`,
      `${own.locator}\u0000`,
      own.locator.replace('spill+memory', 'spill+local'),
      own.locator.replace('session-', ''),
      own.locator.replace('session-', 'session-0'),
      `spill+memory://${'0'.repeat(16)}/${'0'.repeat(32)}`, // the shape before the naming rule
    ];
    for (const bad of forged) {
      expect(code(await rejection(backend.reader.read(spillLocator(bad))))).toBe('SPILL_INVALID_LOCATOR');
    }
    for (const bad of [undefined, null, 5, {}]) {
      expect(code(await rejection(backend.reader.read(bad as never)))).toBe('SPILL_INVALID_LOCATOR');
    }
    expect(code(await rejection(backend.reader.read(foreign.locator)))).toBe('SPILL_NOT_FOUND');
    // Another session's key with this artifact's id is not this artifact.
    const swapped = own.locator.replace(LOCATOR.exec(own.locator)?.[1] ?? '', `session-${'f'.repeat(32)}`);
    expect(code(await rejection(backend.reader.read(spillLocator(swapped))))).toBe('SPILL_NOT_FOUND');
  });

  it('names a session by the naming rule, as every backend does, and keeps a random id per artifact', async () => {
    const one = createMemoryBackend();
    const two = createMemoryBackend();
    const save = (backend: typeof one, id: string) => backend.saveText(request('x', id));
    const [a, b, c, d] = [await save(one, 'chat-1'), await save(one, 'chat-1'), await save(two, 'chat-1'), await save(one, 'chat-2')];
    const key = (ref: { locator: string }) => LOCATOR.exec(ref.locator)?.[1];
    expect(key(a)).toBe(sessionDirName(sessionId('chat-1')));
    expect(key(b)).toBe(key(a));
    expect(key(c)).toBe(key(a)); // the same on every instance, as a directory of the local backend is
    expect(key(d)).toBe(sessionDirName(sessionId('chat-2')));
    expect(key(d)).not.toBe(key(a));
    expect(new Set([a, b, c, d].map((r) => r.locator.slice(-32))).size).toBe(4);
  });
});

describe('grep: patterns a backtracking guard would have refused', () => {
  // RE2 answers these in linear time, so every backend answers them, here and on disk.
  const content = 'hello world\naaac\nabc!x\n(.*a){20}\n';
  const expected: Record<string, number[]> = {
    '(\\w+\\s?)+$': [1, 2, 3],
    'a{1,30}a{1,30}a{1,30}c': [2],
    '(.*a){20}': [],
    '[a-z]*[a-z]*[a-z]*[a-z]*!x': [3],
  };
  for (const [pattern, lines] of Object.entries(expected)) {
    it(`answers ${pattern}, and runs it literally with literal: true`, async () => {
      const backend = createMemoryBackend();
      const ref = await backend.saveText(request(content));
      expect((await backend.reader.grep(ref.locator, pattern)).matches.map((m) => m.line)).toEqual(lines);
      const literal = await backend.reader.grep(ref.locator, pattern, { literal: true });
      expect(literal.matches.map((m) => m.line)).toEqual(content.split('\n').flatMap((line, i) => (line.includes(pattern) ? [i + 1] : [])));
    });
  }
});
