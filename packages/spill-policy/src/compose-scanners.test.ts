import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSpillPreviewScanner, createSpillPreviewScanners } from './compose.js';

/** Lines as tools print them: noise, floods of one shape, salient lines of each severity, list items, JSON. */
const lineArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('INFO request ok', 'compiling module', '', 'PASS src/a.test.ts', 'line of text 😀', 'été ✓ done') },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 999 }).map((n) => `src/mod_${String(n % 7)}/file_${String(n)}.ts:${String(n)}: value ${String(n * 7)}`) },
  { weight: 2, arbitrary: fc.constantFrom('Traceback (most recent call last):', 'ValueError: bad value', '    at load (/app/src/x.js:12:5)', 'FAIL test/x.test.ts > parses', 'panic: runtime error', '{"level":50,"msg":"db failed"}', 'process exited with code 2', '- Expected', '+ Received') },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 400 }).map((n) => `f${String(n)}.c:6:29: error: x${String(n)} undeclared`) },
  { weight: 1, arbitrary: fc.integer({ min: 300, max: 3000 }).map((n) => `error ${'x'.repeat(n)}`) },
);
const textArb = fc.oneof(
  fc.tuple(fc.array(lineArb, { minLength: 1, maxLength: 1500 }), fc.constantFrom('\n', '\r\n'), fc.boolean()).map(([lines, eol, trailing]) => lines.join(eol) + (trailing ? eol : '')),
  fc.array(fc.record({ id: fc.integer(), ok: fc.boolean(), error: fc.option(fc.constantFrom('failed: timeout', 'AssertionError')) }), { maxLength: 300 }).map((a) => JSON.stringify(a, null, 2)),
);

describe('createSpillPreviewScanners', () => {
  it('answers for each cap exactly what a scanner of that cap alone answers, for any chunking', () => {
    fc.assert(
      fc.property(textArb, fc.array(fc.integer({ min: 0, max: 70_000 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 5000 }), (text, caps, chunk) => {
        const many = createSpillPreviewScanners(caps);
        for (let at = 0; at < text.length; at += chunk) many.push(text.slice(at, at + chunk));
        const alone = caps.map((cap) => {
          const one = createSpillPreviewScanner(cap);
          one.push(text);
          return one.finish();
        });
        expect(many.finish()).toEqual(alone);
      }),
      { numRuns: 150 },
    );
  });

  it('refuses no cap, and a cap that is not a non-negative integer', () => {
    expect(() => createSpillPreviewScanners([])).toThrow(TypeError);
    expect(() => createSpillPreviewScanners([1000, -1])).toThrow('Each of maxInlineBytes must be a whole number of bytes, at least 0; got -1.');
    expect(() => createSpillPreviewScanners([1.5])).toThrow(TypeError);
  });
});
