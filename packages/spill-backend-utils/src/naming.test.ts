import { createHash } from 'node:crypto';
import { sessionId, type SessionId } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LEAF_RE, MAX_LEAF_BYTES, SESSION_DIR_RE, isLeafName, leafName, sanitizeName, sessionDirName } from './naming.js';

describe('the naming rule', () => {
  it('keeps a plain name and its extension: notes.md is <random>-notes.md', () => {
    expect(leafName('notes.md')).toMatch(/^[0-9a-f]{20}-notes\.md$/);
    expect(sanitizeName('notes.md')).toBe('notes.md');
  });

  it('reduces hostile names to one safe segment', () => {
    expect(sanitizeName('../x')).toBe('x');
    expect(sanitizeName('/etc/passwd')).toBe('etc_passwd');
    expect(sanitizeName('')).toBe('result.txt');
    expect(sanitizeName('a\uFF0Fb')).toBe('a_b'); // fullwidth solidus becomes / under NFKC, then goes
  });

  it('gives ids that differ only in lone surrogates different session directories', () => {
    expect(sessionDirName(sessionId('s\uD800'))).not.toBe(sessionDirName(sessionId('s\uDFFF')));
    expect(sessionDirName(sessionId('s'))).toMatch(SESSION_DIR_RE);
  });

  it('makes a leaf of at most the given bytes that parses back, for any suggestion', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.constantFrom(MAX_LEAF_BYTES, 224), (name, max) => {
        const leaf = leafName(name, max);
        expect(leaf).toMatch(LEAF_RE);
        expect(Buffer.byteLength(leaf, 'utf8')).toBeLessThanOrEqual(max);
        expect(isLeafName(leaf, max)).toBe(true);
        expect(leaf.slice(21)).toBe(sanitizeName(name, max - 21));
      }),
      { numRuns: 300 },
    );
  });
});

describe('isLeafName', () => {
  it('refuses what no save makes: a temp name, a second segment, a control character', () => {
    const leaf = leafName('notes.md');
    expect(isLeafName(leaf)).toBe(true);
    for (const bad of ['.tmp-0123', `${leaf}/x`, `${leaf}\u0000`, `${leaf}\n`, 'notes.md', `${leaf}${'x'.repeat(300)}`]) {
      expect(isLeafName(bad)).toBe(false);
    }
  });
});

/** The session hash as Node's own crypto computes it: the oracle the portable sha256 must match byte for byte. */
function nodeSessionDirName(id: string): string {
  const hash = createHash('sha256');
  hash.update(Buffer.from('spillway/session-dir/v1\0', 'utf8'));
  hash.update(Buffer.from(id, 'utf16le'));
  return `session-${hash.digest('hex').slice(0, 32)}`;
}

/** Any string as a session id, the empty one included (the hash is defined on every string). */
const anyId = (id: string): SessionId => id as SessionId;

describe('sessionDirName', () => {
  // Made by the node:crypto implementation before the hash moved to @noble/hashes: a
  // directory on disk, a key in a bucket and a memory locator keep these names.
  const published: readonly [string, string][] = [
    ['', 'session-50e8a288b9c0109e33bc658eefee480f'],
    ['chat-1', 'session-ef8d9e88e6b1d40fe4f004734b856f7d'],
    ['s\uD800', 'session-3e51685b04b840b1e8d2512025287f47'],
    ['s\uDFFF', 'session-194e23c37a73754673d2048d36b9ee88'],
    ['\u{1F600}', 'session-f4ce776148c2e20ee75a72762dedffbd'],
    ['x'.repeat(4097), 'session-d90729bb321a663d48743aef08de4d3b'],
  ];

  it.each(published)('keeps the published name of %j', (id, name) => {
    expect(sessionDirName(anyId(id))).toBe(name);
    expect(nodeSessionDirName(id)).toBe(name);
  });

  it('matches node:crypto for ids around the encoding block and for a long one', () => {
    for (const length of [1, 4095, 4096, 4097, 8192, 8193, 100_000]) {
      // Code units that fill both bytes, with a surrogate pair split across the block edge.
      const id = Array.from({ length }, (_, i) => String.fromCharCode(i % 7 === 0 ? 0xd83d : 0x100 + (i % 0xfe00))).join('');
      expect(sessionDirName(anyId(id)), `length ${String(length)}`).toBe(nodeSessionDirName(id));
    }
  });

  it('matches node:crypto for any string, lone surrogates included', () => {
    const anyUnits = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 300 }).map((units) => String.fromCharCode(...units));
    fc.assert(
      fc.property(fc.oneof(anyUnits, fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme' })), (id) => {
        expect(sessionDirName(anyId(id))).toBe(nodeSessionDirName(id));
        // The cached answer is the same one.
        expect(sessionDirName(anyId(id))).toBe(nodeSessionDirName(id));
      }),
      { numRuns: 1000 },
    );
  });
});
