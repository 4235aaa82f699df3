#!/usr/bin/env node
// Checked in so that pnpm can link the command before the first build;
// the program itself is compiled to dist/.
// `spillway hook` runs on every tool call of a host: it skips the program (and its
// option parser) and loads only what a small output needs.
const [, , command, ...rest] = process.argv;
if (command === 'hook' && !rest.includes('--help') && !rest.includes('-h')) {
  const { runHookProcess } = await import('../dist/hook-main.js');
  await runHookProcess(rest);
} else {
  await import('../dist/bin.js');
}
