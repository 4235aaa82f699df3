import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The README's smallest backend, run as the README has it: its block is written into a
// private folder of this package and imported, so its describeSpillBackend registers the
// whole suite here. Only the import of this package is pointed at its source.
const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '..');
const MARKER = 'function createTinyBackend';

const readme = readFileSync(join(PACKAGE, 'README.md'), 'utf8');
const block = [...readme.matchAll(/```ts\n([^]*?)```/g)].map((m) => m[1] ?? '').find((code) => code.includes(MARKER));
if (block === undefined) throw new Error(`README.md has no ts block holding ${JSON.stringify(MARKER)}: the smallest backend is gone or renamed`);
if (!block.includes("from '@spillway/conformance'")) throw new Error('the smallest backend no longer imports @spillway/conformance');

const dir = mkdtempSync(join(PACKAGE, '.readme-run-'));
try {
  const file = join(dir, 'smallest-backend.ts');
  writeFileSync(file, block.replace("from '@spillway/conformance'", "from '../src/index.js'"));
  await import(pathToFileURL(file).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
