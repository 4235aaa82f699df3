import { sessionId } from '@spillway/core';
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
