import { basename } from 'node:path';
import type { HostId, SpillwayCommand } from './types.js';

/** A server's command line: what the host runs. */
export interface CommandLine {
  readonly command: string;
  readonly args: readonly string[];
}

/** The words that start spillway from a config: `spillway` through PATH when `spillway` is `undefined` (a portable form for shared files), else node and the script by absolute path. */
export function spillwayLauncher(spillway: SpillwayCommand | undefined): readonly string[] {
  return spillway === undefined ? ['spillway'] : [spillway.node, spillway.spillway];
}

/** The command line that runs `original` behind `spillway mcp` with `cap` (`--host` names the host in `spillway stats`). */
export function wrapCommand(original: CommandLine, spillway: SpillwayCommand, cap: number, host: HostId): CommandLine {
  return wrapWith(spillwayLauncher(spillway), original, cap, host);
}

/** {@link wrapCommand} with the launcher words given (see {@link spillwayLauncher}). */
export function wrapWith(launcher: readonly string[], original: CommandLine, cap: number, host: HostId): CommandLine {
  const [command = 'spillway', ...rest] = launcher;
  return { command, args: [...rest, 'mcp', '--max-inline-bytes', String(cap), '--host', host, '--', original.command, ...original.args] };
}

function isSpillwayScript(path: string): boolean {
  const name = basename(path);
  return name === 'spillway' || name === 'spillway.js' || name === 'spillway.mjs';
}

function isNpx(path: string): boolean {
  const name = basename(path);
  return name === 'npx' || name === 'npx.cmd';
}

/** The options of `spillway mcp` that take a value (the next word, unless written `--name=value`). */
const VALUE_OPTIONS = new Set(['--max-inline-bytes', '--session', '--timeout', '--max-message-bytes', '--host', '--url', '--header', '--root', '--store']);

/** A server entry that already runs behind `spillway mcp`, in any documented form. */
export interface SpillwayWrapper {
  /**
   * How spillway is started: `script` (a node binary and the spillway script, as setup
   * writes it), `bin` (the `spillway` command, by path or through PATH) or `npx`
   * (`npx -y @spillway/cli`).
   */
  readonly form: 'script' | 'bin' | 'npx';
  /** The words before `mcp`: the command and its leading arguments. */
  readonly launcher: readonly string[];
  /** The options of `spillway mcp`, as written. */
  readonly options: readonly string[];
  /** Whether the server's command line follows a `--`. */
  readonly dashes: boolean;
  /** The server's command line; `undefined` for `--url`. */
  readonly server: CommandLine | undefined;
  /** `--url`: the remote server it reaches. */
  readonly url: string | undefined;
  /** `--max-inline-bytes`, when given. */
  readonly cap: number | undefined;
  /** `--host`, when given. */
  readonly host: string | undefined;
}

function optionValue(options: readonly string[], name: string): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < options.length; i++) {
    const word = options[i] ?? '';
    if (word === name) found = options[i + 1];
    else if (word.startsWith(`${name}=`)) found = word.slice(name.length + 1);
  }
  return found;
}

/** The words before `mcp` and the words after it, or `undefined` when `line` does not start spillway. */
function splitLauncher(line: CommandLine): { form: SpillwayWrapper['form']; launcher: string[]; rest: readonly string[] } | undefined {
  if (isSpillwayScript(line.command)) return { form: 'bin', launcher: [line.command], rest: line.args };
  if (line.args[0] !== undefined && isSpillwayScript(line.args[0])) return { form: 'script', launcher: [line.command, line.args[0]], rest: line.args.slice(1) };
  if (isNpx(line.command)) {
    // npx's own flags (-y, --yes, -q…), then the package, then its arguments.
    let i = 0;
    while (i < line.args.length && (line.args[i] ?? '').startsWith('-')) i++;
    const pkg = line.args[i];
    if (pkg === '@spillway/cli' || pkg?.startsWith('@spillway/cli@') === true) return { form: 'npx', launcher: [line.command, ...line.args.slice(0, i + 1)], rest: line.args.slice(i + 1) };
  }
  return undefined;
}

/**
 * The parts of a command line that runs `spillway mcp` (see {@link SpillwayWrapper}):
 * setup's own wrapper, `spillway mcp -- …`, `spillway mcp --url …` or
 * `npx -y @spillway/cli mcp -- …`; `undefined` for any other command line.
 */
export function parseWrapper(line: CommandLine): SpillwayWrapper | undefined {
  const split = splitLauncher(line);
  if (split?.rest[0] !== 'mcp') return undefined;
  const after = split.rest.slice(1);
  let end = 0;
  while (end < after.length) {
    const word = after[end] ?? '';
    if (word === '--' || !word.startsWith('-')) break;
    end += VALUE_OPTIONS.has(word) ? 2 : 1;
  }
  const options = after.slice(0, Math.min(end, after.length));
  const dashes = after[end] === '--';
  const words = after.slice(dashes ? end + 1 : end);
  const url = optionValue(options, '--url');
  const capText = optionValue(options, '--max-inline-bytes');
  const cap = capText !== undefined && /^\d+$/.test(capText) ? Number(capText) : undefined;
  const server = words[0] === undefined ? undefined : { command: words[0], args: words.slice(1) };
  if (server === undefined && url === undefined) return undefined;
  return { form: split.form, launcher: split.launcher, options, dashes, server, url, cap, host: optionValue(options, '--host') };
}

/** The command line of a wrapper, its parts changed or not. */
export function formatWrapper(wrapper: SpillwayWrapper): CommandLine {
  const [command = 'spillway', ...rest] = wrapper.launcher;
  const server = wrapper.server === undefined ? [] : [...(wrapper.dashes ? ['--'] : []), wrapper.server.command, ...wrapper.server.args];
  return { command, args: [...rest, 'mcp', ...wrapper.options, ...server] };
}

/** `options` with `--max-inline-bytes` set to `cap` (replaced where written, else added first). */
export function withCap(options: readonly string[], cap: number): string[] {
  const out = [...options];
  let found = false;
  for (let i = 0; i < out.length; i++) {
    if (out[i] === '--max-inline-bytes' && i + 1 < out.length) {
      out[i + 1] = String(cap);
      found = true;
    } else if (out[i]?.startsWith('--max-inline-bytes=') === true) {
      out[i] = `--max-inline-bytes=${String(cap)}`;
      found = true;
    }
  }
  return found ? out : ['--max-inline-bytes', String(cap), ...out];
}

/**
 * The original command line inside a `spillway mcp` wrapper (any form {@link parseWrapper}
 * knows); `undefined` when `line` is not wrapped or reaches a `--url`.
 */
export function unwrapCommand(line: CommandLine): CommandLine | undefined {
  return parseWrapper(line)?.server;
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
 *
 * When stdout is an empty regular file (how Claude Code runs its Bash tool), the command
 * writes its output there itself, and spillway starts only once it is done and its output
 * is past the cap (`spillway spill-stdout`): a small command costs one shell more, not a
 * node process.
 */
export function claudeCodeShellScript(spillway: SpillwayCommand, cap: number, failureCap: number): string {
  const caps = ['--max-inline-bytes', String(cap), '--max-inline-bytes-on-failure', String(failureCap), '--notice-reader', 'file-tools', '--name', 'Bash'];
  const run = [spillway.node, spillway.spillway, 'run', '--live', ...caps];
  const take = [spillway.node, spillway.spillway, 'spill-stdout', ...caps];
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
    // Claude Code reads the output from a file it gives as stdout: the command writes there
    // itself, and spillway starts only when the output is past the cap.
    '  if [ -f /dev/stdout ] && [ ! -s /dev/stdout ]; then',
    '    "$shell" -c "$1" 2>&1',
    '    rc=$?',
    '    size=',
    '    if [ -r "/proc/$$/fdinfo/1" ]; then',
    '      while read -r key value; do',
    '        if [ "$key" = pos: ]; then size=$value; break; fi',
    '      done < "/proc/$$/fdinfo/1"',
    '    fi',
    '    [ -n "$size" ] || size=$(wc -c < /dev/stdout)',
    `    limit=${String(cap)}`,
    `    [ "$rc" -eq 0 ] || limit=${String(Math.min(cap, failureCap))}`,
    '    [ "$size" -le "$limit" ] && exit "$rc"',
    `    exec ${take.map(shellQuote).join(' ')} --exit-code "$rc" --session "\${CLAUDE_CODE_SESSION_ID:-claude-code}"`,
    '  fi',
    `  exec ${run.map(shellQuote).join(' ')} --session "\${CLAUDE_CODE_SESSION_ID:-claude-code}" -- "$shell" -c "$1"`,
    'fi',
    'exec "$shell" -c "$1"',
    '',
  ].join('\n');
}

/** The words of a shell command line (single and double quotes and backslashes undone; nothing expanded). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? '';
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, end === -1 ? line.length : end);
      i = end === -1 ? line.length : end;
    } else if (c === '"') {
      let text = '';
      for (i++; i < line.length && line[i] !== '"'; i++) text += (line[i] === '\\' && i + 1 < line.length ? line[++i] : line[i]) ?? '';
      word = (word ?? '') + text;
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + (line[++i] ?? '');
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The parts of spillway's hook command line: the words before `hook` and `--max-inline-bytes`; `undefined` when it is not `spillway hook`. */
export function parseHookCommand(command: string): { readonly launcher: readonly string[]; readonly cap: number | undefined } | undefined {
  const words = shellWords(command);
  const at = words.indexOf('hook');
  if (at < 1 || !words.slice(0, at).some(isSpillwayScript)) return undefined;
  const capText = optionValue(words.slice(at + 1), '--max-inline-bytes');
  return { launcher: words.slice(0, at), cap: capText !== undefined && /^\d+$/.test(capText) ? Number(capText) : undefined };
}

/**
 * The body of spillway's block in Codex's `AGENTS.md`. No hook of Codex 0.169.0 can keep a
 * shell command's whole output: its PostToolUse hook is given the output already cut to about
 * 10 KiB, and a PreToolUse `updatedInput` needs `permissionDecision: "allow"`, after which
 * Codex judges the rewritten command, so a wrapper takes the command out of the person's
 * rules. The model is asked to run long commands through `spillway run` itself. It asks;
 * nothing enforces it.
 */
export function codexInstructions(spillway: SpillwayCommand, cap: number): string {
  const base = [spillway.node, spillway.spillway].map(shellQuote).join(' ');
  return [
    '## Long command output',
    '',
    'Codex keeps only about 10 KiB of a command\'s output and drops the middle, which is then lost.',
    'Run a command whose output may be long (a build, a test run, an install, a search, a listing,',
    'a log) through spillway, which keeps the whole output and shows its head, its tail and its',
    'error lines:',
    '',
    `    ${base} run --max-inline-bytes ${String(cap)} -- <command> [<args>...]`,
    '',
    "Put a pipeline or other shell syntax in `sh -c '...'`. The exit code is the command's. A",
    'small output comes back whole; a large one ends with the path of the whole output. Read it',
    `with \`${base} read <path> --offset N --limit N\`, or search it with \`${base} grep <path> <pattern>\`.`,
    '',
  ].join('\n');
}

/** The script a Codex instructions block runs (see {@link codexInstructions}), or `undefined`. */
export function codexInstructionsScript(body: string): string | undefined {
  const line = body.split('\n').find((l) => /^ {4}\S.* run --max-inline-bytes \d+ -- /.test(l));
  if (line === undefined) return undefined;
  const words = shellWords(line.trim());
  return words[1];
}
