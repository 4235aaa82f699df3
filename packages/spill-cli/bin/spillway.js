#!/usr/bin/env node
// Checked in so that pnpm can link the command before the first build; the program itself
// is compiled to dist/. This file is CommonJS (bin/package.json), so that the commands
// answered here never start Node's ES module loader: `--version`, `--help`, and `run` and
// `hook` for a small output, which a host starts on every tool call; `run`, `hook` and
// `search` load one file each, bundled at build time (see scripts/bundle-fast-paths.mjs).
'use strict';
const { readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');

const [, , command, ...rest] = process.argv;
const dist = join(__dirname, '..', 'dist');
const alone = rest.length === 0;
let help;
if (alone && (command === '--version' || command === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version}\n`);
} else if (alone && (command === '--help' || command === '-h') && !process.stdout.isTTY && (help = helpFile()) !== undefined) {
  // Written at build time (see src/help-file.ts).
  process.stdout.write(help);
} else if (command === 'hook' && !rest.includes('--help') && !rest.includes('-h')) {
  void fastEntry('hook-main').then(({ runHookProcess }) => runHookProcess(rest));
} else if (command === 'search') {
  void fastEntry('search-main').then(({ runSearchProcess }) => runSearchProcess([command, ...rest]));
} else if (command === 'run') {
  void fastEntry('run-fast')
    .then((fast) => fast.runFastProcess(rest), () => false)
    .then((done) => (done ? undefined : program()));
} else {
  void program();
}

/** The whole program. */
function program() {
  return import(join(dist, 'bin.js'));
}

/**
 * A fast entry as one bundled file, compiled from V8's code cache (see code-cache.js), else
 * as compiled: also when the bundle is missing or older than the compiled file (compiled
 * again without the build script).
 */
async function fastEntry(name) {
  const bundled = join(dist, `${name}.bundle.cjs`);
  const compiled = join(dist, `${name}.js`);
  const mtime = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  return mtime(bundled) >= mtime(compiled) ? require('./code-cache.js').requireCached(bundled) : import(compiled);
}

/** The help written at build time, or undefined before the first build. */
function helpFile() {
  try {
    return readFileSync(join(dist, 'help.txt'), 'utf8');
  } catch {
    return undefined;
  }
}
