import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sessionId } from '@spillway/core';
import {
  DEFAULT_NAME,
  LEAF_RE,
  MAX_LEAF_BYTES,
  MAX_SUGGESTION_SCAN,
  SESSION_DIR_RE,
  TEMP_RE,
  boundSuggestion,
  isLeafName,
  leafName,
  sanitizeName,
  sessionDirName,
  tempName,
} from './names.js';

/** Any UTF-16 string, lone surrogates included. */
const anyUtf16 = (maxLength = 400): fc.Arbitrary<string> =>
  fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength }).map((units) => String.fromCharCode(...units));

/** Strings biased towards the characters that matter for paths. */
const pathish = fc
  .array(
    fc.oneof(
      fc.constantFrom('/', '\\', '.', '..', '-', '\0', '\n', '\u202E', '\u2066', '\uFF0F', '\uFF0E', '\u2215', 'CON', 'nul', ' ', '~', '$', '%2e'),
      fc.string({ maxLength: 8 }),
      anyUtf16(4),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

const suggestion = fc.oneof(pathish, anyUtf16(), fc.string({ unit: 'grapheme', maxLength: 300 }));

function checkLeaf(leaf: string): void {
  expect(leaf).toMatch(LEAF_RE);
  expect(isLeafName(leaf)).toBe(true);
  expect(Buffer.byteLength(leaf, 'utf8')).toBeLessThanOrEqual(MAX_LEAF_BYTES);
  expect(leaf).not.toMatch(/^[.-]/);
  expect(leaf).not.toMatch(/[/\\\0]/);
  expect(leaf === '.' || leaf === '..').toBe(false);
  expect(path.basename(leaf)).toBe(leaf);
  expect(path.dirname(path.join('/root/session-x', leaf))).toBe('/root/session-x');
  // Round-trips through UTF-8 unchanged (no lone surrogates, nothing the FS would mangle).
  expect(Buffer.from(leaf, 'utf8').toString('utf8')).toBe(leaf);
}

describe('leaf names', () => {
  it('are always one safe segment of at most 255 bytes under the session directory (property)', () => {
    fc.assert(
      fc.property(suggestion, (name) => {
        checkLeaf(leafName(name));
      }),
      { numRuns: 2000 },
    );
  });

  it('contain only allow-listed characters after the random prefix (property)', () => {
    const allowed = /^[A-Za-z0-9._\-\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]*$/u;
    fc.assert(
      fc.property(suggestion, (name) => {
        const safe = sanitizeName(name, 234);
        expect(safe).toMatch(allowed);
        expect(safe).not.toMatch(/[._-]{2}/);
        expect(safe).not.toMatch(/^[._-]|[._-]$/);
        expect(safe.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('keep the extension, even when the stem must be cut to fit (property)', () => {
    fc.assert(
      fc.property(
        anyUtf16(600).filter((s) => /[A-Za-z0-9]/.test(s)),
        fc.stringMatching(/^[a-z0-9]{1,8}$/),
        (stem, ext) => {
          expect(leafName(`${stem}.${ext}`).endsWith(`.${ext}`)).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('have at least 64 unpredictable bits: 20 hex digits, all distinct over many draws', () => {
    const prefixes = new Set(Array.from({ length: 5000 }, () => leafName('x').slice(0, 20)));
    expect(prefixes.size).toBe(5000);
    for (const p of prefixes) expect(p).toMatch(/^[0-9a-f]{20}$/);
  });

  it.each([
    ['../x', 'x'],
    ['/etc/passwd', 'etc_passwd'],
    ['a/b', 'a_b'],
    ['.', DEFAULT_NAME],
    ['..', DEFAULT_NAME],
    ['', DEFAULT_NAME],
    ['\0', DEFAULT_NAME],
    ['evil\0.txt', 'evil.txt'],
    ['\\', DEFAULT_NAME],
    ['..\\..\\windows\\win.ini', 'windows_win.ini'],
    ['\u0001\u001b[31mred\u007f.txt', '31mred.txt'],
    ['\u202Etxt.exe', 'txt.exe'],
    ['\u2066isolate\u2069.txt', 'isolate.txt'],
    ['CON', 'CON'],
    ['nul.txt', 'nul.txt'],
    ['-rf', 'rf'],
    ['--help', 'help'],
    ['.hidden', 'hidden'],
    ['a\uFF0Fb', 'a_b'],
    ['..\uFF0F..\uFF0Fetc\uFF0Fpasswd', 'etc_passwd'],
    ['\uFB01le.txt', 'file.txt'],
    ['e\u0301.txt', '\u00e9.txt'],
    ['web fetch (1).html', 'web_fetch_1_.html'.replace('_.', '.')],
    ['Отчёт.txt', 'Отчёт.txt'],
    ['\u0645\u0644\u0641.txt', 'txt'],
    ['name. ', 'name'],
  ])('reduce %j to %j', (input, expected) => {
    expect(sanitizeName(input, 234)).toBe(expected);
    checkLeaf(leafName(input));
  });

  it('cut a 300-byte name to fit 255 bytes with the prefix, keeping the extension', () => {
    for (const long of ['a'.repeat(300), '\u00e9'.repeat(150), '\u{1F600}'.repeat(75), `${'z'.repeat(400)}.json`, '中'.repeat(200)]) {
      const leaf = leafName(long);
      checkLeaf(leaf);
      if (long.endsWith('.json')) expect(leaf.endsWith('.json')).toBe(true);
    }
  });

  it('look at a bounded slice of a huge suggestion: head and extension kept, no pair split', () => {
    for (const size of [MAX_SUGGESTION_SCAN + 1, 200_000, 10_000_000]) {
      for (const unit of ['a', '\u{1F600}', '/', '\uFF0F', '\uD800']) {
        const huge = `${unit.repeat(Math.ceil(size / unit.length))}.json`;
        const bounded = boundSuggestion(huge);
        // The work that follows is over at most this many code units, whatever the size.
        expect(bounded.length).toBeLessThanOrEqual(MAX_SUGGESTION_SCAN + 1);
        expect(bounded.endsWith('.json')).toBe(true);
        expect(sanitizeName(huge, 234)).toBe(sanitizeName(bounded, 234));
        checkLeaf(leafName(huge));
      }
    }
    // A suggestion within the scan is taken whole.
    const fits = `${'b'.repeat(MAX_SUGGESTION_SCAN - 4)}.txt`;
    expect(boundSuggestion(fits)).toBe(fits);
    expect(boundSuggestion(`${'x'.repeat(2000)}\u{1F600}${'y'.repeat(40)}`)).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('stay fast for a pathological 10,000,000-character name (hung for minutes when the work was quadratic)', { timeout: 60_000 }, () => {
    const leaf = leafName(`${'-.'.repeat(5_000_000)}report.txt`);
    checkLeaf(leaf);
    expect(leaf.endsWith('report.txt')).toBe(true);
  });

  it('make Windows device names harmless: the leaf never equals one', () => {
    for (const name of ['CON', 'nul.txt', 'COM1', 'aux.log', 'LPT1']) {
      expect(leafName(name)).toMatch(/^[0-9a-f]{20}-/);
    }
  });
});

describe('temp names', () => {
  it('are hidden, recognisable and never look like a published leaf', () => {
    const t = tempName();
    expect(t).toMatch(TEMP_RE);
    expect(isLeafName(t)).toBe(false);
  });
});

describe('session directory names', () => {
  it('are session-<32 hex> and deterministic', () => {
    const name = sessionDirName(sessionId('chat-42'));
    expect(name).toMatch(SESSION_DIR_RE);
    expect(sessionDirName(sessionId('chat-42'))).toBe(name);
  });

  it('tell apart ids that differ only in lone surrogates, or in what UTF-8 would turn them into', () => {
    const ids = ['s\uD800', 's\uDFFF', 's\uFFFD', 's\uD800\uDC00', 's\uDC00\uD800', 's'];
    const names = new Set(ids.map((id) => sessionDirName(sessionId(id))));
    expect(names.size).toBe(ids.length);
  });

  it('are distinct for distinct ids, including lone surrogates and huge ids (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(anyUtf16(50).filter((s) => s.length > 0), { minLength: 2, maxLength: 30 }), (ids) => {
        const names = new Set(ids.map((id) => sessionDirName(sessionId(id))));
        expect(names.size).toBe(ids.length);
        for (const n of names) expect(n).toMatch(SESSION_DIR_RE);
      }),
      { numRuns: 300 },
    );
    expect(sessionDirName(sessionId('s'.repeat(1_000_000)))).toMatch(SESSION_DIR_RE);
  });
});

describe('sessionDirName caching', () => {
  it('gives an id the same name before and after its cache is filled and flushed, and distinct ids distinct names', () => {
    const first = sessionDirName(sessionId('chat-1'));
    for (let i = 0; i < 600; i++) sessionDirName(sessionId(`other-${String(i)}`));
    expect(sessionDirName(sessionId('chat-1'))).toBe(first);
    fc.assert(
      fc.property(anyUtf16(40).filter((a) => a !== ''), anyUtf16(40).filter((b) => b !== ''), (a, b) => {
        const na = sessionDirName(sessionId(a));
        expect(sessionDirName(sessionId(a))).toBe(na);
        if (a !== b) expect(sessionDirName(sessionId(b))).not.toBe(na);
      }),
      { numRuns: 500 },
    );
  });
});
