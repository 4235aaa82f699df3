import { basename } from 'node:path';
import type { HostId, SpillwayCommand } from './types.js';

/** A server's command line: what the host runs. */
export interface CommandLine {
  readonly command: string;
  readonly args: readonly string[];
}

/** The command line that runs `original` behind `spillway mcp` with `cap` (`--host` names the host in `spillway stats`). */
export function wrapCommand(original: CommandLine, spillway: SpillwayCommand, cap: number, host: HostId): CommandLine {
  return {
    command: spillway.node,
    args: [spillway.spillway, 'mcp', '--max-inline-bytes', String(cap), '--host', host, '--', original.command, ...original.args],
  };
}

function isSpillwayScript(path: string): boolean {
  const name = basename(path);
  return name === 'spillway' || name === 'spillway.js' || name === 'spillway.mjs';
}

/**
 * The original command line inside a `spillway mcp -- …` wrapper (ours, with node and the
 * script, or one a person typed with `spillway` on PATH); `undefined` when `line` is not
 * wrapped.
 */
export function unwrapCommand(line: CommandLine): CommandLine | undefined {
  let rest: readonly string[];
  if (isSpillwayScript(line.command)) rest = line.args;
  else if (line.args[0] !== undefined && isSpillwayScript(line.args[0])) rest = line.args.slice(1);
  else return undefined;
  if (rest[0] !== 'mcp') return undefined;
  const dashes = rest.indexOf('--');
  const command = dashes === -1 ? undefined : rest[dashes + 1];
  if (command === undefined) return undefined;
  return { command, args: rest.slice(dashes + 2) };
}

/** Quotes one word for `sh -c` when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The `spillway hook <host>` command line a host's hook runs (hosts run hook commands through a shell). */
export function hookCommandLine(host: HostId, spillway: SpillwayCommand, cap: number): string {
  return [spillway.node, spillway.spillway, 'hook', host, '--max-inline-bytes', String(cap)].map(shellQuote).join(' ');
}

/** Whether a hook command line is spillway's hook for `host`. */
export function isSpillwayHook(command: unknown, host: HostId): boolean {
  if (typeof command !== 'string') return false;
  return /spillway(\.m?js)?'?\s+hook\s+/.test(command) && command.includes(` hook ${host}`);
}

/** The name of the script Claude Code runs every shell command through, for a cap. */
export function claudeCodeShellScriptName(cap: number): string {
  return `claude-code-shell-${String(cap)}`;
}

/** Whether `value` names a script written by {@link claudeCodeShellScript} (any cap, any place). */
export function isClaudeCodeShellScript(value: unknown): boolean {
  return typeof value === 'string' && /(^|\/)claude-code-shell-\d+$/.test(value);
}

/**
 * The script set as Claude Code's `CLAUDE_CODE_SHELL_PREFIX`: Claude Code runs it with
 * the whole shell script of a Bash call as its one argument, after its permission checks
 * (which therefore see the command as typed). It runs that script with the shell Claude
 * Code chose, through `spillway run --live`, so the working directory Claude Code carries
 * from call to call, the exit code and the merged output all stay as they were; only an
 * output too large for the model becomes the preview and notice. Claude Code also starts
 * MCP servers (and may start other commands) through the prefix: only a script that ends
 * the way its Bash tool's do, by writing the working directory (`pwd -P >| …`), goes
 * through spillway, and anything else runs as if the script were not there. So does every
 * command when node or spillway is gone.
 */
export function claudeCodeShellScript(spillway: SpillwayCommand, cap: number, failureCap: number): string {
  const run = [spillway.node, spillway.spillway, 'run', '--live', '--max-inline-bytes', String(cap), '--max-inline-bytes-on-failure', String(failureCap), '--notice-reader', 'file-tools', '--name', 'Bash'];
  return [
    '#!/bin/sh',
    '# Written by `spillway setup claude-code`; Claude Code runs every Bash command through it',
    '# (CLAUDE_CODE_SHELL_PREFIX in its settings.json). `spillway setup claude-code --undo`',
    '# takes it out of the settings.',
    'case "${CLAUDE_CODE_SHELL:-${SHELL:-}}" in',
    '  */bash | */zsh) shell="${CLAUDE_CODE_SHELL:-$SHELL}" ;;',
    '  *) shell="$(command -v bash || echo /bin/sh)" ;;',
    'esac',
    'case "$1" in',
    `  *' && pwd -P >| '*) ;;`,
    '  *) exec "$shell" -c "$1" ;;',
    'esac',
    `if [ -x ${shellQuote(spillway.node)} ] && [ -f ${shellQuote(spillway.spillway)} ]; then`,
    `  exec ${run.map(shellQuote).join(' ')} --session "\${CLAUDE_CODE_SESSION_ID:-claude-code}" -- "$shell" -c "$1"`,
    'fi',
    'exec "$shell" -c "$1"',
    '',
  ].join('\n');
}
