import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAGMENT_AFTER, FRAGMENT_BEFORE, FRAGMENT_LIMIT, JsonFailureScanner, type JsonFailure } from './json-failures.js';

function find(text: string, chunk = text.length): readonly JsonFailure[] {
  const scanner = new JsonFailureScanner();
  const step = Math.max(1, chunk);
  for (let i = 0; i < text.length; i += step) scanner.push(text.slice(i, i + step));
  return scanner.finish().map((f) => ({ ...f }));
}

/** A vitest-like JSON report on one line: `n` passing tests and one failing at index `bad`. */
function report(n: number, bad: number): string {
  const results = Array.from({ length: n }, (_, i) =>
    i === bad
      ? `{"fullName":"suite t${String(i)} breaks","status":"failed","title":"breaks","failureMessages":["AssertionError: expected 2 to be 3"]}`
      : `{"fullName":"suite t${String(i)} works","status":"passed","title":"works","failureMessages":[]}`,
  );
  return `{"numFailedTests":1,"testResults":[{"assertionResults":[${results.join(',')}]}]}`;
}

describe('failing entries of a JSON test report', () => {
  it('finds one in the middle of an 80 KB line, with its name and message, verbatim at its column', () => {
    const text = report(1000, 500);
    expect(text.length).toBeGreaterThan(80_000);
    const found = find(text);
    expect(found).toHaveLength(1);
    const f = found[0] as JsonFailure;
    expect(f.line).toBe(1);
    expect(text.slice(f.column, f.column + f.text.length)).toBe(f.text);
    expect(f.text).toContain('suite t500 breaks');
    expect(f.text).toContain('AssertionError: expected 2 to be 3');
    expect(f.text.length).toBeLessThanOrEqual(FRAGMENT_BEFORE + FRAGMENT_AFTER);
  });

  it('finds nothing in a report where everything passed, and keeps at most a bounded number', () => {
    expect(find(report(50, -1))).toEqual([]);
    const many = `[${Array.from({ length: 40 }, (_, i) => `{"t":"${'x'.repeat(600)}${String(i)}","status":"failed"}`).join(',\n')}]`;
    const found = find(many);
    expect(found).toHaveLength(FRAGMENT_LIMIT);
    expect(found.map((f) => f.line)).toEqual(Array.from({ length: FRAGMENT_LIMIT }, (_, i) => i + 1));
  });

  it('answers the same for any chunking, each fragment verbatim from its line', () => {
    const entry = fc.oneof(
      fc.constant('"status":"failed"'),
      fc.constant('"failureMessages":["boom 😀"]'),
      fc.constant('"outcome": "failed"'),
      fc.string({ maxLength: 300 }),
      fc.constant('\n'),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 60 }), fc.integer({ min: 1, max: 50 }), (parts, chunk) => {
        const text = parts.join(',');
        const whole = find(text);
        expect(find(text, chunk)).toEqual(whole);
        const lines = text.split('\n');
        for (const f of whole) expect((lines[f.line - 1] as string).slice(f.column, f.column + f.text.length)).toBe(f.text);
      }),
      { numRuns: 300 },
    );
  });
});
