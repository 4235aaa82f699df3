#!/usr/bin/env node
// Checked in so that pnpm can link the command before the first build;
// the program itself is compiled to dist/.
// `spillway hook` and `spillway run` run on every tool call of a host: they skip the
// program (and its option parser) and load one bundled file for a small output.
import { readFileSync, statSync } from 'node:fs';

const [, , command, ...rest] = process.argv;
// `--version` and `--help` are answered without loading the program (see src/help-file.ts).
const alone = rest.length === 0;
let help;
if (alone && (command === '--version' || command === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else if (alone && (command === '--help' || command === '-h') && !process.stdout.isTTY && (help = await helpFile()) !== undefined) {
  process.stdout.write(help);
} else if (command === 'hook' && !rest.includes('--help') && !rest.includes('-h')) {
  const { runHookProcess } = await fastEntry('hook-main');
  await runHookProcess(rest);
} else if (command !== 'run' || !(await runFast(rest))) {
  await import('../dist/bin.js');
}

/**
 * `spillway run` starts on every shell command of a host that runs them through it: a
 * small output is answered without the program (see src/run-fast.ts), when the options allow.
 */
async function runFast(args) {
  let fast;
  try {
    fast = await fastEntry('run-fast');
  } catch {
    return false;
  }
  return fast.runFastProcess(args);
}

/**
 * A fast entry as one bundled file (written by the build), else as compiled: also when the
 * bundle is older than the compiled file (compiled again without the build script).
 */
async function fastEntry(name) {
  const bundled = new URL(`../dist/${name}.bundle.js`, import.meta.url);
  const compiled = new URL(`../dist/${name}.js`, import.meta.url);
  const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  return import(mtime(bundled) >= mtime(compiled) ? bundled.href : compiled.href);
}

/** The help written at build time, or undefined before the first build. */
async function helpFile() {
  try {
    return readFileSync(new URL('../dist/help.txt', import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
}
