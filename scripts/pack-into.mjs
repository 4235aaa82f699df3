#!/usr/bin/env node
// `pnpm pack:into DIR PACKAGE...`: makes spillway packages from this clone installable in
// the project at DIR before they are published. It packs each named package, and every
// @spillway package it depends on, into DIR/spillway-packs/ (as `pnpm publish` would pack
// them), and points DIR/package.json at those tarballs: a dependency on each, and a pnpm
// override so that a dependency of one spillway package on another resolves to its
// tarball too, not to the registry (where they are not yet). Then `pnpm install` in DIR
// installs them with their registry dependencies. Run it again after `pnpm build` to
// update; it prints the peer dependencies the project still has to add.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const PACKS = 'spillway-packs';

function fail(message) {
  process.stderr.write(`pack:into: ${message}\n`);
  process.exit(1);
}

// Under `pnpm pack:into`, pnpm passes a `--` through; the invocation directory is INIT_CWD.
const args = process.argv.slice(2).filter((a) => a !== '--');
const [dirArg, ...names] = args;
if (dirArg === undefined || names.length === 0 || args.some((a) => a === '-h' || a === '--help')) {
  process.stdout.write('usage: pnpm pack:into DIR PACKAGE...   (for example: pnpm pack:into ~/my-agent @spillway/ai-sdk @spillway/memory)\n');
  process.exit(dirArg === undefined || names.length === 0 ? 2 : 0);
}
const target = resolve(process.env.INIT_CWD ?? process.cwd(), dirArg);
const manifestPath = join(target, 'package.json');
if (!existsSync(manifestPath)) fail(`${target} has no package.json; create the project first (for example: mkdir -p ${dirArg} && cd ${dirArg} && pnpm init).`);

/** Every publishable workspace package: name → { dir, manifest }. */
const workspace = new Map();
for (const folder of ['packages', 'examples']) {
  for (const entry of readdirSync(join(repo, folder)).sort()) {
    const file = join(repo, folder, entry, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    if (manifest.private !== true) workspace.set(manifest.name, { dir: join(repo, folder, entry), manifest });
  }
}
const known = [...workspace.keys()].sort().join(', ');
for (const name of names) {
  if (!workspace.has(name)) fail(`${name} is not a publishable package of this clone; the packages are ${known}.`);
}

// The named packages and, transitively, the spillway packages they need at run time.
const closure = [];
const visit = (name) => {
  if (closure.includes(name)) return;
  closure.push(name);
  const { manifest } = workspace.get(name);
  for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
    // An optional peer is the user's choice: name it to pack it too.
    if (workspace.has(dep) && manifest.peerDependenciesMeta?.[dep]?.optional !== true) visit(dep);
  }
};
names.forEach(visit);

const unbuilt = closure.filter((name) => !existsSync(join(workspace.get(name).dir, 'dist', 'index.js')));
if (unbuilt.length > 0) fail(`${unbuilt.join(', ')} ${unbuilt.length === 1 ? 'is' : 'are'} not built: run pnpm build in ${repo} first.`);

const dest = join(target, PACKS);
mkdirSync(dest, { recursive: true });
// Under `pnpm pack:into`, npm_execpath is pnpm itself.
const pnpm = process.env.npm_execpath;
const [cmd, pre] = pnpm !== undefined && pnpm.endsWith('js') ? [process.execPath, [pnpm]] : ['pnpm', []];
const specs = {};
for (const name of closure) {
  const r = spawnSync(cmd, [...pre, 'pack', '--json', '--pack-destination', dest], { cwd: workspace.get(name).dir, encoding: 'utf8' });
  if (r.status !== 0) fail(`pnpm pack failed for ${name}: ${(r.stderr || r.stdout).trim()}`);
  const { filename } = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
  specs[name] = `file:${relative(target, filename).split('\\').join('/')}`;
}

const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
manifest.dependencies = { ...manifest.dependencies, ...specs };
manifest.pnpm = { ...manifest.pnpm, overrides: { ...manifest.pnpm?.overrides, ...specs } };
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);

const peers = new Map();
for (const name of closure) {
  for (const [dep, range] of Object.entries(workspace.get(name).manifest.peerDependencies ?? {})) {
    if (!workspace.has(dep) && manifest.dependencies[dep] === undefined && manifest.devDependencies?.[dep] === undefined) peers.set(dep, range);
  }
}
process.stdout.write(`packed ${closure.join(', ')} into ${dest}\nand pointed ${manifestPath} at them; now run \`pnpm install\` in ${target}.\n`);
if (peers.size > 0) {
  process.stdout.write(`Peer dependencies to add there: ${[...peers].map(([dep, range]) => `${dep}@${range}`).join(' ')}\n`);
}
