import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_NAME, EXPECTED_FAILURES, SEARCH_ONLY_BUGS, mutantName } from './__tests__/mutants.js';
import { REFERENCE_BUGS } from './__tests__/reference-backend.js';

interface AssertionResult {
  readonly ancestorTitles: readonly string[];
  readonly title: string;
  readonly status: string;
}
interface JsonReport {
  readonly testResults: readonly { readonly assertionResults: readonly AssertionResult[] }[];
}

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const vitestCli = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

/** Runs the mutant fixture in a child vitest and returns every test result. */
async function runMutants(): Promise<AssertionResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-conformance-mutants-'));
  const outputFile = join(dir, 'report.json');
  // The child must not believe it is a worker of this run.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        [vitestCli, 'run', '--config', 'src/__tests__/mutants.vitest.config.ts', '--reporter=json', `--outputFile=${outputFile}`],
        { cwd: packageDir, env, maxBuffer: 64 * 1024 * 1024 },
        (error, _stdout, stderr) => {
          // Failing tests make vitest exit 1: that is the expected outcome. Only a missing report is an error.
          readFile(outputFile, 'utf8').then(
            () => {
              resolve();
            },
            () => {
              reject(new Error(`the child vitest wrote no report (${error?.message ?? 'no error'}): ${stderr.slice(-2000)}`));
            },
          );
        },
      );
    });
    const report = JSON.parse(await readFile(outputFile, 'utf8')) as JsonReport;
    return report.testResults.flatMap((file) => file.assertionResults);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('the suite catches broken backends', () => {
  let results: AssertionResult[] = [];
  beforeAll(async () => {
    results = await runMutants();
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
