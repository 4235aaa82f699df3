import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { HOSTS } from '@spillway/hosts';
import { PACKAGE_DIR } from './test-bin.js';

/** The pinned hosts (each host definition's `checkedWith`), installed from the npm registry into a cache outside the clone. */
export const PINNED_HOSTS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(HOSTS).flatMap((host) => (host.checkedWith === undefined ? [] : [[host.checkedWith.npmPackage, host.checkedWith.version]])),
);

/** Where the hosts are installed: `$SPILLWAY_HOSTS_CACHE`, else `$XDG_CACHE_HOME/spillway-hosts`, else `~/.cache/spillway-hosts`. */
export const HOSTS_CACHE =
  process.env.SPILLWAY_HOSTS_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'spillway-hosts');

/** The MCP server with one ~500 KB tool, and the runner that hosts a fake model server and a host inside a namespace. */
export const BIG_MCP_SERVER = join(PACKAGE_DIR, 'test-hosts', 'big-mcp-server.mjs');
const RUNNER = join(PACKAGE_DIR, 'test-hosts', 'runner.mjs');

/**
 * What Gemini CLI 0.61.0's read_file puts in its result instead of a file's text, or above
 * it, when it cuts the file (too many lines, a line over 2,000 characters) or takes it for
 * binary: a preview delivered through read_file must reach the model without any of them.
 */
export const GEMINI_READ_FILE_CUTS = ['IMPORTANT: The file content has been truncated', '... [truncated]', 'Cannot display content of binary file'] as const;

/** The line of the big MCP result that its preview leaves out. */
export const MCP_NEEDLE = 'MCP-NEEDLE-31337 is the line the preview leaves out';

function installed(): boolean {
  return Object.entries(PINNED_HOSTS).every(([name, version]) => {
    try {
      const pkg = JSON.parse(readFileSync(join(HOSTS_CACHE, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string };
      return pkg.version === version;
    } catch {
      return false;
    }
  });
}

/** Why real-host sessions cannot run here, or `undefined` when they can. Installs the hosts when missing. */
export function realHostSkipReason(): string | undefined {
  if (process.env.SPILLWAY_REAL_HOSTS === 'off') return 'SPILLWAY_REAL_HOSTS=off';
  if (process.getuid?.() !== 0) return 'making a network namespace (unshare --net) needs root; hosts never run outside one';
  const probe = spawnSync('unshare', ['--net', '--', 'sh', '-c', 'ip link set lo up'], { encoding: 'utf8' });
  if (probe.status !== 0) return `cannot make a network namespace with only loopback: ${(probe.stderr || String(probe.error)).trim()}`;
  if (!installed()) {
    // Test files run in parallel workers: one installs while the others wait for it.
    const lock = `${mkdirp(HOSTS_CACHE)}.lock`;
    const deadline = Date.now() + 20 * 60_000;
    while (!tryLock(lock)) {
      if (Date.now() > deadline) return `another process has held ${lock} for 20 minutes`;
      spawnSync('sleep', ['1']);
    }
    try {
      if (!installed()) {
        if (!existsSync(join(HOSTS_CACHE, 'package.json'))) writeFileSync(join(HOSTS_CACHE, 'package.json'), '{"name":"spillway-hosts-cache","private":true}\n');
        const specs = Object.entries(PINNED_HOSTS).map(([name, version]) => `${name}@${version}`);
        const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', ...specs], { cwd: HOSTS_CACHE, encoding: 'utf8', timeout: 15 * 60_000 });
        if (npm.status !== 0 || !installed()) return `installing the pinned hosts into ${HOSTS_CACHE} failed: ${(npm.stderr || String(npm.error)).trim().slice(-300)}`;
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  return undefined;
}

/** Takes the install lock (a directory: its creation is atomic); a lock left by a dead run is taken over after 20 minutes. */
function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    try {
      if (Date.now() - statSync(lock).mtimeMs > 20 * 60_000) rmSync(lock, { recursive: true, force: true });
    } catch {
      // Gone meanwhile: the next try takes it.
    }
    return false;
  }
}

function mkdirp(dir: string): string {
  spawnSync('mkdir', ['-p', dir]);
  return dir;
}

/**
 * A shell step that waits (up to 60 s, then one more second for the host to take the list)
 * until the big MCP server has been asked for its tools, for hosts that connect MCP servers
 * in the background: on a loaded machine the first MCP call could otherwise come too soon.
 * The server writes `readyFile` when `BIG_MCP_READY_FILE` names it, else `$HOME/big-ready`.
 * `argument` is the name the host's shell tool gives the command (Codex: `cmd`).
 */
export function waitForBigServer(tool: string, readyFile: string, argument: 'command' | 'cmd' = 'command'): ScriptedCall {
  const file = readyFile.replace(/'/g, `'\\''`);
  const script = `for i in $(seq 1 600); do [ -e '${file}' ] && break; sleep 0.1; done; sleep 1; echo waited`;
  return { name: tool, args: argument === 'cmd' ? { cmd: script } : { command: script, description: 'wait for the MCP server' } };
}

/** A scripted tool call; `{LOCATOR}` in an argument is replaced by the locator of the last notice the host sent back. */
export interface ScriptedCall {
  readonly name: string;
  /** Codex: the namespace an MCP tool arrives in (`mcp__<server>`). */
  readonly namespace?: string;
  readonly args: Record<string, unknown>;
}

/** What one session recorded. */
export interface SessionRecord {
  readonly code: number | null;
  readonly signal: string | null;
  /** Each tool result, as the host sent it to the model, in order. */
  readonly results: string[];
  readonly requests: { method: string; url: string; bytes: number }[];
  /** Which of the `watch` strings appeared in any request the host sent (instructions included). */
  readonly seen: string[];
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `command` (a host) inside a fresh network namespace with only loopback up, against a
 * fake model server on 127.0.0.1 in the same namespace that answers `steps` in order and
 * records what the host sends back. `{PORT}` in `env` values and in `command` is the server's port.
 */
export function runHostSession(options: {
  readonly api: 'anthropic' | 'gemini' | 'openai-responses' | 'openai-chat';
  readonly command: readonly string[];
  readonly env: Record<string, string>;
  readonly cwd: string;
  readonly steps: readonly ScriptedCall[];
  readonly dir: string;
  readonly timeoutMs?: number;
  /** Strings to look for in what the host sends the model. */
  readonly watch?: readonly string[];
  /** Anthropic: a request whose first message holds `when` is answered with `text` (a sub-agent's turn, a web fetch's small-model request). */
  readonly replies?: readonly { readonly when: string; readonly text: string }[];
  /** A web page served on 127.0.0.1 inside the namespace, over https when given a key and cert; `{PAGE_PORT}` in a step is its port. */
  readonly page?: { readonly keyFile?: string; readonly certFile?: string; readonly body: string; readonly contentType?: string };
}): SessionRecord {
  const recordFile = join(options.dir, 'session-record.json');
  const configFile = join(options.dir, 'session-config.json');
  const timeoutMs = options.timeoutMs ?? 240_000;
  writeFileSync(configFile, JSON.stringify({ ...options, recordFile, timeoutMs }));
  const run = spawnSync('unshare', ['--net', '--', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', process.execPath, RUNNER, configFile], {
    encoding: 'utf8',
    timeout: timeoutMs + 30_000,
  });
  if (!existsSync(recordFile)) throw new Error(`the session runner recorded nothing (exit ${String(run.status)}): ${run.stderr}`);
  return JSON.parse(readFileSync(recordFile, 'utf8')) as SessionRecord;
}

/** The pinned Claude Code's binary. */
export const CLAUDE_CODE = join(HOSTS_CACHE, 'node_modules', '@anthropic-ai', 'claude-code-linux-x64', 'claude');

/**
 * The environment of an offline Claude Code session: `dir` is its home (state, usage log
 * and the big server's ready file go there), `config` its config directory, with fake keys
 * and the fake model server's port left as `{PORT}`.
 */
export function claudeCodeSessionEnv(dir: string, config: string, path = process.env.PATH ?? '/usr/bin:/bin'): Record<string, string> {
  return {
    PATH: path,
    HOME: dir,
    SHELL: '/bin/bash',
    CLAUDE_CONFIG_DIR: config,
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:{PORT}',
    ANTHROPIC_API_KEY: 'sk-ant-fake-key-for-tests',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    ENABLE_TOOL_SEARCH: 'false',
    XDG_STATE_HOME: join(dir, 'state'),
    SPILLWAY_USAGE_DIR: join(dir, 'usage'),
    BIG_MCP_READY_FILE: join(dir, 'big-ready'),
  };
}
