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
