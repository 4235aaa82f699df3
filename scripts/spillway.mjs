#!/usr/bin/env node
// `pnpm spillway -- <args>`: the spillway command, run from this clone. pnpm hands the
// `--` on to the script, so it is dropped here; everything after it goes to spillway.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../packages/spill-cli/dist/bin.js', import.meta.url));
if (!existsSync(bin)) {
  process.stderr.write('spillway: the CLI is not built yet in this clone; run `pnpm build` first.\n');
  process.exit(1);
}
if (process.argv[2] === '--') process.argv.splice(2, 1);
await import(bin);
