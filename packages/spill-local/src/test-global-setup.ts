// Builds dist/ before the tests: the tests that need a second process (crash, another
// user, a lower fd limit, several writers) run the built package in a child `node`.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const packageDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const built = spawnSync(process.execPath, [tsc, '-b', path.join(packageDir, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('building @spillway/local for the child-process tests failed');
}
