import { utf8ByteLength } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { composeSpillPreview } from './compose.js';
import { parseSpillNotice } from './notice.js';
import { textArb } from './test-backends.js';

const LOCATOR = '/root/session-0123456789abcdef/0a1b2c3d4e5f6a7b-out.txt';
const HINT = 'Use read with offset/limit, or grep this path to search within it.';

describe('composeSpillPreview', () => {
  it('is never larger than the cap, shows a prefix and a suffix, and ends with the exact notice (property)', () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: 0, max: 2000 }), fc.option(fc.string({ maxLength: 80 }), { nil: undefined }), (text, cap, preface) => {
        const total = utf8ByteLength(text);
        fc.pre(total > cap);
        const result = composeSpillPreview({
          head: text,
          tail: text,
          totalBytes: total,
          maxInlineBytes: cap,
          locator: LOCATOR,
          retrievalHint: HINT,
          ...(preface === undefined ? {} : { preface }),
        });
        if (result === undefined) return;
        expect(utf8ByteLength(result.text)).toBeLessThanOrEqual(cap);
        expect(result.omittedBytes).toBe(total - result.shownBytes);
        const notice = parseSpillNotice(result.text.slice(result.text.lastIndexOf('(Omitted ')));
        expect(notice).toMatchObject({ omittedBytes: result.omittedBytes, locator: LOCATOR, retrievalHint: HINT });
        if (preface !== undefined && preface !== '') expect(result.text).toContain(`${preface}\n(Omitted `);
      }),
    );
  });

  it('puts the preface on the line before the notice and counts it against the cap', () => {
    const text = 'line\n'.repeat(1000);
    const plain = composeSpillPreview({ head: text, tail: text, totalBytes: 5000, maxInlineBytes: 600, locator: LOCATOR, retrievalHint: HINT });
    const prefaced = composeSpillPreview({ head: text, tail: text, totalBytes: 5000, maxInlineBytes: 600, locator: LOCATOR, retrievalHint: HINT, preface: '(binary)' });
    expect(plain).toBeDefined();
    expect(prefaced?.text).toMatch(/\n\n\(binary\)\n\(Omitted \d+ bytes\. Full formatted result stored at: /);
    expect(prefaced?.shownBytes ?? 0).toBeLessThan(plain?.shownBytes ?? 0);
  });

  it('answers undefined when not even the notice fits, and refuses bad numbers', () => {
    const text = 'x'.repeat(1000);
    expect(composeSpillPreview({ head: text, tail: text, totalBytes: 1000, maxInlineBytes: 50, locator: LOCATOR, retrievalHint: HINT })).toBeUndefined();
    expect(() => composeSpillPreview({ head: text, tail: text, totalBytes: 1000, maxInlineBytes: -1, locator: LOCATOR, retrievalHint: HINT })).toThrow(TypeError);
    expect(() => composeSpillPreview({ head: text, tail: text, totalBytes: 1000, maxInlineBytes: 500, locator: '', retrievalHint: HINT })).toThrow(TypeError);
  });
});
