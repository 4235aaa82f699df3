import { describe, expect, it } from 'vitest';
import { parseQuery } from './query.js';
import { isSectionLine } from './sections.js';
import { camelPartsOf, tokensOf } from './tokens.js';

const terms = (q: string) => parseQuery(q).terms.map((t) => t.fts);

describe('queries', () => {
  it('quotes every term, so that no FTS5 syntax survives', () => {
    expect(terms('NEAR(a b, 2) OR c*')).toEqual(['"near a"', '"b"', '"2"', '"c"']);
    expect(terms('body: ^x "un')).toEqual(['"body"', '"x"', '"un"']);
    for (const t of parseQuery('"a" b:c (d) * ^ {e} -f +g').terms) expect(t.fts).toMatch(/^"[\p{L}\p{N} ]+"$/u);
  });

  it('reads a quoted phrase and an identifier as phrases of adjacent tokens', () => {
    expect(terms('"cannot read properties" json_max_depth preview.test.ts:57')).toEqual([
      '"cannot read properties"',
      '"json max depth"',
      '"preview test ts 57"',
    ]);
  });

  it('drops question words unless nothing else is left, and repeats nothing', () => {
    expect(terms('which version of curl is installed?')).toEqual(['"version"', '"curl"', '"installed"']);
    expect(terms('what is it')).toEqual(['"what"', '"is"', '"it"']);
    expect(terms('curl curl CURL')).toEqual(['"curl"']);
    expect(terms('   ')).toEqual([]);
  });

  it('splits text as the unicode61 tokenizer does, and camelCase and letter-digit runs into parts', () => {
    expect(tokensOf('Café au-lait_42 日本')).toEqual(['café', 'au', 'lait', '42', '日本']);
    expect(camelPartsOf('TypeError JSONParser utf8ByteLength 1nodesource1 plain')).toEqual(
      expect.arrayContaining(['type', 'error', 'json', 'parser', 'utf', 'byte', 'length', 'nodesource']),
    );
    expect(camelPartsOf('plain words only')).toEqual([]);
  });
});

describe('section lines', () => {
  it('knows git, dpkg, directory and heading lines', () => {
    for (const l of ['commit 0123456789abcdef', 'diff --git a/x b/x', 'Package: zlib1g', './src/lib:', '## Usage', '==> a.log <==']) expect(isSectionLine(l), l).toBe(true);
    for (const l of ['  indented: no', 'ii  zlib1g 1.2', 'plain text', '+commit 0123456']) expect(isSectionLine(l), l).toBe(false);
  });
});
