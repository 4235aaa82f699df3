import { isSpillError, spillLocator, utf8ByteLength } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { MEMORY_RETRIEVAL_HINT, createMemoryBackend } from './index.js';
import { collect, locators, rejection, request } from './test-helpers.js';

const LOCATOR = /^spill\+memory:\/\/[0-9a-f]{16}\/[0-9a-f]{32}$/;

describe('saveText', () => {
  it('stores the content and answers an exact ref', async () => {
    const backend = createMemoryBackend();
    const content = 'héllo 🌍\nsecond line\n';
    const ref = await backend.saveText(request(content));
    expect(ref.locator).toMatch(LOCATOR);
    expect(ref.bytes).toBe(utf8ByteLength(content));
    expect(ref.retrievalHint).toBe(MEMORY_RETRIEVAL_HINT);
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
    const refs = await Promise.all(Array.from({ length: 200 }, () => backend.saveText(request('x'))));
    expect(new Set(refs.map((r) => r.locator)).size).toBe(200);
  });

  it('refuses content larger than maxBytes with SPILL_TOO_LARGE and evicts nothing', async () => {
    const backend = createMemoryBackend({ maxBytes: 10 });
    const kept = await backend.saveText(request('12345'));
    const error = await rejection(backend.saveText(request('€€€€'))); // 12 bytes in 4 code units
    expect(isSpillError(error, 'SPILL_TOO_LARGE')).toBe(true);
    expect((await backend.reader.read(kept.locator)).text).toBe('12345');
    expect(backend.stats().evictions).toBe(0);
  });
});

describe('eviction', () => {
  it('evicts the oldest artifacts first and answers SPILL_EXPIRED for them', async () => {
    const backend = createMemoryBackend({ maxBytes: 10 });
    const a = await backend.saveText(request('aaaa'));
    const b = await backend.saveText(request('bbbb'));
    const c = await backend.saveText(request('cccc'));
    expect(isSpillError(await rejection(backend.reader.read(a.locator)), 'SPILL_EXPIRED')).toBe(true);
    expect((await backend.reader.read(b.locator)).text).toBe('bbbb');
    expect((await backend.reader.read(c.locator)).text).toBe('cccc');
    expect(backend.stats()).toMatchObject({ bytes: 8, artifacts: 2, evictions: 1, evictedBytes: 4 });
  });
});

describe('catalog', () => {
  it('lists oldest first, filters by session, and deletes', async () => {
    let t = 1_000;
    const backend = createMemoryBackend({ now: () => (t += 1) });
    const a = await backend.saveText(request('one', 's1'));
    const b = await backend.saveText(request('two!', 's2'));
    const c = await backend.saveText(request('three', 's1'));
    const all = await collect(backend.catalog.list());
    expect(locators(all)).toEqual([a.locator, b.locator, c.locator]);
    expect(all.map((e) => e.bytes)).toEqual([3, 4, 5]);
    expect(all.map((e) => e.createdAt.getTime())).toEqual([1001, 1002, 1003]);
    expect(all[0]?.session).toBe(all[2]?.session);
    expect(all[0]?.session).not.toBe(all[1]?.session);
    const s1 = await collect(backend.catalog.list({ sessionId: request('', 's1').owner.sessionId }));
    expect(locators(s1)).toEqual([a.locator, c.locator]);
    expect(await backend.catalog.delete(a.locator)).toBe(true);
    expect(await backend.catalog.delete(a.locator)).toBe(false);
    expect(isSpillError(await rejection(backend.reader.read(a.locator)), 'SPILL_NOT_FOUND')).toBe(true);
  });
});

describe('locators', () => {
  it('refuses forged shapes with SPILL_INVALID_LOCATOR and unknown ones with SPILL_NOT_FOUND', async () => {
    const backend = createMemoryBackend();
    const other = createMemoryBackend();
    const foreign = await other.saveText(request('elsewhere'));
    for (const bad of ['/etc/passwd', 'spill+memory://x/y', 'file:///tmp/a', `${foreign.locator}/..`]) {
      expect(isSpillError(await rejection(backend.reader.read(spillLocator(bad))), 'SPILL_INVALID_LOCATOR')).toBe(true);
    }
    expect(isSpillError(await rejection(backend.reader.read(foreign.locator)), 'SPILL_NOT_FOUND')).toBe(true);
  });
});

describe('grep', () => {
  it('finds matching lines with their numbers', async () => {
    const backend = createMemoryBackend();
    const ref = await backend.saveText(request('alpha\nbeta\ngamma\nalphabet\n'));
    const result = await backend.reader.grep(ref.locator, 'alpha');
    expect(result.matches).toEqual([
      { line: 1, text: 'alpha', truncated: false },
      { line: 4, text: 'alphabet', truncated: false },
    ]);
    expect(result.limitReached).toBe(false);
  });

  it('refuses a catastrophic pattern with SPILL_INVALID_PATTERN', async () => {
    const backend = createMemoryBackend();
    const ref = await backend.saveText(request(`${'a'.repeat(50)}!`));
    expect(isSpillError(await rejection(backend.reader.grep(ref.locator, '(a+)+$')), 'SPILL_INVALID_PATTERN')).toBe(true);
  });
});
