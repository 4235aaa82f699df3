import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseToml } from '@decimalturn/toml-patch';
import jsonc from 'jsonc-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { HOST_IDS, setupHost, undoHost, undoRecordPath, unwrapCommand, type HostId, type SetupEnvironment } from './index.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-fixtures');
const COMMAND = { node: '/opt/node/bin/node', spillway: '/opt/spillway/bin/spillway.js' };

/** Where each fixture goes, relative to a fake home (`~`) or project (`.`). */
const LAYOUT: Record<HostId, readonly (readonly [string, string])[]> = {
  'claude-code': [
    ['claude-code/claude.json', '~/.claude.json'],
    ['claude-code/settings.json', '~/.claude/settings.json'],
    ['claude-code/mcp.json', './.mcp.json'],
  ],
  gemini: [['gemini/settings.json', '~/.gemini/settings.json']],
  codex: [['codex/config.toml', '~/.codex/config.toml']],
  opencode: [['opencode/opencode.jsonc', '~/.config/opencode/opencode.jsonc']],
  cursor: [
    ['cursor/mcp.json', '~/.cursor/mcp.json'],
    ['cursor/project-mcp.json', './.cursor/mcp.json'],
  ],
  vscode: [['vscode/mcp.json', './.vscode/mcp.json']],
};

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Layout {
  readonly env: SetupEnvironment;
  readonly files: string[];
}

function layout(host: HostId): Layout {
  const base = mkdtempSync(join(tmpdir(), `setup-${host}-`));
  made.push(base);
  const home = join(base, 'home');
  const cwd = join(base, 'project');
  mkdirSync(home);
  mkdirSync(cwd);
  const files: string[] = [];
  for (const [from, to] of LAYOUT[host]) {
    const target = to.startsWith('~/') ? join(home, to.slice(2)) : join(cwd, to.slice(2));
    mkdirSync(dirname(target), { recursive: true });
    cpSync(join(FIXTURES, from), target);
    files.push(target);
  }
  return { env: { home, cwd, env: {}, command: COMMAND }, files };
}

function snapshot(files: readonly string[]): (Buffer | undefined)[] {
  return files.map((f) => (existsSync(f) ? readFileSync(f) : undefined));
}

function comments(text: string): string[] {
  return text.split('\n').flatMap((line) => /(\/\/.*|\/\*.*\*\/|#.*)$/.exec(line)?.[0] ?? []).filter((c) => !c.includes('"'));
}

function parseFile(path: string): Record<string, unknown> {
  const text = readFileSync(path, 'utf8');
  return path.endsWith('.toml') ? (parseToml(text) as Record<string, unknown>) : (jsonc.parse(text) as Record<string, unknown>);
}

describe.each(HOST_IDS)('setup %s', (host) => {
  it('wraps every stdio server, keeps comments, env and other keys, and a second run changes nothing', () => {
    const { env, files } = layout(host);
    const before = snapshot(files);
    const report = setupHost(host, env);
    expect(report.files.filter((f) => f.status === 'refused')).toEqual([]);
    expect(report.files.some((f) => f.status === 'changed')).toBe(true);
    for (const [i, file] of files.entries()) {
      const text = readFileSync(file, 'utf8');
      expect(comments(text)).toEqual(comments(before[i]?.toString('utf8') ?? ''));
      expect(text.includes('\r\n')).toBe(before[i]?.includes('\r\n'));
      expect(text).not.toContain('"spillway mcp');
    }
    const after = snapshot(files);
    const again = setupHost(host, env);
    expect(again.files.every((f) => f.status !== 'changed')).toBe(true);
    expect(snapshot(files)).toEqual(after);
  });

  it('undo right after setup gives back the original bytes', () => {
    const { env, files } = layout(host);
    const before = snapshot(files);
    setupHost(host, env);
    const undone = undoHost(host, env);
    expect(undone.files.filter((f) => f.status === 'refused')).toEqual([]);
    expect(snapshot(files)).toEqual(before);
    for (const file of files) {
      expect(existsSync(undoRecordPath(env, file))).toBe(false);
      expect(existsSync(`${file}.spillway-undo.json`)).toBe(false);
    }
  });

  it('--dry-run shows the change and writes nothing', () => {
    const { env, files } = layout(host);
    const before = snapshot(files);
    const report = setupHost(host, env, { dryRun: true });
    const changed = report.files.filter((f) => f.status === 'changed');
    expect(changed.length).toBeGreaterThan(0);
    for (const file of changed) expect(file.diff).toMatch(/^\+ .*spillway/m);
    expect(snapshot(files)).toEqual(before);
    for (const file of files) {
      expect(existsSync(undoRecordPath(env, file))).toBe(false);
      expect(existsSync(`${file}.spillway-undo.json`)).toBe(false);
    }
  });

  it('refuses a config it cannot parse, naming the file and leaving it untouched', () => {
    const { env, files } = layout(host);
    const broken = files[0] ?? '';
    writeFileSync(broken, `${readFileSync(broken, 'utf8').slice(0, -20)}\n`);
    const before = snapshot(files);
    const report = setupHost(host, env);
    const entry = report.files.find((f) => f.path === broken);
    expect(entry?.status).toBe('refused');
    expect(entry?.code).toBe('CONFIG_REFUSED');
    expect(entry?.error).toContain(broken);
    expect(readFileSync(broken)).toEqual(before[0]);
    expect(existsSync(undoRecordPath(env, broken))).toBe(false);
  });

  it('--config-dir points at another location', () => {
    const { env, files } = layout(host);
    const user = files.find((f) => f.includes(`${join('home')}/`));
    if (user === undefined) return; // this host's sample config is project-scoped only
    const elsewhere = join(dirname(env.home), 'elsewhere');
    mkdirSync(elsewhere);
    const name = host === 'claude-code' ? '.claude.json' : user.split('/').at(-1) ?? '';
    cpSync(user, join(elsewhere, name));
    const before = readFileSync(user);
    const report = setupHost(host, { ...env, configDir: elsewhere });
    expect(report.files.find((f) => f.path === join(elsewhere, name))?.status).toBe('changed');
    expect(readFileSync(user)).toEqual(before);
  });
});

describe('what each host gets', () => {
  it('claude-code: user, per-project and .mcp.json servers wrapped with absolute paths; a Bash PostToolUse hook; remote servers left', () => {
    const { env, files } = layout('claude-code');
    const report = setupHost('claude-code', env);
    expect(report.cap).toBe(24 * 1024);
    const main = parseFile(files[0] ?? '') as { mcpServers: Record<string, Record<string, unknown>>; projects: Record<string, { mcpServers: Record<string, Record<string, unknown>> }> };
    expect(main.mcpServers.files).toEqual({
      type: 'stdio',
      command: COMMAND.node,
      args: [COMMAND.spillway, 'mcp', '--max-inline-bytes', '24576', '--host', 'claude-code', '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '/home/alice/src'],
      env: { NODE_OPTIONS: '--max-old-space-size=2048' },
    });
    expect(main.mcpServers.docs).toEqual({ type: 'http', url: 'https://mcp.example.com/mcp' });
    expect(main.projects['/home/alice/src/app']?.mcpServers.memory?.command).toBe(COMMAND.node);
    const settings = parseFile(files[1] ?? '') as { hooks: Record<string, { matcher: string; hooks: { command: string }[] }[]> };
    expect(settings.hooks.PreToolUse).toHaveLength(1);
    expect(settings.hooks.PostToolUse).toEqual([
      { matcher: 'Bash|Grep|Glob|WebFetch|WebSearch|Agent', hooks: [{ type: 'command', command: `${COMMAND.node} ${COMMAND.spillway} hook claude-code --max-inline-bytes 24576` }] },
    ]);
    const project = parseFile(files[2] ?? '') as { mcpServers: Record<string, { command: string; args: string[] }> };
    expect(unwrapCommand(project.mcpServers.fetch ?? { command: '', args: [] })).toEqual({ command: 'uvx', args: [] });
  });

  it('claude-code: every Bash command runs through spillway: the settings name a script of its own, and undo takes the setting out', () => {
    const { env, files } = layout('claude-code');
    const report = setupHost('claude-code', env);
    const settings = () => parseFile(files[1] ?? '') as { env?: Record<string, string> };
    const script = settings().env?.CLAUDE_CODE_SHELL_PREFIX ?? '';
    expect(script).toBe(join(env.home, '.local', 'state', 'spillway', 'bin', `claude-code-shell-${String(report.cap)}`));
    expect(statSync(script).mode & 0o777).toBe(0o755);
    const text = readFileSync(script, 'utf8');
    expect(text).toContain(`${COMMAND.node} ${COMMAND.spillway} run --live --max-inline-bytes ${String(report.cap)} --max-inline-bytes-on-failure ${String(Math.min(report.cap, 9000))}`);
    expect(report.files.find((f) => f.path === files[1])?.changes.some((c) => c.startsWith('set env.CLAUDE_CODE_SHELL_PREFIX'))).toBe(true);
    // Again: nothing to do. After the host rewrote the file, undo removes the setting and the `env` it created.
    expect(setupHost('claude-code', env).files.find((f) => f.path === files[1])?.status).toBe('unchanged');
    writeFileSync(files[1] ?? '', `${readFileSync(files[1] ?? '', 'utf8').trimEnd()}\n\n`);
    undoHost('claude-code', env);
    expect(settings().env).toBeUndefined();
  });

  it('claude-code: a rerun with another cap points the setting at that cap; another tool’s prefix is left alone, and said', () => {
    const { env, files } = layout('claude-code');
    setupHost('claude-code', env);
    setupHost('claude-code', { ...env, maxInlineBytes: 4096 });
    const prefix = (parseFile(files[1] ?? '') as { env: Record<string, string> }).env.CLAUDE_CODE_SHELL_PREFIX ?? '';
    expect(prefix.endsWith('claude-code-shell-4096')).toBe(true);
    expect(readFileSync(prefix, 'utf8')).toContain('--max-inline-bytes 4096 --max-inline-bytes-on-failure 4096');

    const other = layout('claude-code');
    const settingsFile = other.files[1] ?? '';
    const value = jsonc.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(settingsFile, `${JSON.stringify({ ...value, env: { CLAUDE_CODE_SHELL_PREFIX: '/usr/local/bin/audit-log' } }, null, 2)}\n`);
    const report = setupHost('claude-code', other.env);
    expect(report.files.find((f) => f.path === settingsFile)?.changes.some((c) => c.includes('CLAUDE_CODE_SHELL_PREFIX as it is') && c.includes('/usr/local/bin/audit-log'))).toBe(true);
    undoHost('claude-code', other.env);
    expect((parseFile(settingsFile) as { env: Record<string, string> }).env.CLAUDE_CODE_SHELL_PREFIX).toBe('/usr/local/bin/audit-log');
  });

  it('claude-code: warns that a settings.json with comments is ignored by Claude Code (checked against 2.1.328)', () => {
    const { env, files } = layout('claude-code');
    const report = setupHost('claude-code', env);
    expect(report.files.find((f) => f.path === files[1])?.changes.some((c) => c.startsWith('warning: Claude Code reads this file as strict JSON'))).toBe(true);
    expect(report.files.find((f) => f.path === files[0])?.changes.some((c) => c.startsWith('warning:'))).toBe(false);
  });

  it('gemini: an AfterTool hook in settings.json; codex: 8 KiB under its 10 KiB cut; opencode: the command array', () => {
    const g = layout('gemini');
    setupHost('gemini', g.env);
    const gs = parseFile(g.files[0] ?? '') as { hooks: { AfterTool: { matcher: string }[] }; mcpServers: Record<string, Record<string, unknown>> };
    expect(gs.hooks.AfterTool[0]?.matcher).toBe('run_shell_command|web_fetch|google_web_search');
    expect(gs.mcpServers.files?.trust).toBe(true);
    expect(gs.mcpServers.remote).toEqual({ httpUrl: 'https://mcp.example.com/mcp' });

    const c = layout('codex');
    const report = setupHost('codex', c.env);
    expect(report.cap).toBe(8192);
    expect(report.capReason).toMatch(/10 KiB/);
    const cs = parseFile(c.files[0] ?? '') as { mcp_servers: Record<string, Record<string, unknown>> };
    expect(cs.mcp_servers.files?.args).toEqual([COMMAND.spillway, 'mcp', '--max-inline-bytes', '8192', '--host', 'codex', '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '/srv/data']);
    expect(cs.mcp_servers.files?.startup_timeout_sec).toBe(20);
    expect(cs.mcp_servers.linear).toEqual({ url: 'https://mcp.linear.app/mcp' });

    const o = layout('opencode');
    setupHost('opencode', o.env);
    const os = parseFile(o.files[0] ?? '') as { mcp: Record<string, Record<string, unknown>> };
    expect(os.mcp.files?.command).toEqual([COMMAND.node, COMMAND.spillway, 'mcp', '--max-inline-bytes', '16384', '--host', 'opencode', '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '/srv/data']);
    expect(os.mcp.files?.environment).toEqual({ DEBUG: '0' });
    expect(os.mcp.sentry).toEqual({ type: 'remote', url: 'https://mcp.sentry.dev/mcp' });
  });

  it('after the host rewrote its config, undo keeps the host’s edits and removes only spillway’s', () => {
    const { env, files } = layout('gemini');
    setupHost('gemini', env);
    const file = files[0] ?? '';
    // The host renames a key and adds its own, as Gemini CLI does during a session.
    const rewritten = readFileSync(file, 'utf8').replace('"disableAutoUpdate": true', '"enableAutoUpdate": false').replace('"general": {', '"ui": { "theme": "GitHub" },\n  "general": {');
    writeFileSync(file, rewritten);
    const report = undoHost('gemini', env);
    expect(report.files[0]?.status).toBe('removed');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"enableAutoUpdate": false');
    expect(text).toContain('"theme": "GitHub"');
    expect(text).toContain('// no confirmation prompts');
    expect(text).not.toContain('spillway');
    const value = parseFile(file) as { mcpServers: Record<string, Record<string, unknown>>; hooks?: unknown };
    expect(value.mcpServers.files?.command).toBe('npx');
    expect(value.mcpServers.files?.args).toEqual(['-y', '@modelcontextprotocol/server-filesystem', '/srv/data']);
    expect(value.hooks).toBeUndefined();
  });

  it('an altered undo record that leaves a wrapper is refused, naming what is left and how to remove it', () => {
    const { env, files } = layout('gemini');
    setupHost('gemini', env);
    const file = files[0] ?? '';
    writeFileSync(file, readFileSync(file, 'utf8').replace('"general": {', '"ui": { "theme": "GitHub" },\n  "general": {'));
    // The record lost its servers (altered or cut short, still valid JSON, still 0600).
    const recordPath = undoRecordPath(env, file);
    const record = JSON.parse(readFileSync(recordPath, 'utf8')) as { servers: unknown[] };
    record.servers = [];
    writeFileSync(recordPath, JSON.stringify(record), { mode: 0o600 });
    const before = readFileSync(file);
    const entry = undoHost('gemini', env).files[0];
    expect(entry?.status).toBe('refused');
    expect(entry?.error).toContain('files');
    expect(entry?.error).toContain(file);
    expect(entry?.error).toContain('npx -y @modelcontextprotocol/server-filesystem /srv/data');
    expect(readFileSync(file)).toEqual(before);
  });

  it('an altered undo record that leaves the hook is refused, naming the hook', () => {
    const { env, files } = layout('gemini');
    setupHost('gemini', env);
    const file = files[0] ?? '';
    writeFileSync(file, readFileSync(file, 'utf8').replace('"general": {', '"ui": { "theme": "GitHub" },\n  "general": {'));
    const recordPath = undoRecordPath(env, file);
    const record = JSON.parse(readFileSync(recordPath, 'utf8')) as { hooks: unknown[] };
    expect(record.hooks.length).toBeGreaterThan(0);
    record.hooks = [];
    writeFileSync(recordPath, JSON.stringify(record), { mode: 0o600 });
    const before = readFileSync(file);
    const entry = undoHost('gemini', env).files[0];
    expect(entry?.status).toBe('refused');
    expect(entry?.code).toBe('CONFIG_REFUSED');
    expect(entry?.error).toContain('hook');
    expect(readFileSync(file)).toEqual(before);
  });

  it('after a rewrite, undo restores a server that had no args without adding one, and keeps a person’s own hooks', () => {
    const { env, files } = layout('claude-code');
    setupHost('claude-code', env);
    for (const file of files) writeFileSync(file, `${readFileSync(file, 'utf8').trimEnd()}\n\n`);
    undoHost('claude-code', env);
    const project = parseFile(files[2] ?? '') as { mcpServers: Record<string, Record<string, unknown>> };
    expect(project.mcpServers.fetch).toEqual({ command: 'uvx' });
    const settings = parseFile(files[1] ?? '') as { hooks: Record<string, unknown> };
    expect(Object.keys(settings.hooks)).toEqual(['PreToolUse']);
  });

  it('creates a hook file only where the host keeps its config, and undo removes it', () => {
    const { env } = layout('gemini');
    rmSync(join(env.home, '.gemini'), { recursive: true });
    expect(setupHost('gemini', env).files[0]?.status).toBe('missing');
    mkdirSync(join(env.home, '.gemini'));
    const settings = join(env.home, '.gemini', 'settings.json');
    expect(setupHost('gemini', env).files[0]?.status).toBe('changed');
    expect(statSync(settings).mode & 0o077).toBe(0);
    expect(undoHost('gemini', env).files[0]?.status).toBe('restored');
    expect(existsSync(settings)).toBe(false);
  });

  it('writes through a symlinked config to its target', () => {
    const { env, files } = layout('cursor');
    const file = files[0] ?? '';
    const real = join(dirname(env.home), 'dotfiles-mcp.json');
    cpSync(file, real);
    rmSync(file);
    symlinkSync(real, file);
    const before = readFileSync(real);
    setupHost('cursor', env);
    expect(readFileSync(real, 'utf8')).toContain('spillway');
    undoHost('cursor', env);
    expect(readFileSync(real)).toEqual(before);
  });

  it('a server already wrapped by hand is left as it is', () => {
    const { env, files } = layout('cursor');
    writeFileSync(files[0] ?? '', '{ "mcpServers": { "x": { "command": "spillway", "args": ["mcp", "--", "npx", "srv"] } } }\n');
    expect(setupHost('cursor', env).files[0]?.status).toBe('unchanged');
  });

  it('--max-inline-bytes overrides the host cap', () => {
    const { env, files } = layout('codex');
    const report = setupHost('codex', { ...env, maxInlineBytes: 4096 });
    expect(report.cap).toBe(4096);
    expect(readFileSync(files[0] ?? '', 'utf8')).toContain('"4096"');
  });
});
