import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { xdgBaseDir } from '@spillway/core/xdg';
import { claudeCodeShellScript, claudeCodeShellScriptName, codexInstructions, codexInstructionsScript, hookCommandLine, isClaudeCodeShellScript } from './command.js';
import { INSTRUCTIONS_KEY } from './instructions-document.js';
import { OPENCODE_COVERED_TOOLS, OPENCODE_PLUGIN_MARK, opencodePlugin, opencodePluginScript } from './opencode-plugin.js';
import { OWNED_FILE_KEY } from './owned-file-document.js';
import { HOOK_CONTRACTS } from './hook-contracts.js';
import { spillwayStateDir } from './undo-records.js';
import type { ConfigFileSpec, ConfigPath, HostDefinition, HostId, SetupEnvironment } from './types.js';

const table =
  (key: string) =>
  (): readonly ConfigPath[] => [[key]];

function xdgConfig(env: SetupEnvironment): string {
  return xdgBaseDir('config', env.env, env.home);
}

/** The first of `names` that exists in `dir`, else the last one. */
function firstExisting(dir: string, names: readonly string[]): string {
  for (const name of names) if (existsSync(join(dir, name))) return join(dir, name);
  return join(dir, names[names.length - 1] ?? '');
}

/** A host's user-level and project-level config files, alike but for their paths. */
function userAndProject(user: string, project: string, file: Pick<ConfigFileSpec, 'format' | 'style' | 'serverTables'>): ConfigFileSpec[] {
  return [
    { path: user, scope: 'user', ...file },
    { path: project, scope: 'project', ...file },
  ];
}

/**
 * The cap for a Bash command that fails: Claude Code keeps about the first and last 5,000
 * characters of a failing command's output (checked in 2.1.328: 10,040 characters reached
 * the model for 2 MB), so a larger preview would lose its middle, and a notice, there.
 */
const CLAUDE_CODE_FAILURE_CAP = 9000;

/**
 * The Claude Code tools the hook covers: Bash, and the built-in tools whose output shape it
 * rebuilds (`claude-code-tool-shapes.ts`). Read is left out: spilling a file read would loop.
 * A matcher of names and `|` only is matched exactly by Claude Code.
 */
export const CLAUDE_CODE_HOOK_MATCHER = 'Bash|Grep|Glob|WebFetch|WebSearch|Agent';

/**
 * Whether a Claude Code hook matcher runs on `tool`, as Claude Code 2.1.328 decides it: none,
 * `""` or `*` runs on every tool; letters, digits, `_` and `|` only are a list of exact names;
 * anything else is a regular expression, found anywhere in the name (an invalid one runs on
 * nothing).
 */
export function claudeCodeMatcherCovers(matcher: string | undefined, tool: string): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  if (/^[a-zA-Z0-9_|]+$/.test(matcher)) return matcher.split('|').includes(tool);
  try {
    return new RegExp(matcher).test(tool);
  } catch {
    return false;
  }
}

/**
 * Whether a Gemini CLI hook matcher runs on `tool`, as Gemini CLI 0.61.0 decides it: none,
 * `""` or `*` (spaces around it ignored) runs on every tool; anything else is a regular
 * expression found anywhere in the name, and one that does not compile is an exact name.
 */
export function geminiMatcherCovers(matcher: string | undefined, tool: string): boolean {
  const m = matcher?.trim();
  if (m === undefined || m === '' || m === '*') return true;
  try {
    return new RegExp(m).test(tool);
  } catch {
    return m === tool;
  }
}

const claudeCode: HostDefinition = {
  id: 'claude-code',
  label: 'Claude Code',
  checkedWith: { npmPackage: '@anthropic-ai/claude-code', version: '2.1.328' },
  cap: HOOK_CONTRACTS['claude-code'].defaultCap,
  capReason:
    'under the 30,000 characters over which Claude Code persists Bash output itself, so its own notice never wraps the preview, and far under MAX_MCP_OUTPUT_TOKENS (25,000 tokens); Grep gets at most 16 KiB, as Claude Code persists a Grep result over 20,000 characters, a replacement included',
  notCovered:
    'Read (spilling a file read would loop), Edit, Write and the other built-in tools outside Bash, Grep, Glob, WebFetch, WebSearch and Agent; a sub-agent run in the background (its answer arrives later, not as the tool result); remote MCP servers',
  files(env, cap) {
    const script = join(spillwayStateDir(env), 'bin', claudeCodeShellScriptName(cap));
    const dir = env.configDir ?? env.env.CLAUDE_CONFIG_DIR;
    const main = dir !== undefined && dir !== '' ? join(dir, '.claude.json') : join(env.home, '.claude.json');
    const settings = dir !== undefined && dir !== '' ? join(dir, 'settings.json') : join(env.home, '.claude', 'settings.json');
    return [
      {
        path: main,
        scope: 'user',
        format: 'jsonc',
        strictJson: true,
        style: 'command-args',
        // User scope, then every project's own servers.
        serverTables: (doc) => {
          const projects = (doc as { projects?: unknown }).projects;
          const names = projects !== null && typeof projects === 'object' ? Object.keys(projects) : [];
          return [['mcpServers'], ...names.map((name) => ['projects', name, 'mcpServers'])];
        },
      },
      {
        path: settings,
        scope: 'user',
        format: 'jsonc',
        strictJson: true,
        style: 'command-args',
        serverTables: () => [],
        hook: { path: ['hooks', 'PostToolUse'], matcher: CLAUDE_CODE_HOOK_MATCHER, formerMatchers: ['Bash'], covers: claudeCodeMatcherCovers, command: hookCommandLine('claude-code', env.command, cap) },
        // Claude Code splits " -" off the prefix as a flag: such a path cannot be used.
        setting: script.includes(' -')
          ? undefined
          : {
              path: ['env', 'CLAUDE_CODE_SHELL_PREFIX'],
              value: script,
              purpose: 'every Bash command runs through spillway, so a large output of a command that fails is stored too (Claude Code gives a failing command no output hook)',
              isOurs: isClaudeCodeShellScript,
              file: { path: script, content: claudeCodeShellScript(env.command, cap, Math.min(cap, CLAUDE_CODE_FAILURE_CAP)) },
            },
      },
      { path: join(env.cwd, '.mcp.json'), scope: 'project', format: 'jsonc', strictJson: true, style: 'command-args', serverTables: table('mcpServers') },
    ];
  },
  hookOnlyFiles: (env) =>
    ['settings.json', 'settings.local.json'].map((name) => ({
      path: join(env.cwd, '.claude', name),
      scope: 'project' as const,
      format: 'jsonc' as const,
      strictJson: true,
      style: 'command-args' as const,
      serverTables: () => [],
    })),
};

const gemini: HostDefinition = {
  id: 'gemini',
  label: 'Gemini CLI',
  checkedWith: { npmPackage: '@google/gemini-cli', version: '0.61.0' },
  cap: HOOK_CONTRACTS.gemini.defaultCap,
  capReason: 'under the 40,000 characters over which Gemini CLI cuts shell output to its first 8,000 and last 32,000',
  notCovered: 'built-in tools other than run_shell_command, web_fetch and google_web_search',
  files(env, cap) {
    const dir = env.configDir ?? join(env.home, '.gemini');
    return [
      {
        path: join(dir, 'settings.json'),
        scope: 'user',
        format: 'jsonc',
        style: 'command-args',
        serverTables: table('mcpServers'),
        hook: {
          path: ['hooks', 'AfterTool'],
          matcher: 'run_shell_command|web_fetch|google_web_search',
          covers: geminiMatcherCovers,
          command: hookCommandLine('gemini', env.command, cap),
        },
      },
      { path: join(env.cwd, '.gemini', 'settings.json'), scope: 'project', format: 'jsonc', style: 'command-args', serverTables: table('mcpServers') },
    ];
  },
};

const codex: HostDefinition = {
  id: 'codex',
  label: 'Codex CLI',
  checkedWith: { npmPackage: '@openai/codex', version: '0.169.0' },
  cap: 8 * 1024,
  capReason: 'under the 10 KiB at which Codex cuts a tool result, with room for its own framing',
  notCovered:
    'shell output is covered only when the model follows the AGENTS.md block and runs the command through spillway run (the hooks of Codex see only its own cut of the output, and a hook that rewrites the command takes it out of the rules of the person); under the read-only sandbox nothing can be stored; apply_patch',
  files(env, cap) {
    const home = env.configDir ?? env.env.CODEX_HOME ?? join(env.home, '.codex');
    return [
      ...userAndProject(join(home, 'config.toml'), join(env.cwd, '.codex', 'config.toml'), { format: 'toml', style: 'command-args', serverTables: table('mcp_servers') }),
      {
        path: join(home, 'AGENTS.md'),
        scope: 'user',
        format: 'markdown',
        style: 'command-args',
        serverTables: () => [],
        createIfMissing: 'file',
        setting: {
          path: [INSTRUCTIONS_KEY],
          value: codexInstructions(env.command, cap),
          label: `a block that asks the model to run long commands through spillway run --max-inline-bytes ${String(cap)}`,
          purpose: "Codex cuts a command's output to about 10 KiB before any hook sees it",
          isOurs: (value) => typeof value === 'string',
          needs: (value) => codexInstructionsScript(value),
        },
      },
    ];
  },
};

const opencode: HostDefinition = {
  id: 'opencode',
  label: 'OpenCode',
  checkedWith: { npmPackage: 'opencode-ai', version: '1.18.33' },
  cap: 16 * 1024,
  capReason: 'about 4,000 tokens per result; OpenCode\'s own cut of tool output is not relied on',
  notCovered: 'read (spilling a file read would loop), edit and write; remote MCP servers',
  files(env, cap) {
    const dir = env.configDir ?? join(xdgConfig(env), 'opencode');
    const names = ['opencode.jsonc', 'opencode.json'];
    return [
      ...userAndProject(firstExisting(dir, names), firstExisting(env.cwd, names), { format: 'jsonc', style: 'command-array', serverTables: table('mcp') }),
      {
        path: join(dir, 'plugin', 'spillway.js'),
        scope: 'user',
        format: 'owned',
        style: 'command-array',
        serverTables: () => [],
        createIfMissing: 'directory',
        setting: {
          path: [OWNED_FILE_KEY],
          value: opencodePlugin(env.command, cap),
          label: `spillway's plugin (cap ${String(cap)} bytes)`,
          purpose: `OpenCode gives a plugin the output of ${OPENCODE_COVERED_TOOLS.join(', ')} before the model sees it`,
          isOurs: (value) => typeof value === 'string' && value.startsWith(OPENCODE_PLUGIN_MARK),
          needs: (value) => opencodePluginScript(value),
        },
      },
    ];
  },
};

const cursor: HostDefinition = {
  id: 'cursor',
  label: 'Cursor',
  cap: 16 * 1024,
  capReason: 'about 4,000 tokens per result; Cursor documents no cut of its own for MCP results',
  notCovered: 'built-in tools: Cursor offers no hook that replaces their output',
  files(env) {
    const dir = env.configDir ?? join(env.home, '.cursor');
    return userAndProject(join(dir, 'mcp.json'), join(env.cwd, '.cursor', 'mcp.json'), { format: 'jsonc', style: 'command-args', serverTables: table('mcpServers') });
  },
};

const vscode: HostDefinition = {
  id: 'vscode',
  label: 'VS Code',
  cap: 16 * 1024,
  capReason: 'about 4,000 tokens per result; VS Code documents no cut of its own for MCP results',
  notCovered: 'built-in tools: VS Code offers no hook that replaces their output; servers in settings.json ("mcp.servers")',
  files(env) {
    const user =
      env.configDir ??
      (process.platform === 'darwin' ? join(env.home, 'Library', 'Application Support', 'Code', 'User') : join(xdgConfig(env), 'Code', 'User'));
    return userAndProject(join(user, 'mcp.json'), join(env.cwd, '.vscode', 'mcp.json'), { format: 'jsonc', style: 'command-args', serverTables: table('servers') });
  },
};

/** Every host definition, by id. */
export const HOSTS: Readonly<Record<HostId, HostDefinition>> = {
  'claude-code': claudeCode,
  gemini,
  codex,
  opencode,
  cursor,
  vscode,
};

/** The files of `host`, without duplicates (a project directory that is the home directory). */
export function hostFiles(host: HostDefinition, env: SetupEnvironment, cap: number): readonly ConfigFileSpec[] {
  const seen = new Set<string>();
  return host.files(env, cap).filter((spec) => (seen.has(spec.path) ? false : (seen.add(spec.path), true)));
}
