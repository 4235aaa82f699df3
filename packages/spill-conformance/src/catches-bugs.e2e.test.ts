import { beforeAll, describe, expect, it } from 'vitest';
import { runChildVitest, type AssertionResult } from './__tests__/child-vitest.js';
import { CONTROL_NAME, EXPECTED_FAILURES, SEARCH_ONLY_BUGS, mutantName } from './__tests__/mutants.js';
import { REFERENCE_BUGS } from './__tests__/reference-backend.js';

describe('the suite catches broken backends', () => {
  let results: AssertionResult[] = [];
  beforeAll(async () => {
    results = await runChildVitest('src/__tests__/mutants.vitest.config.ts');
  }, 180_000);

  const of = (name: string): AssertionResult[] => results.filter((r) => r.ancestorTitles[0] === `spill backend conformance: ${name}`);

  it('passes every test, skipping none, for the correct reference backend with every hook', () => {
    const control = of(CONTROL_NAME);
    expect(control.length).toBeGreaterThan(200);
    expect(control.filter((r) => r.status !== 'passed').map((r) => `${r.status}: ${r.title}`)).toEqual([]);
  });

  it.each(REFERENCE_BUGS)('fails for a backend with the bug %s, in the tests aimed at it', (bug) => {
    const run = of(mutantName(bug));
    expect(run.length).toBe(of(CONTROL_NAME).length);
    const failed = run.filter((r) => r.status === 'failed').map((r) => r.title);
    expect(failed.length).toBeGreaterThan(0);
    for (const expected of EXPECTED_FAILURES[bug]) {
      expect(failed.some((title) => title.includes(expected)), `"${expected}" should fail; failed: ${failed.join(' | ')}`).toBe(true);
    }
  });

  it.each(SEARCH_ONLY_BUGS)('fails only in the search tests for a backend with the bug %s', (bug) => {
    const failed = of(mutantName(bug)).filter((r) => r.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.filter((r) => !r.ancestorTitles.includes('search')).map((r) => r.title)).toEqual([]);
  });
});
