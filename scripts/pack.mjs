#!/usr/bin/env node
// `pnpm pack:public [DEST]`: packs every package that is meant to be published (no
// `"private": true`) into DEST (default ./packs), the way `pnpm publish -r` would pick
// them. `pnpm -r pack` would pack the private ones (demo, bench, examples) as well.
// `--list` prints the package folders instead of packing.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2).filter((a) => a !== '--');
const list = args.includes('--list');
const dest = resolve(args.find((a) => !a.startsWith('--')) ?? join(repo, 'packs'));

const publishable = [];
for (const folder of ['packages', 'examples']) {
  for (const name of readdirSync(join(repo, folder)).sort()) {
    const file = join(repo, folder, name, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8'));
    if (pkg.private !== true) publishable.push(join(folder, name));
  }
}
if (list) {
  process.stdout.write(publishable.map((p) => `${p}\n`).join(''));
  process.exit(0);
}
// Under `pnpm pack:public`, npm_execpath is pnpm itself.
const pnpm = process.env.npm_execpath;
for (const dir of publishable) {
  const [cmd, pre] = pnpm !== undefined && pnpm.endsWith('js') ? [process.execPath, [pnpm]] : ['pnpm', []];
  const r = spawnSync(cmd, [...pre, 'pack', '--pack-destination', dest], { cwd: join(repo, dir), stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
