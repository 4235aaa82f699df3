#!/usr/bin/env node
// `pnpm protect <host> [setup options]`: from a clone (after `pnpm install`) to a protected
// agent host in one command. It builds the CLI and the packages it needs (not the rest),
// puts `spillway` on PATH (`pnpm link-cli`), and runs `spillway setup <host>` with the
// options given (`--dry-run`, `--config-dir DIR`, `--max-inline-bytes N`…). With
// `--dry-run` nothing is written, the link on PATH included; with `--undo` setup takes back
// what it added and no link is made. Undo with `spillway setup <host> --undo`.
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2).filter((a) => a !== '--');
const host = args[0];
const usage = (hosts) => {
  process.stderr.write(`usage: pnpm protect <host> [setup options]\n  host: ${hosts.join(', ')}\n`);
  process.exit(2);
};
if (host === undefined || host.startsWith('-')) usage(['one of the hosts spillway setup knows (claude-code, …)']);
const started = Date.now();
const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

function step(title, command, commandArgs, env = {}) {
  process.stdout.write(`\n[${seconds()}] ${title}\n`);
  const r = spawnSync(command, commandArgs, { cwd: repo, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) {
    process.stderr.write(`\npnpm protect: "${[command, ...commandArgs].join(' ')}" failed (exit ${String(r.status ?? r.signal)}); nothing of ${host} was changed yet. Fix that, then run pnpm protect ${host} again.\n`);
    process.exit(1);
  }
}

step('1/3 building spillway (the CLI and the packages it uses)', 'pnpm', ['exec', 'turbo', 'run', 'build', '--filter=@spillway/cli...', '--output-logs=errors-only'], { TURBO_TELEMETRY_DISABLED: '1' });
// The hosts are known once, in @spillway/hosts; it is built by now, and nothing is changed yet.
const { HOST_IDS } = await import(pathToFileURL(`${repo}/packages/spill-hosts/dist/index.js`).href);
if (!HOST_IDS.includes(host)) usage(HOST_IDS);
const dryRun = args.includes('--dry-run');
const undo = args.includes('--undo');
// A dry run writes nothing, and taking protection back needs no command on PATH.
if (dryRun || undo) process.stdout.write(`\n[${seconds()}] 2/3 putting spillway on PATH: skipped (${dryRun ? '--dry-run writes nothing' : '--undo'})\n`);
else step('2/3 putting spillway on PATH', process.execPath, ['scripts/link-cli.mjs']);
step(`3/3 ${undo ? `taking spillway out of ${host}` : `setting ${host} up`}${dryRun ? ' (dry run)' : ''}`, process.execPath, ['packages/spill-cli/bin/spillway.js', 'setup', ...args]);
const configDir = args.indexOf('--config-dir');
const where = configDir === -1 || args[configDir + 1] === undefined ? '' : ` --config-dir ${JSON.stringify(args[configDir + 1])}`;
const shellWord = (word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);
const again = args.filter((a) => a !== '--dry-run').map(shellWord).join(' ');
const done = dryRun
  ? `dry run: nothing was changed. To make the change shown above: pnpm protect ${again}`
  : undo
    ? `done: ${host} is no longer protected by spillway. A spillway link pnpm protect put on PATH stays; remove it if you no longer want the command.`
    : `done: ${host} is protected. Check it with: spillway doctor --host ${host}${where}`;
process.stdout.write(`\n[${seconds()}] ${done}\n`);
