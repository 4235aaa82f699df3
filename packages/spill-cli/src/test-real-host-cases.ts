import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GEMINI_PREFIX } from '@spillway/hosts/hook';
import type { HostId } from '@spillway/hosts';
import { BIG_MCP_SERVER, CLAUDE_CODE, claudeCodeSessionEnv, GEMINI_READ_FILE_CUTS, HOSTS_CACHE, runHostSession, waitForBigServer, type ScriptedCall, type SessionRecord } from './test-real-hosts.js';

// One row per real host: how a person's config looks, how the host is started offline, and
// how it names the calls of the session every host goes through (the big MCP result, a
// spill_grep on its locator, a small shell output, a long failing command). The contract
// those calls are held to lives once, in real-hosts.e2e.test.ts.

/** The error line of the long failing command: in the middle, where the host's own cut drops it. */
export const FAILING_ERROR = 'error: the build broke at step 9';
/** About 1.9 MB with the error in the middle, then a failing exit. */
export const FAILING = `seq 1 150000; echo "${FAILING_ERROR}"; seq 150001 300000; exit 3`;

/** Where one host's session keeps its files, and how spillway's commands reach them. */
export interface RealHostLayout {
  /** The home directory of the person (and of the host's session). */
  readonly home: string;
  /** The project the host runs in. */
  readonly cwd: string;
  /** `spillway setup <host>` options that point at the person's config. */
  readonly setupArgs: readonly string[];
  /** Environment of `spillway setup`, besides `HOME`. */
  readonly setupEnv: Record<string, string>;
  /** The config files setup edits: undo right after setup gives their bytes back. */
  readonly files: readonly string[];
  /** Files setup writes of its own (a plugin), which undo removes. */
  readonly written: readonly string[];
  /** A line of the person's own that every edit keeps. */
  readonly ownText: string;
  /** A config directory holding a file that cannot be parsed, and that file's name. */
  readonly broken: { readonly dir: string; readonly file: string; readonly text: string };
  /** Environment under which `spillway stats` finds the session's usage log. */
  readonly statsEnv: Record<string, string>;
  /** Options and environment of `spillway audit` over the host's own transcripts. */
  readonly audit: { readonly args: readonly string[]; readonly env: Record<string, string> };
}

/** Calls of one host's session beyond the shared ones, with what each must show. */
export interface RealHostExtra {
  steps(layout: RealHostLayout): readonly ScriptedCall[];
  /** Outputs among `steps` that spill. */
  readonly spills: number;
  check(results: readonly string[], layout: RealHostLayout): void;
}

/** One real host, as the table-driven real-host test drives it. */
export interface RealHostCase {
  readonly host: HostId;
  /** Why this host cannot run here beyond what every real host needs, or `undefined`. */
  readonly skipReason?: (() => string | undefined) | undefined;
  /** Writes the person's config under `dir`. */
  prepare(dir: string): RealHostLayout;
  /** Runs the host offline with `steps`. */
  session(dir: string, layout: RealHostLayout, steps: readonly ScriptedCall[]): SessionRecord;
  /** Calls the session starts with (waiting for an MCP server the host connects in the background). */
  readonly before: (dir: string) => readonly ScriptedCall[];
  /** The host's names for the big MCP server's tools and for its shell. */
  mcp(tool: 'get_big' | 'spill_grep', args: Record<string, unknown>): ScriptedCall;
  shell(command: string): ScriptedCall;
  /** The text of a shell result as the model reads it. */
  shellText(result: string): string;
  /** Most bytes the MCP preview may take, as the host frames it. */
  readonly mcpLimit: number;
  /** Most bytes of a failing command's preview; absent when no hook of the host sees it (Codex: see its own test). */
  readonly failing?: { readonly limit: number; readonly exitCode: RegExp | undefined } | undefined;
  /** The tool names `spillway audit` reports for the session (the shared calls and the host's own). */
  readonly auditTools: readonly string[];
  readonly extra?: RealHostExtra | undefined;
}

const PATH = process.env.PATH ?? '/usr/bin:/bin';
const stored = (text: string): string => readFileSync(/stored at: (\S+?)\. /.exec(text)?.[1] ?? '', 'utf8');
const check = (ok: boolean, what: string): void => {
  if (!ok) throw new Error(what);
};

/** About 2 MB of shell output with one needle line in the middle. */
const SHELL = '{ seq 1 150000; echo SHELL-NEEDLE-4242; seq 150001 300000; }';

const claudeCode: RealHostCase = {
  host: 'claude-code',
  prepare(dir) {
    const config = join(dir, 'claude');
    mkdirSync(config);
    mkdirSync(join(dir, 'project', 'sub'), { recursive: true });
    writeFileSync(join(config, '.claude.json'), `${JSON.stringify({ hasCompletedOnboarding: true, mcpServers: { big: { type: 'stdio', command: 'node', args: [BIG_MCP_SERVER], env: {} } } }, null, 2)}\n`);
    // Strict JSON: Claude Code ignores a settings.json with comments (checked).
    writeFileSync(join(config, 'settings.json'), '{\n  "permissions": { "allow": [] },\n  "theme": "dark"\n}\n');
    const broken = join(dir, 'broken');
    return {
      home: dir,
      cwd: join(dir, 'project'),
      setupArgs: ['--config-dir', config],
      setupEnv: { PATH },
      files: [join(config, '.claude.json'), join(config, 'settings.json')],
      written: [],
      ownText: '"theme": "dark"',
      broken: { dir: broken, file: 'settings.json', text: '{ "hooks": ' },
      statsEnv: { SPILLWAY_USAGE_DIR: join(dir, 'usage') },
      audit: { args: ['--cap', '4096'], env: { CLAUDE_CONFIG_DIR: config } },
    };
  },
  session: (dir, layout, steps) =>
    runHostSession({
      api: 'anthropic',
      dir,
      cwd: layout.cwd,
      command: [CLAUDE_CODE, '-p', 'Run the scripted tools.', '--output-format', 'json', '--allowedTools', 'Bash,mcp__big__get_big,mcp__big__spill_grep'],
      env: claudeCodeSessionEnv(dir, join(dir, 'claude')),
      steps,
    }),
  before: (dir) => [waitForBigServer('Bash', join(dir, 'big-ready'))],
  mcp: (tool, args) => ({ name: `mcp__big__${tool}`, args }),
  shell: (command) => ({ name: 'Bash', args: { command, description: 'run a command' } }),
  shellText: (result) => result,
  mcpLimit: 24 * 1024 + 200,
  // Claude Code fires no output hook for a failing command: it runs through the shell
  // prefix, and the preview must fit what Claude Code keeps of a failure (about 10,000 characters).
  failing: { limit: 9000 + 100, exitCode: /^Exit code 3\n/ },
  auditTools: ['Bash', 'big/get_big', 'big/spill_grep'],
  extra: {
    steps: () => [
      { name: 'Bash', args: { command: SHELL, description: 'print a long listing' } },
      { name: 'Bash', args: { command: 'cd sub', description: 'enter a folder' } },
      { name: 'Bash', args: { command: 'pwd; echo small-error >&2; exit 2', description: 'fail small' } },
    ],
    spills: 1,
    check([shell = '', cd, smallFailure], layout) {
      check(Buffer.byteLength(shell) <= 24 * 1024 + 200 && !shell.includes('<persisted-output>'), `the 2 MB output reached the model as ${String(Buffer.byteLength(shell))} bytes`);
      check(stored(shell) === execFileSync('sh', ['-c', SHELL], { encoding: 'utf8', maxBuffer: 1 << 26 }), 'the stored 2 MB output differs from the command output');
      // The working directory carries over, and a small failure reads as it did without spillway.
      check(cd === '(Bash completed with no output)', `cd gave ${String(cd)}`);
      check(smallFailure === `Exit code 2\n${join(layout.cwd, 'sub')}\nsmall-error`, `a small failure gave ${String(smallFailure)}`);
    },
  },
};

const GEMINI = join(HOSTS_CACHE, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
const GEMINI_SETTINGS = `{
  // written by the test, as a person would
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "general": { "disableAutoUpdate": true, "disableUpdateNag": true },
  "telemetry": { "enabled": false },
  "privacy": { "usageStatisticsEnabled": false },
  "mcpServers": {
    "big": { "command": "node", "args": [${JSON.stringify(BIG_MCP_SERVER)}], "trust": true }
  }
}
`;

const gemini: RealHostCase = {
  host: 'gemini',
  prepare(dir) {
    mkdirSync(join(dir, '.gemini'));
    mkdirSync(join(dir, 'project'));
    writeFileSync(join(dir, '.gemini', 'settings.json'), GEMINI_SETTINGS);
    return {
      home: dir,
      cwd: join(dir, 'project'),
      setupArgs: [],
      setupEnv: {},
      files: [join(dir, '.gemini', 'settings.json')],
      written: [],
      ownText: '// written by the test, as a person would',
      broken: { dir: join(dir, 'broken'), file: 'settings.json', text: '{ "mcpServers": { ' },
      statsEnv: { SPILLWAY_USAGE_DIR: join(dir, 'usage') },
      audit: { args: ['--host', 'gemini'], env: {} },
    };
  },
  session: (dir, layout, steps) =>
    runHostSession({
      api: 'gemini',
      dir,
      cwd: layout.cwd,
      command: [process.execPath, GEMINI, '-p', 'Run the scripted tools.', '--output-format', 'json', '--yolo', '-m', 'gemini-2.5-pro'],
      env: {
        PATH,
        HOME: dir,
        GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:{PORT}',
        GEMINI_API_KEY: 'fake-gemini-key-for-tests',
        XDG_STATE_HOME: join(dir, 'state'),
        SPILLWAY_USAGE_DIR: join(dir, 'usage'),
        NO_BROWSER: '1',
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
      },
      steps,
    }),
  before: () => [],
  mcp: (tool, args) => ({ name: `mcp_big_${tool}`, args }),
  shell: (command) => ({ name: 'run_shell_command', args: { command } }),
  // A shell result reaches the model as `{"output": …}`; spillway's preview comes as read_file's own result.
  shellText(result) {
    const parsed = JSON.parse(result) as { output?: string; error?: string };
    check(parsed.error === undefined, `the shell result is an error: ${result.slice(0, 300)}`);
    check(!result.includes(GEMINI_PREFIX.trim()), 'the shell result is the fallback denial, not a plain result');
    // read_file showed the whole preview: nothing cut, nothing taken for binary.
    for (const cut of GEMINI_READ_FILE_CUTS) check(!result.includes(cut), `read_file added its own note: ${cut}`);
    return parsed.output ?? '';
  },
  mcpLimit: 32 * 1024 + 2000,
  failing: { limit: 32 * 1024 + 200, exitCode: /Exit Code: 3/ },
  auditTools: ['big/get_big', 'big/spill_grep', 'run_shell_command'],
  extra: {
    steps: () => [{ name: 'run_shell_command', args: { command: SHELL } }],
    spills: 1,
    check([shell = '']) {
      const text = gemini.shellText(shell);
      check(/\(Omitted \d+ bytes\. Full formatted result stored at: /.test(text) && Buffer.byteLength(text) <= 32 * 1024, `the 2 MB output reached the model as ${String(Buffer.byteLength(text))} bytes`);
      check(stored(text).includes(execFileSync('sh', ['-c', SHELL], { encoding: 'utf8', maxBuffer: 1 << 26 }).trimEnd()), 'the stored 2 MB output lacks the command output');
    },
  },
};

const CODEX = join(HOSTS_CACHE, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
/** Codex's config as a person writes it, with the big report server. */
export const CODEX_CONFIG = `# Codex configuration, as a person writes it
model = "gpt-5"
model_provider = "fake"   # the test's model server
approval_policy = "never"

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:1/v1" # replaced on the command line
env_key = "FAKE_OPENAI_KEY"
wire_api = "responses"

# the big report server
[mcp_servers.big]
command = "node"
args = [${JSON.stringify(BIG_MCP_SERVER)}]
`;

const codex: RealHostCase = {
  host: 'codex',
  prepare(dir) {
    mkdirSync(join(dir, 'codex'));
    mkdirSync(join(dir, 'project'));
    writeFileSync(join(dir, 'codex', 'config.toml'), CODEX_CONFIG);
    return {
      home: dir,
      cwd: join(dir, 'project'),
      setupArgs: ['--config-dir', join(dir, 'codex')],
      setupEnv: {},
      files: [join(dir, 'codex', 'config.toml')],
      written: [],
      ownText: '# the big report server',
      broken: { dir: join(dir, 'broken'), file: 'config.toml', text: '[mcp_servers.big\ncommand = "node"\n' },
      // Codex hands an MCP server only HOME, PATH and a few others: the proxy logs under HOME.
      statsEnv: {},
      audit: { args: ['--host', 'codex'], env: { CODEX_HOME: join(dir, 'codex') } },
    };
  },
  session: (dir, layout, steps) =>
    runHostSession({
      api: 'openai-responses',
      dir,
      cwd: layout.cwd,
      command: [process.execPath, CODEX, 'exec', '--skip-git-repo-check', '--json', '-c', 'model_providers.fake.base_url="http://127.0.0.1:{PORT}/v1"', 'Run the scripted tools.'],
      env: { PATH, HOME: dir, CODEX_HOME: join(dir, 'codex'), FAKE_OPENAI_KEY: 'sk-fake-key-for-tests' },
      steps,
    }),
  // Codex starts its MCP servers alongside the first turn: on a loaded machine a call can come too soon.
  before: (dir) => [waitForBigServer('exec_command', join(dir, 'big-ready'), 'cmd')],
  mcp: (tool, args) => ({ name: tool, namespace: 'mcp__big', args }),
  shell: (command) => ({ name: 'exec_command', args: { cmd: command } }),
  shellText: (result) => result,
  mcpLimit: 8 * 1024 + 200,
  auditTools: ['big/get_big', 'big/spill_grep', 'exec_command'],
};

const OPENCODE = join(HOSTS_CACHE, 'node_modules', 'opencode-linux-x64', 'bin', 'opencode');
const OPENCODE_CONFIG = `{
  // OpenCode configuration, as a person writes it
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Fake",
      "options": { "baseURL": "{env:FAKE_BASE_URL}", "apiKey": "fake-key-for-tests" },
      "models": { "fake-model": { "name": "Fake model", "tool_call": true } },
    },
  },
  "model": "fake/fake-model",
  "permission": { "bash": "allow" },
  "mcp": {
    "big": { "type": "local", "command": ["node", ${JSON.stringify(BIG_MCP_SERVER)}], "enabled": true },
  },
}
`;
const OPENCODE_CAP = 16 * 1024;

const opencode: RealHostCase = {
  host: 'opencode',
  skipReason: () => (spawnSync('rg', ['--version']).status !== 0 ? 'ripgrep (rg) is not on PATH, and OpenCode cannot download it offline: apt-get install ripgrep' : undefined),
  prepare(dir) {
    const home = join(dir, 'home');
    const config = join(home, '.config', 'opencode');
    mkdirSync(config, { recursive: true });
    mkdirSync(join(dir, 'project'));
    // For grep and glob: 100 files under long names, each with long matching lines. OpenCode's
    // grep and glob run ripgrep from PATH (they download it when it is missing, which fails
    // offline; .ci/run installs Debian's).
    const tree = join(dir, 'project', 'tree');
    for (let d = 0; d < 10; d++) {
      const sub = join(tree, `folder-${String(d)}-`.padEnd(200, 'f'));
      mkdirSync(sub, { recursive: true });
      for (let f = 0; f < 10; f++) {
        writeFileSync(join(sub, `${`file-${String(f)}-`.padEnd(200, 'g')}.txt`), Array.from({ length: 20 }, (_, i) => `line ${String(i)} NEEDLE in ${String(d)}/${String(f)} ${'z'.repeat(900)}`).join('\n'));
      }
    }
    writeFileSync(join(config, 'opencode.jsonc'), OPENCODE_CONFIG);
    // What OpenCode's first start online leaves in its config directory. Without it, every
    // start installs @opencode-ai/plugin there first, and offline that takes about 70 s of
    // retries before it gives up (on a loaded machine, past the session's time limit).
    mkdirSync(join(config, 'node_modules'));
    writeFileSync(join(config, 'package-lock.json'), `${JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } })}\n`);
    return {
      home,
      cwd: join(dir, 'project'),
      setupArgs: [],
      setupEnv: { XDG_CONFIG_HOME: join(home, '.config') },
      files: [join(config, 'opencode.jsonc')],
      written: [join(config, 'plugin', 'spillway.js')],
      ownText: '// OpenCode configuration, as a person writes it',
      broken: { dir: join(dir, 'broken'), file: 'opencode.json', text: '{ "mcp": { "big": ' },
      statsEnv: { XDG_STATE_HOME: join(home, '.local', 'state') },
      audit: { args: ['--host', 'opencode'], env: { XDG_DATA_HOME: join(home, '.local', 'share') } },
    };
  },
  session: (dir, layout, steps) =>
    runHostSession({
      api: 'openai-chat',
      dir,
      cwd: layout.cwd,
      command: [OPENCODE, 'run', '--format', 'json', 'Run the scripted tools.'],
      env: {
        PATH,
        HOME: layout.home,
        XDG_CONFIG_HOME: join(layout.home, '.config'),
        XDG_DATA_HOME: join(layout.home, '.local', 'share'),
        XDG_CACHE_HOME: join(layout.home, '.cache'),
        XDG_STATE_HOME: join(layout.home, '.local', 'state'),
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        FAKE_BASE_URL: 'http://127.0.0.1:{PORT}/v1',
      },
      steps,
      page: { body: Array.from({ length: 2000 }, (_, i) => `PAGE line ${String(i)} ${'p'.repeat(60)}`).join('\n') },
    }),
  before: () => [],
  mcp: (tool, args) => ({ name: `big_${tool}`, args }),
  shell: (command) => ({ name: 'bash', args: { command, description: 'run a command' } }),
  shellText: (result) => result,
  mcpLimit: OPENCODE_CAP,
  // OpenCode alone keeps the last 14 KB or so of a long output (the error is lost); spillway's plugin gives the preview.
  failing: { limit: OPENCODE_CAP + 200, exitCode: undefined },
  auditTools: ['bash', 'big/get_big', 'big/spill_grep', 'glob', 'grep', 'webfetch'],
  extra: {
    steps: (layout) => [
      { name: 'grep', args: { pattern: 'NEEDLE', path: join(layout.cwd, 'tree') } },
      { name: 'glob', args: { pattern: '**/*.txt', path: join(layout.cwd, 'tree') } },
      { name: 'webfetch', args: { url: 'http://127.0.0.1:{PAGE_PORT}/page.txt', format: 'text' } },
    ],
    spills: 3,
    // Each large output of a built-in tool reaches the model as the preview of what OpenCode would have shown.
    check(results) {
      for (const [i, tool, whole] of [[0, 'grep', 'NEEDLE in '], [1, 'glob', 'file-'], [2, 'webfetch', 'PAGE line 1999 ']] as const) {
        const shown = results[i] ?? '';
        check(/\(Omitted \d+ bytes\. Full formatted result stored at: /.test(shown), `${tool}: no notice in ${shown.slice(0, 300)}`);
        check(Buffer.byteLength(shown) <= OPENCODE_CAP + 200, `${tool}: ${String(Buffer.byteLength(shown))} bytes`);
        check(stored(shown).includes(whole), `${tool}: the stored output lacks ${whole}`);
        console.log(`opencode ${tool}: OpenCode's own output ${String(Buffer.byteLength(stored(shown)))} bytes, the model got ${String(Buffer.byteLength(shown))}`);
      }
    },
  },
};

/** The real hosts the table-driven test drives, one row each. */
export const REAL_HOST_CASES: readonly RealHostCase[] = [claudeCode, gemini, codex, opencode];
