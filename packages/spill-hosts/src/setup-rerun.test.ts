import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml } from '@decimalturn/toml-patch';
import fc from 'fast-check';
import jsonc from 'jsonc-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { parseWrapper, setupHost, undoHost, type SetupEnvironment } from './index.js';

// A second setup brings what the first wrote up to date; undo still gives back the bytes
// from before the first one.

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface World {
  readonly env: SetupEnvironment;
  readonly base: string;
  /** A spillway script that exists. */
  readonly script: string;
}

function world(): World {
  const base = mkdtempSync(join(tmpdir(), 'setup-rerun-'));
  made.push(base);
  const home = join(base, 'home');
  const cwd = join(base, 'project');
  mkdirSync(home);
  mkdirSync(cwd);
  const script = join(base, 'install', 'bin', 'spillway.js');
  mkdirSync(join(base, 'install', 'bin'), { recursive: true });
  writeFileSync(script, '');
  return { base, script, env: { home, cwd, env: {}, command: { node: process.execPath, spillway: script }, stateDir: join(base, 'state') } };
}

const CODEX = `# servers
[mcp_servers.files]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/srv"] # the data
`;

const SETTINGS = `{
  // mine
  "hooks": {
    "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "~/bin/audit" }] }]
  }
}
`;

function codexFile(w: World, text = CODEX): string {
  const file = join(w.env.home, '.codex', 'config.toml');
  mkdirSync(join(w.env.home, '.codex'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

type Servers = Record<string, { command: string; args?: string[] }>;

function codexServers(file: string): Servers {
  return (parseToml(readFileSync(file, 'utf8')) as { mcp_servers: Servers }).mcp_servers;
}

function wrapperOf(entry: { command: string; args?: string[] } | undefined): ReturnType<typeof parseWrapper> {
  return entry === undefined ? undefined : parseWrapper({ command: entry.command, args: entry.args ?? [] });
}

describe('setup run again', () => {
  it('wraps a server added after setup, once', () => {
    const w = world();
    const file = codexFile(w);
    setupHost('codex', w.env);
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n[mcp_servers.later]\ncommand = "uvx"\nargs = ["mcp-server-fetch"]\n`);
    const report = setupHost('codex', w.env);
    expect(report.files[0]?.status).toBe('changed');
    expect(report.files[0]?.changes.join('\n')).toContain('wrapped later');
    const servers = codexServers(file);
    expect(wrapperOf(servers.later)?.server).toEqual({ command: 'uvx', args: ['mcp-server-fetch'] });
    expect(wrapperOf(servers.files)?.server?.command).toBe('npx');
    expect(setupHost('codex', w.env).files[0]?.status).toBe('unchanged');
    // Undo keeps the server the person added, unwrapped.
    undoHost('codex', w.env);
    expect(codexServers(file).later).toEqual({ command: 'uvx', args: ['mcp-server-fetch'] });
    expect(readFileSync(file, 'utf8')).not.toContain('spillway');
  });

  it('wraps a server added by an editor that saves by renaming (a new file), and undo still works', () => {
    const w = world();
    const file = codexFile(w);
    setupHost('codex', w.env);
    const inode = statSync(file).ino;
    const temp = `${file}.swp`;
    writeFileSync(temp, `${readFileSync(file, 'utf8')}\n[mcp_servers.later]\ncommand = "uvx"\n`);
    renameSync(temp, file);
    expect(statSync(file).ino).not.toBe(inode);
    const report = setupHost('codex', w.env);
    expect(report.files[0]?.status).toBe('changed');
    expect(wrapperOf(codexServers(file).later)?.server).toEqual({ command: 'uvx', args: [] });
    const undone = undoHost('codex', w.env);
    expect(undone.files[0]?.status).toBe('removed');
    expect(readFileSync(file, 'utf8')).not.toContain('spillway');
    expect(codexServers(file)).toEqual({ files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'] }, later: { command: 'uvx' } });
  });

  it('a new --max-inline-bytes rewrites the cap of every wrapper and of the hook; undo restores the bytes from before the first setup', () => {
    const w = world();
    const file = codexFile(w);
    const settings = join(w.env.home, '.claude', 'settings.json');
    mkdirSync(join(w.env.home, '.claude'));
    writeFileSync(settings, SETTINGS);
    const mcp = join(w.env.home, '.claude.json');
    writeFileSync(mcp, '{ "mcpServers": { "git": { "command": "uvx", "args": ["mcp-server-git"] } } }\n');
    const before = [readFileSync(file), readFileSync(settings), readFileSync(mcp)];
    setupHost('codex', w.env);
    setupHost('claude-code', w.env);
    const again = setupHost('codex', { ...w.env, maxInlineBytes: 4096 });
    expect(again.files[0]?.status).toBe('changed');
    expect(again.files[0]?.changes.join('\n')).toContain('cap 8192 -> 4096');
    expect(wrapperOf(codexServers(file).files)?.cap).toBe(4096);
    expect(readFileSync(file, 'utf8')).toContain('# the data');
    const claude = setupHost('claude-code', { ...w.env, maxInlineBytes: 12000 });
    expect(claude.files.map((f) => f.status)).toEqual(['changed', 'changed', 'missing']);
    const hooks = (jsonc.parse(readFileSync(settings, 'utf8')) as { hooks: { PostToolUse: { hooks: { command: string }[] }[] } }).hooks.PostToolUse;
    expect(hooks).toHaveLength(1);
    expect(hooks[0]?.hooks[0]?.command).toMatch(/hook claude-code --max-inline-bytes 12000$/);
    // The same cap again changes nothing.
    expect(setupHost('claude-code', { ...w.env, maxInlineBytes: 12000 }).files.every((f) => f.status !== 'changed')).toBe(true);
    undoHost('codex', w.env);
    undoHost('claude-code', w.env);
    expect([readFileSync(file), readFileSync(settings), readFileSync(mcp)]).toEqual(before);
  });

  it("grows the Claude Code hook's matcher an earlier setup wrote (Bash) to today's tools, in place; a matcher a person chose stays; undo gives the bytes back", () => {
    const w = world();
    const settings = join(w.env.home, '.claude', 'settings.json');
    mkdirSync(join(w.env.home, '.claude'));
    writeFileSync(settings, SETTINGS);
    const before = readFileSync(settings);
    setupHost('claude-code', w.env);
    const group = (): { matcher: string; hooks: { command: string }[] }[] =>
      (jsonc.parse(readFileSync(settings, 'utf8')) as { hooks: { PostToolUse: { matcher: string; hooks: { command: string }[] }[] } }).hooks.PostToolUse;
    expect(group()[0]?.matcher).toBe('Bash|Grep|Glob|WebFetch|WebSearch|Agent');
    // What an earlier version of setup wrote.
    writeFileSync(settings, readFileSync(settings, 'utf8').replace('"Bash|Grep|Glob|WebFetch|WebSearch|Agent"', '"Bash"'));
    expect(group()[0]?.matcher).toBe('Bash');
    const again = setupHost('claude-code', w.env);
    expect(again.files[1]?.changes.join('\n')).toContain("updated the PostToolUse hook's matcher from Bash to Bash|Grep|Glob|WebFetch|WebSearch|Agent");
    expect(group()).toHaveLength(1);
    expect(group()[0]?.matcher).toBe('Bash|Grep|Glob|WebFetch|WebSearch|Agent');
    expect(readFileSync(settings, 'utf8')).toContain('// mine');
    expect(setupHost('claude-code', w.env).files[1]?.status).toBe('unchanged');
    // A matcher of the person's own is theirs.
    writeFileSync(settings, readFileSync(settings, 'utf8').replace('"Bash|Grep|Glob|WebFetch|WebSearch|Agent"', '"Bash|Grep"'));
    expect(setupHost('claude-code', w.env).files[1]?.status).toBe('unchanged');
    expect(group()[0]?.matcher).toBe('Bash|Grep');
    undoHost('claude-code', w.env);
    expect(readFileSync(settings, 'utf8')).not.toContain('spillway');
    expect(readFileSync(settings, 'utf8')).toContain('~/bin/audit');
    // An earlier setup's file and record (its digest is of what it wrote): after the upgrade,
    // undo gives back the bytes from before the first setup.
    writeFileSync(settings, before);
    setupHost('claude-code', w.env);
    writeFileSync(settings, readFileSync(settings, 'utf8').replace('"Bash|Grep|Glob|WebFetch|WebSearch|Agent"', '"Bash"'));
    const records = join(w.env.stateDir ?? '', 'setup-undo');
    let rewritten = 0;
    for (const name of readdirSync(records).filter((n) => n.endsWith('.json'))) {
      const rec = JSON.parse(readFileSync(join(records, name), 'utf8')) as { configPath: string; after: string };
      if (rec.configPath !== settings) continue;
      rec.after = createHash('sha256').update(readFileSync(settings)).digest('hex');
      writeFileSync(join(records, name), JSON.stringify(rec));
      rewritten++;
    }
    expect(rewritten).toBe(1);
    expect(setupHost('claude-code', w.env).files[1]?.status).toBe('changed');
    expect(group()[0]?.matcher).toBe('Bash|Grep|Glob|WebFetch|WebSearch|Agent');
    undoHost('claude-code', w.env);
    expect(readFileSync(settings)).toEqual(before);
  });

  describe("an earlier setup's Bash group that the person's own hooks share", () => {
    const WIDE = 'Bash|Grep|Glob|WebFetch|WebSearch|Agent';
    interface Group { matcher: string; hooks: { command: string }[] }
    const groups = (settings: string): Group[] => (jsonc.parse(readFileSync(settings, 'utf8')) as { hooks: { PostToolUse: Group[] } }).hooks.PostToolUse;
    /** Setup, then the file as an earlier setup left it (`Bash`), with `edit` applied to the PostToolUse groups. */
    const earlier = (w: World, edit: (groups: Group[]) => void): string => {
      const settings = join(w.env.home, '.claude', 'settings.json');
      mkdirSync(join(w.env.home, '.claude'));
      writeFileSync(settings, SETTINGS);
      setupHost('claude-code', w.env);
      const text = readFileSync(settings, 'utf8');
      const now = groups(settings);
      edit(now);
      writeFileSync(settings, jsonc.applyEdits(text, jsonc.modify(text, ['hooks', 'PostToolUse'], now, { formattingOptions: { insertSpaces: true, tabSize: 2 } })));
      return settings;
    };
    const mine = { type: 'command', command: '~/bin/log-output' };

    it("is left with its matcher and the person's hooks; spillway's hook moves to a group of its own; undo after later edits leaves the person's group as it was", () => {
      const w = world();
      const settings = earlier(w, (g) => {
        const first = g[0] as Group;
        first.matcher = 'Bash';
        first.hooks.push(mine);
      });
      const ours = groups(settings)[0]?.hooks[0]?.command ?? '';
      const again = setupHost('claude-code', w.env);
      expect(again.files[1]?.changes.join('\n')).toContain("moved spillway's PostToolUse hook out of the Bash group");
      expect(groups(settings)).toEqual([
        { matcher: 'Bash', hooks: [mine] },
        { matcher: WIDE, hooks: [{ type: 'command', command: ours }] },
      ]);
      expect(readFileSync(settings, 'utf8')).toContain('// mine');
      expect(setupHost('claude-code', w.env).files[1]?.status).toBe('unchanged');
      // The host writes something of its own: undo takes out only spillway's part.
      writeFileSync(settings, readFileSync(settings, 'utf8').replace('"hooks": {', '"model": "opus",\n  "hooks": {'));
      expect(undoHost('claude-code', w.env).files[1]?.status).toBe('removed');
      expect(groups(settings)).toEqual([{ matcher: 'Bash', hooks: [mine] }]);
      expect(readFileSync(settings, 'utf8')).toContain('"model": "opus"');
    });

    it("widened while spillway's hook was alone in it, then shared: undo after later edits gives it back its Bash matcher", () => {
      const w = world();
      const settings = earlier(w, (g) => {
        (g[0] as Group).matcher = 'Bash';
      });
      setupHost('claude-code', w.env);
      expect(groups(settings).map((g) => g.matcher)).toEqual([WIDE]);
      // The person adds a hook of their own to that group.
      const text = readFileSync(settings, 'utf8');
      writeFileSync(settings, jsonc.applyEdits(text, jsonc.modify(text, ['hooks', 'PostToolUse', 0, 'hooks', -1], mine, { isArrayInsertion: true, formattingOptions: { insertSpaces: true, tabSize: 2 } })));
      expect(undoHost('claude-code', w.env).files[1]?.status).toBe('removed');
      expect(groups(settings)).toEqual([{ matcher: 'Bash', hooks: [mine] }]);
      expect(readFileSync(settings, 'utf8')).toContain('// mine');
    });
  });

  it('without --max-inline-bytes, a cap chosen earlier stays', () => {
    const w = world();
    const file = codexFile(w);
    setupHost('codex', { ...w.env, maxInlineBytes: 2000 });
    expect(setupHost('codex', w.env).files[0]?.status).toBe('unchanged');
    expect(wrapperOf(codexServers(file).files)?.cap).toBe(2000);
  });

  it('rewrites a wrapper and a hook whose node or spillway no longer exists', () => {
    const w = world();
    const file = codexFile(w);
    const settings = join(w.env.home, '.claude', 'settings.json');
    mkdirSync(join(w.env.home, '.claude'));
    writeFileSync(settings, SETTINGS);
    const before = [readFileSync(file), readFileSync(settings)];
    const old = { ...w.env, command: { node: join(w.base, 'old', 'node'), spillway: join(w.base, 'old', 'spillway.js') } };
    setupHost('codex', old);
    setupHost('claude-code', old);
    const report = setupHost('codex', w.env);
    expect(report.files[0]?.changes.join('\n')).toContain(`${join(w.base, 'old', 'node')} no longer exists`);
    expect(wrapperOf(codexServers(file).files)?.launcher).toEqual([process.execPath, w.script]);
    expect(wrapperOf(codexServers(file).files)?.cap).toBe(8192);
    setupHost('claude-code', w.env);
    expect(readFileSync(settings, 'utf8')).toContain(`${w.script} hook claude-code --max-inline-bytes 24576`);
    expect(readFileSync(settings, 'utf8')).not.toContain(join(w.base, 'old'));
    // Not rewritten for a command that would not start either.
    rmSync(w.script);
    expect(setupHost('codex', old).files[0]?.status).toBe('unchanged');
    undoHost('codex', w.env);
    undoHost('claude-code', w.env);
    expect([readFileSync(file), readFileSync(settings)]).toEqual(before);
  });

  it('does not wrap a server already behind spillway in any documented form', () => {
    const w = world();
    const forms = {
      url: { command: 'spillway', args: ['mcp', '--url', 'https://mcp.example.com/mcp'] },
      npx: { command: 'npx', args: ['-y', '@spillway/cli', 'mcp', '--', 'uvx', 'x'] },
      path: { command: 'spillway', args: ['mcp', '--', 'uvx', 'y'] },
      older: { command: process.execPath, args: [w.script, 'mcp', '--max-inline-bytes', '16384', '--', 'uvx', 'z'] },
    };
    const file = join(w.env.home, '.cursor', 'mcp.json');
    mkdirSync(join(w.env.home, '.cursor'));
    writeFileSync(file, `${JSON.stringify({ mcpServers: forms }, null, 2)}\n`);
    const report = setupHost('cursor', w.env);
    expect(report.files[0]?.status).toBe('unchanged');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ mcpServers: forms });
    // A new cap reaches each of them, in its own form.
    setupHost('cursor', { ...w.env, maxInlineBytes: 5000 });
    const after = (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Servers }).mcpServers;
    for (const [name, entry] of Object.entries(after)) {
      const wrapper = wrapperOf(entry);
      expect(wrapper?.cap, name).toBe(5000);
      expect(wrapper?.form, name).toBe(wrapperOf(forms[name as keyof typeof forms])?.form);
      expect(entry.args?.filter((a) => a === 'mcp'), name).toHaveLength(1);
    }
  });

  it('any sequence of setups with and without caps, then undo, gives back the bytes from before the first', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: 1, max: 1e6 }), { nil: undefined }), { minLength: 1, maxLength: 4 }), (caps) => {
        const w = world();
        const file = codexFile(w);
        const before = readFileSync(file);
        for (const cap of caps) setupHost('codex', { ...w.env, maxInlineBytes: cap });
        const last = caps.filter((c) => c !== undefined).at(-1);
        expect(wrapperOf(codexServers(file).files)?.cap).toBe(last ?? 8192);
        undoHost('codex', w.env);
        expect(readFileSync(file)).toEqual(before);
        expect(existsSync(join(w.base, 'state', 'setup-undo'))).toBe(true);
      }),
      { numRuns: 25 },
    );
  });
});
