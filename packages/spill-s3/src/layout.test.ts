import { isSpillError, sessionId, spillLocator } from '@spillway/core';
import { sanitizeName, sessionDirName } from '@spillway/backend-utils/naming';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_LEAF_BYTES, locatorOf, makeLayout, newKey, parseKey, parseLocator } from './layout.js';
import { parseS3StoreUrl } from './store-url.js';

const layout = makeLayout('team-spill', 'agents/prod');

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isSpillError(error) ? error.code : 'not a SpillError';
  }
  return undefined;
}

describe('keys', () => {
  it('are <prefix>/session-<h>/<random>-<name> by the shared session hash and name rule', () => {
    const key = newKey(layout, sessionId('chat-42'), 'web fetch: page?.html');
    const [p1, p2, session, leaf] = key.split('/');
    expect([p1, p2]).toEqual(['agents', 'prod']);
    expect(session).toBe(sessionDirName(sessionId('chat-42')));
    expect(leaf).toMatch(/^[0-9a-f]{20}-/);
    expect(leaf?.slice(21)).toBe(sanitizeName('web fetch: page?.html'));
  });

  it('keep the suggested extension, as the local backend does: notes.md stays notes.md', () => {
    expect(newKey(layout, sessionId('s'), 'out.txt').endsWith('-out.txt')).toBe(true);
    expect(newKey(layout, sessionId('s'), 'notes.md').endsWith('-notes.md')).toBe(true);
  });

  it('still parse keys saved with the older .txt suffix', () => {
    const old = `${newKey(layout, sessionId('s'), 'notes.md')}.txt`;
    expect(parseLocator(layout, locatorOf(layout, old)).key).toBe(old);
  });

  it('always parse back, stay one segment and within the leaf limit, for any name and session', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.string({ minLength: 1 }), (name, session) => {
        const key = newKey(layout, sessionId(session), name);
        const parsed = parseKey(layout, key);
        expect(parsed?.key).toBe(key);
        expect(Buffer.byteLength(parsed?.leaf ?? '', 'utf8')).toBeLessThanOrEqual(MAX_LEAF_BYTES);
        expect(parseLocator(layout, locatorOf(layout, key)).key).toBe(key);
      }),
      { numRuns: 200 },
    );
  });

  it('differ for sessions that differ only in lone surrogates', () => {
    expect(newKey(layout, sessionId('s\uD800'), 'a').split('/')[2]).not.toBe(newKey(layout, sessionId('s\uDFFF'), 'a').split('/')[2]);
  });
});

describe('locators', () => {
  const good = locatorOf(layout, newKey(layout, sessionId('s'), 'a.txt'));

  it.each([
    ['not a string', 42],
    ['empty', ''],
    ['a path', '/tmp/x'],
    ['another scheme', good.replace('s3://', 'gs://')],
    ['another bucket', good.replace('s3://team-spill/', 's3://team-spill2/')],
    ['the bucket alone', 's3://team-spill'],
    ['outside the prefix', good.replace('agents/prod/', 'agents/dev/')],
    ['a prefix of the prefix', good.replace('agents/prod/', 'agents/')],
    ['a deeper key', good.replace('/session-', '/x/session-')],
    ['a dot segment', good.replace('agents/prod/', 'agents/prod/../prod/')],
    ['a bad session hash', good.replace(/session-[0-9a-f]{32}/, 'session-xyz')],
    ['a leaf without the random id', good.replace(/\/[0-9a-f]{20}-/, '/abc-')],
    ['a nested leaf', good.replace(/-a\.txt$/, '-a/b.txt')],
  ])('refuses %s with SPILL_INVALID_LOCATOR', (_label, locator) => {
    expect(codeOf(() => parseLocator(layout, locator as never))).toBe('SPILL_INVALID_LOCATOR');
  });

  it('accepts its own', () => {
    expect(codeOf(() => parseLocator(layout, good))).toBeUndefined();
  });

  it('works with an empty prefix', () => {
    const top = makeLayout('team-spill', '');
    const key = newKey(top, sessionId('s'), 'a');
    expect(key.startsWith('session-')).toBe(true);
    expect(parseLocator(top, spillLocator(`s3://team-spill/${key}`)).key).toBe(key);
    expect(codeOf(() => parseLocator(top, good))).toBe('SPILL_INVALID_LOCATOR');
  });
});

describe('configuration', () => {
  it.each([['Bad_Bucket'], ['ab'], [''], [undefined], ['a..b']])('refuses the bucket %j', (bucket) => {
    expect(() => makeLayout(bucket, '')).toThrow(TypeError);
  });

  it.each([['/lead'], ['a//b'], ['a/../b'], ['.'], ['a\nb'], [`x/session-${'0'.repeat(32)}`]])('refuses the prefix %j', (prefix) => {
    expect(() => makeLayout('team-spill', prefix)).toThrow(TypeError);
  });

  it('drops one trailing slash from the prefix', () => {
    expect(makeLayout('team-spill', 'a/b/').prefix).toBe('a/b');
  });

  it('splits store URLs', () => {
    expect(parseS3StoreUrl('s3://team-spill/agents/prod')).toEqual({ bucket: 'team-spill', prefix: 'agents/prod' });
    expect(parseS3StoreUrl('s3://team-spill')).toEqual({ bucket: 'team-spill', prefix: '' });
    expect(parseS3StoreUrl('/var/spill')).toBeUndefined();
  });
});
