#!/usr/bin/env node
// Checked in so that pnpm can link the command before the first build;
// the program itself is compiled to dist/.
// `spillway hook` runs on every tool call of a host: it skips the program (and its
// option parser) and loads only what a small output needs.
const [, , command, ...rest] = process.argv;
// `--version` and `--help` are answered without loading the program (see src/help-file.ts).
const alone = rest.length === 0;
let help;
if (alone && (command === '--version' || command === '-V')) {
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else if (alone && (command === '--help' || command === '-h') && !process.stdout.isTTY && (help = await helpFile()) !== undefined) {
  process.stdout.write(help);
} else if (command === 'hook' && !rest.includes('--help') && !rest.includes('-h')) {
  const { runHookProcess } = await import('../dist/hook-main.js');
  await runHookProcess(rest);
} else {
  await import('../dist/bin.js');
}

/** The help written at build time, or undefined before the first build. */
async function helpFile() {
  const { readFileSync } = await import('node:fs');
  try {
    return readFileSync(new URL('../dist/help.txt', import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
}
