import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One test's outcome in a child vitest's JSON report. */
export interface AssertionResult {
  readonly ancestorTitles: readonly string[];
  readonly title: string;
  readonly status: string;
}
interface JsonReport {
  readonly testResults: readonly { readonly assertionResults: readonly AssertionResult[] }[];
}

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const vitestCli = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

/**
 * Runs a child vitest with `config` (a path from the package folder), the way the
 * catches-bugs tests run a suite against broken implementations, and returns every test
 * result. Failing tests are the expected outcome; only a missing report is an error.
 */
export async function runChildVitest(config: string): Promise<AssertionResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-conformance-mutants-'));
  const outputFile = join(dir, 'report.json');
  // The child must not believe it is a worker of this run.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        [vitestCli, 'run', '--config', config, '--reporter=json', `--outputFile=${outputFile}`],
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
