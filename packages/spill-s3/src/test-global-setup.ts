// Starts a real S3-compatible server (s3rver, on 127.0.0.1, a random port, a temp
// directory) for the whole suite, and builds dist/ for the tests that run the backend in
// child processes (the fleet test).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import S3rver from 's3rver';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `http://127.0.0.1:<port>` of the suite's s3rver. */
    s3Endpoint: string;
  }
}

/** The bucket every test uses (isolated from one another by prefix). */
export const TEST_BUCKET = 'spillway-test';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const packageDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const built = spawnSync(process.execPath, [tsc, '-b', path.join(packageDir, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('building @spillway/s3 for the child-process tests failed');

  const directory = mkdtempSync(path.join(os.tmpdir(), 'spill-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: TEST_BUCKET }],
  });
  const address = (await server.run()) as { port: number };
  project.provide('s3Endpoint', `http://127.0.0.1:${String(address.port)}`);
  return async () => {
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  };
}
