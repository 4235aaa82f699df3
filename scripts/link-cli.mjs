#!/usr/bin/env node
// `pnpm link-cli [DIR]`: puts `spillway` on PATH from this clone, as a symlink to the
// CLI's bin script in DIR (default $XDG_BIN_HOME, else ~/.local/bin). The link follows
// the clone: rebuild (`pnpm build`) and it runs the new code; remove the link to undo.
import { existsSync, lstatSync, mkdirSync, readlinkSync, symlinkSync, unlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const target = fileURLToPath(new URL('../packages/spill-cli/bin/spillway.js', import.meta.url));
const args = process.argv.slice(2).filter((a) => a !== '--');
const xdgBin = process.env.XDG_BIN_HOME;
const dir = args[0] !== undefined ? resolve(args[0]) : xdgBin !== undefined && isAbsolute(xdgBin) ? xdgBin : join(homedir(), '.local', 'bin');
const link = join(dir, 'spillway');

mkdirSync(dir, { recursive: true });
let existing;
try {
  existing = lstatSync(link);
} catch {
  existing = undefined;
}
if (existing !== undefined) {
  if (!existing.isSymbolicLink()) {
    process.stderr.write(`link-cli: ${link} exists and is not a symlink; remove it first.\n`);
    process.exit(1);
  }
  if (readlinkSync(link) !== target) unlinkSync(link);
}
if (!existsSync(link)) symlinkSync(target, link);

const onPath = (process.env.PATH ?? '').split(delimiter).includes(dir);
process.stdout.write(`linked ${link} -> ${target}\n`);
if (!existsSync(fileURLToPath(new URL('../packages/spill-cli/dist/bin.js', import.meta.url)))) {
  process.stdout.write('Run `pnpm build` before the first use.\n');
}
if (!onPath) process.stdout.write(`${dir} is not on PATH; add it, for example: export PATH="${dir}:$PATH"\n`);
