import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isTrackedByGit } from './git-tracked.js';
import { parseWrapper, setupHost, undoHost, type SetupEnvironment } from './index.js';

// Runs git: a project file shared through git never gets absolute paths by default.

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]): void => {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd, stdio: 'ignore' });
};

function repo(): { env: SetupEnvironment; project: string; script: string } {
  const base = mkdtempSync(join(tmpdir(), 'setup-git-'));
  made.push(base);
  const home = join(base, 'home');
  const project = join(base, 'project');
  mkdirSync(home);
  mkdirSync(project);
  const script = join(base, 'spillway.js');
  writeFileSync(script, '');
  git(project, 'init', '-q');
  return { project, script, env: { home, cwd: project, env: {}, command: { node: process.execPath, spillway: script }, stateDir: join(base, 'state') } };
}

const SERVERS = '{\n  "mcpServers": {\n    "git": { "command": "uvx", "args": ["mcp-server-git"] }\n  }\n}\n';

type Servers = Record<string, { command: string; args?: string[] }>;
const servers = (file: string): Servers => (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Servers }).mcpServers;

describe('isTrackedByGit', () => {
  it('answers for tracked, untracked and outside a checkout; without git, a checkout counts as tracked', () => {
    const { project } = repo();
    const tracked = join(project, '.mcp.json');
    const untracked = join(project, 'other.json');
    writeFileSync(tracked, SERVERS);
    writeFileSync(untracked, SERVERS);
    git(project, 'add', '.mcp.json');
    expect(isTrackedByGit(tracked)).toBe(true);
    expect(isTrackedByGit(untracked)).toBe(false);
    expect(isTrackedByGit(untracked, join(project, 'no-such-git'))).toBe(true);
    const outside = mkdtempSync(join(tmpdir(), 'no-git-'));
    made.push(outside);
    writeFileSync(join(outside, '.mcp.json'), SERVERS);
    expect(isTrackedByGit(join(outside, '.mcp.json'), join(outside, 'no-such-git'))).toBe(false);
  });
});

describe('setup and a project file git tracks', () => {
  it('writes spillway through PATH, says so, and undo restores the bytes', () => {
    const { env, project, script } = repo();
    const file = join(project, '.mcp.json');
    writeFileSync(file, SERVERS);
    git(project, 'add', '.mcp.json');
    const report = setupHost('claude-code', env);
    const entry = report.files.find((f) => f.path === file);
    expect(entry?.status).toBe('changed');
    expect(entry?.changes.join('\n')).toContain('git tracks this file');
    // The environment given has no PATH: the person is told the host cannot start spillway yet.
    expect(entry?.changes.join('\n')).toContain('spillway is not on PATH here');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(process.execPath);
    expect(text).not.toContain(script);
    expect(servers(file).git).toEqual({ command: 'spillway', args: ['mcp', '--max-inline-bytes', '24576', '--host', 'claude-code', '--', 'uvx', 'mcp-server-git'] });
    undoHost('claude-code', env);
    expect(readFileSync(file, 'utf8')).toBe(SERVERS);
  });

  it('--absolute-paths writes the paths; a later setup without it makes the file portable again', () => {
    const { env, project, script } = repo();
    const file = join(project, '.mcp.json');
    writeFileSync(file, SERVERS);
    git(project, 'add', '.mcp.json');
    setupHost('claude-code', { ...env, absolutePaths: true });
    expect(parseWrapper({ command: servers(file).git?.command ?? '', args: servers(file).git?.args ?? [] })?.launcher).toEqual([process.execPath, script]);
    const again = setupHost('claude-code', env).files.find((f) => f.path === file);
    expect(again?.changes.join('\n')).toContain('shared through git');
    expect(servers(file).git?.command).toBe('spillway');
    undoHost('claude-code', env);
    expect(readFileSync(file, 'utf8')).toBe(SERVERS);
  });

  it('an untracked project file and a user file get absolute paths', () => {
    const { env, project } = repo();
    const file = join(project, '.mcp.json');
    writeFileSync(file, SERVERS);
    setupHost('claude-code', env);
    expect(servers(file).git?.command).toBe(process.execPath);
  });
});
