import { beforeAll, describe, expect, it } from 'vitest';
import { runChildVitest, type AssertionResult } from './__tests__/child-vitest.js';
import { EXPECTED_FILE_SINK_FAILURES, FILE_SINK_CONTROL_NAME, fileSinkMutantName } from './__tests__/file-sink-mutants.js';
import { FILE_SINK_BUGS } from './__tests__/reference-file-sink.js';

describe('the file-sink suite catches broken sinks', () => {
  let results: AssertionResult[] = [];
  beforeAll(async () => {
    results = await runChildVitest('src/__tests__/file-sink-mutants.vitest.config.ts');
  }, 180_000);

  const of = (name: string): AssertionResult[] => results.filter((r) => r.ancestorTitles[0] === `spill file sink conformance: ${name}`);

  it('passes every test, skipping none, for the correct reference file sink with every hook', () => {
    const control = of(FILE_SINK_CONTROL_NAME);
    expect(control.length).toBeGreaterThan(15);
    expect(control.filter((r) => r.status !== 'passed').map((r) => `${r.status}: ${r.title}`)).toEqual([]);
  });

  it.each(FILE_SINK_BUGS)('fails for a sink with the bug %s, in the tests aimed at it', (bug) => {
    const run = of(fileSinkMutantName(bug));
    expect(run.length).toBe(of(FILE_SINK_CONTROL_NAME).length);
    const failed = run.filter((r) => r.status === 'failed').map((r) => r.title);
    expect(failed.length).toBeGreaterThan(0);
    for (const expected of EXPECTED_FILE_SINK_FAILURES[bug]) {
      expect(failed.some((title) => title.includes(expected)), `"${expected}" should fail; failed: ${failed.join(' | ')}`).toBe(true);
    }
  });
});
