import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { diagnoseHost, HOST_IDS, setupHost, type SetupEnvironment } from './index.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function world(): { env: SetupEnvironment; base: string; bin: string } {
  const base = mkdtempSync(join(tmpdir(), 'diagnose-'));
  made.push(base);
  const home = join(base, 'home');
  const cwd = join(base, 'project');
  const bin = join(base, 'bin');
  for (const d of [home, cwd, bin]) mkdirSync(d);
  const script = join(base, 'spillway.js');
  writeFileSync(script, '');
  return { base, bin, env: { home, cwd, env: { PATH: bin }, command: { node: process.execPath, spillway: script }, stateDir: join(base, 'state') } };
}

function put(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe('diagnoseHost', () => {
  it('a host with no config is not found and not uncovered', () => {
    const { env } = world();
    for (const host of HOST_IDS) {
      const d = diagnoseHost(host, env);
      expect(d.found, host).toBe(false);
      expect(d.uncovered, host).toBe(false);
      expect(d.files.every((f) => f.status === 'missing'), host).toBe(true);
    }
  });

  it('before and after setup: servers, the hook, caps, and a server added since', () => {
    const { env } = world();
    const main = put(join(env.home, '.claude.json'), JSON.stringify({ mcpServers: { git: { command: 'uvx', args: ['mcp-server-git'] }, remote: { type: 'http', url: 'https://mcp.example.com/mcp' } } }));
    put(join(env.home, '.claude', 'settings.json'), JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'prettier --write' }] }] } }));
    const before = diagnoseHost('claude-code', env);
    expect(before.found).toBe(true);
    expect(before.uncovered).toBe(true);
    expect(before.servers.map((s) => [s.name, s.status, s.transport, s.code])).toEqual([
      ['git', 'not-covered', 'stdio', 'SERVER_NOT_COVERED'],
      ['remote', 'not-covered', 'remote', 'REMOTE_NOT_COVERED'],
    ]);
    expect(before.hooks).toMatchObject([{ event: 'PostToolUse', tools: ['Bash', 'Grep', 'Glob', 'WebFetch', 'WebSearch', 'Agent'], status: 'not-covered', code: 'HOOK_MISSING' }]);
    expect(before.foreignHooks).toEqual([{ file: join(env.home, '.claude', 'settings.json'), event: 'PostToolUse', matcher: 'Edit', command: 'prettier --write', code: 'FOREIGN_HOOK' }]);

    setupHost('claude-code', env);
    const after = diagnoseHost('claude-code', env);
    expect(after.servers.find((s) => s.name === 'git')).toMatchObject({ status: 'covered', cap: 24576, form: 'script' });
    expect(after.hooks).toMatchObject([{ status: 'covered', cap: 24576 }]);
    // spillway's own hook is not another tool's.
    expect(after.foreignHooks.map((h) => h.command)).toEqual(['prettier --write']);
    // Only the remote server is left.
    expect(after.uncovered).toBe(true);
    const value = JSON.parse(readFileSync(main, 'utf8')) as { mcpServers: Record<string, unknown> };
    delete value.mcpServers.remote;
    value.mcpServers.later = { command: 'npx', args: ['-y', 'srv'] };
    writeFileSync(main, JSON.stringify(value));
    const later = diagnoseHost('claude-code', env);
    expect(later.servers.find((s) => s.name === 'later')?.code).toBe('SERVER_NOT_COVERED');
    setupHost('claude-code', env);
    expect(diagnoseHost('claude-code', env).uncovered).toBe(false);
  });

  it("the tools spillway's hook covers, by its matcher as the host evaluates it: an earlier setup's is outdated, a person's narrower one is reported as it is", () => {
    const { env } = world();
    const settings = put(join(env.home, '.claude', 'settings.json'), '{}');
    setupHost('claude-code', env);
    const withMatcher = (matcher: string | undefined): ReturnType<typeof diagnoseHost>['hooks'][number] | undefined => {
      const value = JSON.parse(readFileSync(settings, 'utf8')) as { hooks: { PostToolUse: Record<string, unknown>[] } };
      const group = value.hooks.PostToolUse[0] ?? {};
      if (matcher === undefined) delete group.matcher;
      else group.matcher = matcher;
      writeFileSync(settings, JSON.stringify(value));
      return diagnoseHost('claude-code', env).hooks[0];
    };
    const all = ['Bash', 'Grep', 'Glob', 'WebFetch', 'WebSearch', 'Agent'];
    expect(withMatcher('Bash|Grep|Glob|WebFetch|WebSearch|Agent')).toMatchObject({ status: 'covered', tools: all, leftOut: [], code: undefined });
    const outdated = withMatcher('Bash');
    expect(outdated).toMatchObject({ status: 'covered', tools: ['Bash'], leftOut: ['Grep', 'Glob', 'WebFetch', 'WebSearch', 'Agent'], code: 'HOOK_OUTDATED' });
    expect(diagnoseHost('claude-code', env).uncovered).toBe(true);
    const narrower = withMatcher('Bash|Grep');
    expect(narrower).toMatchObject({ status: 'covered', tools: ['Bash', 'Grep'], leftOut: ['Glob', 'WebFetch', 'WebSearch', 'Agent'], code: undefined });
    expect(narrower?.detail).toContain('leaves out Glob, WebFetch, WebSearch, Agent');
    // Anything else is a regular expression, found anywhere in the name; none, "" and "*" run on every tool; an invalid one on none.
    expect(withMatcher('^(Bash|Web.*)$')?.tools).toEqual(['Bash', 'WebFetch', 'WebSearch']);
    expect(withMatcher('G.o')?.tools).toEqual(['Glob']);
    // Names and "|" only are exact names.
    expect(withMatcher('Bash|G')?.tools).toEqual(['Bash']);
    for (const every of [undefined, '', '*']) expect(withMatcher(every)?.tools).toEqual(all);
    expect(withMatcher('(')?.tools).toEqual([]);
  });

  it("Claude Code's CLAUDE_CODE_SHELL_PREFIX: missing, covered, its script gone, another tool's", () => {
    const { env } = world();
    const settings = put(join(env.home, '.claude', 'settings.json'), '{}');
    const setting = (): ReturnType<typeof diagnoseHost>['settings'][number] | undefined => diagnoseHost('claude-code', env).settings[0];
    expect(setting()).toMatchObject({ name: 'env.CLAUDE_CODE_SHELL_PREFIX', status: 'not-covered', code: 'SETTING_MISSING' });
    setupHost('claude-code', env);
    const covered = setting();
    expect(covered).toMatchObject({ status: 'covered', code: undefined });
    expect(diagnoseHost('claude-code', env).uncovered).toBe(false);
    rmSync(covered?.value ?? '');
    expect(setting()).toMatchObject({ status: 'broken', code: 'SETTING_BROKEN' });
    expect(diagnoseHost('claude-code', env).uncovered).toBe(true);
    setupHost('claude-code', env);
    expect(setting()?.status).toBe('covered');
    writeFileSync(settings, JSON.stringify({ env: { CLAUDE_CODE_SHELL_PREFIX: '/usr/local/bin/audit-shell' } }));
    expect(setting()).toMatchObject({ status: 'not-covered', value: '/usr/local/bin/audit-shell', code: 'SETTING_NOT_OURS' });
  });

  it("reads a project's own Claude Code settings for other tools' hooks", () => {
    const { env } = world();
    put(join(env.home, '.claude.json'), '{}');
    const local = put(join(env.cwd, '.claude', 'settings.local.json'), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'rtk rewrite' }] }] } }));
    const d = diagnoseHost('claude-code', env);
    expect(d.files.map((f) => [f.path.slice(env.cwd.length), f.status]).filter(([p]) => p?.startsWith('/.claude/') === true)).toEqual([
      ['/.claude/settings.json', 'missing'],
      ['/.claude/settings.local.json', 'read'],
    ]);
    expect(d.foreignHooks).toEqual([{ file: local, event: 'PreToolUse', matcher: undefined, command: 'rtk rewrite', code: 'FOREIGN_HOOK' }]);
    // No ~/.claude yet: setup would not make the hook file, so no hook is missing.
    expect(d.hooks[0]).toMatchObject({ status: 'not-covered', code: undefined });
    expect(d.hooks[0]?.detail).toContain('does not exist');
    expect(d.uncovered).toBe(false);
    // setup never writes there.
    setupHost('claude-code', env);
    expect(readFileSync(local, 'utf8')).not.toContain('spillway');
  });

  it('a wrapper or hook whose node or spillway is gone, or not on PATH, is broken', () => {
    const { env, base, bin } = world();
    const gone = { ...env, command: { node: join(base, 'gone', 'node'), spillway: join(base, 'gone', 'spillway.js') } };
    put(join(env.home, '.gemini', 'settings.json'), JSON.stringify({ mcpServers: { a: { command: 'uvx', args: ['a'] }, b: { command: 'spillway', args: ['mcp', '--', 'uvx', 'b'] } } }));
    setupHost('gemini', gone);
    const d = diagnoseHost('gemini', env);
    expect(d.servers.map((s) => [s.name, s.status, s.detail])).toEqual([
      ['a', 'broken', `${join(base, 'gone', 'node')} no longer exists`],
      ['b', 'broken', 'spillway is not on PATH'],
    ]);
    expect(d.hooks[0]).toMatchObject({ status: 'broken', code: 'HOOK_BROKEN' });
    const onPath = join(bin, 'spillway');
    writeFileSync(onPath, '#!/bin/sh\n');
    chmodSync(onPath, 0o755);
    expect(diagnoseHost('gemini', env).servers[1]?.status).toBe('covered');
    setupHost('gemini', env);
    expect(diagnoseHost('gemini', env).uncovered).toBe(false);
  });

  it('hides --header values in the command lines it reports', () => {
    const { env, bin } = world();
    writeFileSync(join(bin, 'spillway'), '');
    chmodSync(join(bin, 'spillway'), 0o755);
    const args = ['mcp', '--url', 'https://mcp.example.com/mcp', '--header', 'Authorization: Bearer s3cret', '--header=X-Key:k3y'];
    put(join(env.home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { r: { command: 'spillway', args } } }));
    const server = diagnoseHost('cursor', env).servers[0];
    expect(server).toMatchObject({ status: 'covered', transport: 'remote' });
    expect(server?.command).toBe('spillway mcp --url https://mcp.example.com/mcp --header "Authorization: …" "--header=X-Key: …"');
  });

  it('a config it cannot read is refused and counts as not covered', () => {
    const { env } = world();
    const file = put(join(env.home, '.codex', 'config.toml'), '[mcp_servers.x\ncommand = ');
    const d = diagnoseHost('codex', { ...env, configDir: join(env.home, '.codex') });
    expect(d.files[0]).toMatchObject({ path: file, status: 'refused', readOnly: false });
    expect(d.files[0]?.error).toContain(file);
    expect(d.uncovered).toBe(true);
  });

  it('marks a read-only config, which setup would refuse', () => {
    const { env } = world();
    const file = put(join(env.home, '.codex', 'config.toml'), '[mcp_servers.y]\ncommand = "uvx"\n');
    chmodSync(file, 0o444);
    expect(diagnoseHost('codex', env).files[0]).toMatchObject({ status: 'read', readOnly: true });
    chmodSync(file, 0o644);
    expect(diagnoseHost('codex', env).files[0]).toMatchObject({ status: 'read', readOnly: false });
  });

  it('reads OpenCode command arrays, Codex tables and VS Code servers', () => {
    const { env } = world();
    put(join(env.home, '.config', 'opencode', 'opencode.json'), JSON.stringify({ mcp: { x: { type: 'local', command: ['uvx', 'x'] }, r: { type: 'remote', url: 'https://r' } } }));
    put(join(env.home, '.codex', 'config.toml'), '[mcp_servers.y]\ncommand = "uvx"\n');
    put(join(env.cwd, '.vscode', 'mcp.json'), JSON.stringify({ servers: { z: { type: 'stdio', command: 'uvx' } } }));
    expect(diagnoseHost('opencode', env).servers.map((s) => [s.name, s.transport, s.status])).toEqual([
      ['x', 'stdio', 'not-covered'],
      ['r', 'remote', 'not-covered'],
    ]);
    expect(diagnoseHost('codex', env).servers.map((s) => s.name)).toEqual(['y']);
    expect(diagnoseHost('vscode', env).servers.map((s) => s.name)).toEqual(['z']);
    for (const host of ['opencode', 'codex', 'vscode'] as const) setupHost(host, env);
    expect(diagnoseHost('codex', env).uncovered).toBe(false);
    expect(diagnoseHost('vscode', env).uncovered).toBe(false);
    expect(diagnoseHost('opencode', env).servers.map((s) => s.status)).toEqual(['covered', 'not-covered']);
  });

  it('property: after setup, every stdio server is covered with the cap written, and only remote ones are not', () => {
    const name = fc.string({ minLength: 1, maxLength: 8 }).filter((n) => n !== '__proto__');
    const entry = fc.oneof(
      fc.record({ command: fc.constantFrom('npx', 'uvx', '/usr/bin/python3'), args: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }) }),
      fc.record({ url: fc.constant('https://mcp.example.com/mcp') }),
    );
    fc.assert(
      fc.property(fc.dictionary(name, entry, { minKeys: 1, maxKeys: 5 }), fc.integer({ min: 1, max: 1e6 }), (servers, cap) => {
        const { env } = world();
        put(join(env.home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: servers }));
        const remote = Object.entries(servers).filter(([, e]) => 'url' in e).map(([n]) => n).sort();
        const before = diagnoseHost('cursor', env);
        expect(before.servers.filter((s) => s.status === 'covered')).toEqual([]);
        setupHost('cursor', { ...env, maxInlineBytes: cap });
        const after = diagnoseHost('cursor', env);
        expect(after.servers.filter((s) => s.status !== 'covered').map((s) => s.name).sort()).toEqual(remote);
        for (const s of after.servers.filter((x) => x.status === 'covered')) expect(s.cap).toBe(cap);
        expect(after.uncovered).toBe(remote.length > 0);
      }),
      { numRuns: 30 },
    );
  });
});
