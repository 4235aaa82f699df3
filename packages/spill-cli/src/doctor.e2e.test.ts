import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, spillway, type BinResult } from './test-bin.js';
import { tempDirsPerTest } from './test-temp-dirs.js';

// The real CLI against temporary config directories: doctor says what is not covered,
// prints commands that fix it as printed, and setup run again brings everything up to date.

beforeAll(ensureBuilt);
const tempDir = tempDirsPerTest('spillway-doctor-');

interface World {
  readonly home: string;
  readonly project: string;
  readonly env: NodeJS.ProcessEnv;
}

function world(): World {
  const base = tempDir();
  const home = join(base, 'home');
  const project = join(base, 'project');
  const state = join(base, 'state');
  for (const d of [home, project, state]) mkdirSync(d);
  chmodSync(state, 0o700);
  return {
    home,
    project,
    env: { PATH: process.env.PATH, HOME: home, XDG_STATE_HOME: state, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(base, 'cache'), SPILLWAY_USAGE: 'off', SPILLWAY_AUTO_GC: 'off' },
  };
}

const run = (w: World, args: readonly string[]): Promise<BinResult> => spillway(args, { env: w.env, cwd: w.project });

/** The `run:` hints doctor printed, each as the words a shell would pass (no hint here needs quotes). */
function hints(out: string): string[][] {
  return [...out.matchAll(/^ {2}run: (.*)$/gm)].map((m) => (m[1] ?? '').split(' '));
}

/** Runs a printed hint (commands joined by `&&`): `spillway …` through the built CLI, anything else as it is. */
async function runHint(w: World, words: readonly string[]): Promise<number | null> {
  const at = words.indexOf('&&');
  if (at !== -1) {
    const first = await runHint(w, words.slice(0, at));
    return first === 0 ? runHint(w, words.slice(at + 1)) : first;
  }
  const [command, ...args] = words;
  if (command === 'spillway') return (await run(w, args)).code;
  execFileSync(command ?? '', args, { cwd: w.project, env: w.env });
  return 0;
}

const CODEX = '[mcp_servers.files] # mine\ncommand = "npx"\nargs = ["-y", "@modelcontextprotocol/server-filesystem", "/srv"]\n';

describe('spillway doctor', () => {
  it('exits 1 on a server not covered, and the printed hint (with --config-dir) fixes it', async () => {
    const w = world();
    const dir = join(w.home, 'work-codex');
    mkdirSync(dir);
    writeFileSync(join(dir, 'config.toml'), CODEX);
    const first = await run(w, ['doctor', '--host', 'codex', '--config-dir', dir]);
    expect(first.code).toBe(1);
    expect(first.out).toContain('SERVER_NOT_COVERED');
    expect(first.out).toContain(`read     ${join(dir, 'config.toml')}`);
    // The server, and the AGENTS.md block that asks Codex's model to run long commands through spillway.
    expect(first.out).toContain('SETTING_MISSING');
    // One command fixes both: it is printed once.
    const fixes = hints(first.out);
    expect(fixes).toEqual([['spillway', 'setup', 'codex', '--config-dir', dir]]);
    for (const fix of fixes) expect(await runHint(w, fix)).toBe(0);
    const second = await run(w, ['doctor', '--host', 'codex', '--config-dir', dir]);
    expect(second.code).toBe(0);
    expect(second.out).toMatch(/covered\s+files \[mcp_servers, stdio, cap 8192\]/);
    expect(second.out).toContain('Everything found runs behind spillway.');
  });

  it('finds every host in its default place, a server added since setup, and other tools’ hooks', async () => {
    const w = world();
    mkdirSync(join(w.home, '.claude'));
    writeFileSync(join(w.home, '.claude.json'), JSON.stringify({ mcpServers: { git: { command: 'uvx', args: ['mcp-server-git'] } } }));
    writeFileSync(join(w.home, '.claude', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '~/bin/audit' }] }] } }));
    mkdirSync(join(w.home, '.gemini'));
    writeFileSync(join(w.home, '.gemini', 'settings.json'), '{}\n');
    expect((await run(w, ['setup', 'claude-code'])).code).toBe(0);
    expect((await run(w, ['setup', 'gemini'])).code).toBe(0);
    const clean = await run(w, ['doctor']);
    expect(clean.out).toContain('FOREIGN_HOOK');
    expect(clean.out).toContain('~/bin/audit');
    expect(clean.code).toBe(0);
    const value = JSON.parse(readFileSync(join(w.home, '.claude.json'), 'utf8')) as { mcpServers: Record<string, unknown> };
    value.mcpServers.later = { command: 'npx', args: ['-y', 'srv'] };
    writeFileSync(join(w.home, '.claude.json'), JSON.stringify(value));
    const stale = await run(w, ['doctor']);
    expect(stale.code).toBe(1);
    expect(stale.out).toMatch(/NOT COVERED\s+later/);
    expect(hints(stale.out)).toEqual([['spillway', 'setup', 'claude-code']]);
    for (const fix of hints(stale.out)) expect(await runHint(w, fix)).toBe(0);
    expect((await run(w, ['doctor'])).code).toBe(0);
  });

  it('a read-only config: the hint makes it writable, then sets it up', async () => {
    const w = world();
    mkdirSync(join(w.home, '.codex'));
    const file = join(w.home, '.codex', 'config.toml');
    writeFileSync(file, CODEX);
    chmodSync(file, 0o444);
    const first = await run(w, ['doctor', '--host', 'codex']);
    expect(first.code).toBe(1);
    expect(hints(first.out)).toEqual([
      ['chmod', 'u+w', file, '&&', 'spillway', 'setup', 'codex'],
      ['spillway', 'setup', 'codex'],
    ]);
    for (const fix of hints(first.out)) expect(await runHint(w, fix)).toBe(0);
    expect((await run(w, ['doctor', '--host', 'codex'])).code).toBe(0);
  });

  it('--json has every field, the store health included', async () => {
    const w = world();
    mkdirSync(join(w.home, '.codex'));
    writeFileSync(join(w.home, '.codex', 'config.toml'), CODEX);
    const root = join(w.env.XDG_STATE_HOME ?? '', 'spillway');
    mkdirSync(root, { mode: 0o700 });
    chmodSync(root, 0o700);
    const swept = new Date('2026-01-02T03:04:05.000Z');
    writeFileSync(join(root, '.auto-gc-stamp'), '');
    utimesSync(join(root, '.auto-gc-stamp'), swept, swept);
    mkdirSync(`${root}.search`, { mode: 0o700 });
    writeFileSync(join(`${root}.search`, 'index.sqlite'), Buffer.alloc(1234));
    writeFileSync(join(`${root}.search`, 'index.sqlite-wal'), Buffer.alloc(66));
    const result = await run(w, ['doctor', '--json']);
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.out) as {
      ok: boolean;
      hosts: { host: string; found: boolean; servers: Record<string, unknown>[]; files: Record<string, unknown>[]; hooks: unknown[] }[];
      store: Record<string, unknown> & { searchIndex: { path: string; bytes: number } };
      findings: Record<string, unknown>[];
    };
    expect(doc.ok).toBe(false);
    expect(doc.hosts.map((h) => h.host)).toEqual(['claude-code', 'gemini', 'codex', 'opencode', 'cursor', 'vscode']);
    const codex = doc.hosts.find((h) => h.host === 'codex');
    expect(Object.keys(codex?.servers[0] ?? {}).sort()).toEqual(['cap', 'code', 'command', 'detail', 'file', 'form', 'name', 'status', 'table', 'transport']);
    expect(codex?.servers[0]).toMatchObject({ name: 'files', status: 'not-covered', cap: null, code: 'SERVER_NOT_COVERED' });
    expect(Object.keys(codex?.files[0] ?? {}).sort()).toEqual(['error', 'path', 'readOnly', 'scope', 'status']);
    expect(doc.findings).toEqual([
      { code: 'SERVER_NOT_COVERED', host: 'codex', message: expect.stringContaining('files') as unknown, hint: 'spillway setup codex' },
      { code: 'SETTING_MISSING', host: 'codex', message: expect.stringContaining('AGENTS.md') as unknown, hint: 'spillway setup codex' },
    ]);
    expect(doc.store).toMatchObject({ kind: 'local', root, rootSource: 'default', exists: true, mode: '0700', private: true, lastAutoCleanup: swept.toISOString(), url: null });
    expect(doc.store.freeBytes).toBeGreaterThan(0);
    expect(doc.store.totalBytes).toBeGreaterThanOrEqual(doc.store.freeBytes as number);
    expect(doc.store.searchIndex).toEqual({ path: join(`${root}.search`, 'index.sqlite'), bytes: 1300 });
    expect(doc.store.autoCleanup).toMatchObject({ enabled: false });
  });

  it('an unsafe root is not covered, and the printed chmod fixes it', async () => {
    const w = world();
    const root = join(w.home, 'spills');
    mkdirSync(root);
    chmodSync(root, 0o755);
    const env = { ...w.env, SPILLWAY_ROOT: root };
    const first = await spillway(['doctor'], { env, cwd: w.project });
    expect(first.code).toBe(1);
    expect(first.out).toContain('STORE_UNSAFE');
    const fixes = hints(first.out);
    expect(fixes).toEqual([['chmod', '700', root]]);
    for (const fix of fixes) await runHint({ ...w, env }, fix);
    const second = await spillway(['doctor'], { env, cwd: w.project });
    expect(second.code).toBe(0);
    expect(second.out).toContain('No host config found in the default places');
    expect(second.out).toContain('Nothing runs behind spillway yet: `spillway setup <host>` sets a host up.');
    expect(second.out).not.toContain('Everything found runs behind spillway.');
  });

  it('a missing root named by --root or SPILLWAY_ROOT is not covered (it is never made), and the printed mkdir fixes it', async () => {
    const w = world();
    const root = join(w.home, 'named-root');
    const fromOption = await run(w, ['doctor', '--host', 'claude-code', '--root', root, '--json']);
    expect(fromOption.code).toBe(1);
    const doc = JSON.parse(fromOption.out) as { ok: boolean; store: { exists: boolean; rootSource: string; findings: unknown[] } };
    expect(doc.ok).toBe(false);
    expect(doc.store).toMatchObject({ exists: false, rootSource: 'option' });
    expect(doc.store.findings).toEqual([{ code: 'STORE_UNSAFE', message: expect.stringContaining('--root') as unknown, hint: `mkdir -m 700 ${root}` }]);
    // The other commands refuse the same root.
    expect((await run(w, ['ls', '--root', root])).code).toBe(6);
    const env = { ...w.env, SPILLWAY_ROOT: root };
    const fromEnv = await spillway(['doctor', '--host', 'claude-code'], { env, cwd: w.project });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.out).toContain(`root         ${root} (env): MISSING`);
    expect(fromEnv.out).toContain('STORE_UNSAFE: ');
    expect(fromEnv.out).toContain('unset SPILLWAY_ROOT');
    const fixes = hints(fromEnv.out);
    expect(fixes).toEqual([['mkdir', '-m', '700', root]]);
    for (const fix of fixes) await runHint({ ...w, env }, fix);
    const fixed = await spillway(['doctor', '--host', 'claude-code'], { env, cwd: w.project });
    expect(fixed.code).toBe(0);
    expect(fixed.out).toContain(`root         ${root} (env): mode 0700, private`);
    // The default root is made on the first spill: its absence is no finding.
    const byDefault = await run(w, ['doctor', '--host', 'claude-code', '--json']);
    expect(byDefault.code).toBe(0);
    expect(JSON.parse(byDefault.out)).toMatchObject({ ok: true, store: { rootSource: 'default', exists: false, findings: [] } });
  });

  // Only ENOENT says a root is missing: any other lstat error is said as it is, and no mkdir is offered.
  const uncheckable = async (w: World, root: string, errno: string): Promise<void> => {
    const json = await run(w, ['doctor', '--host', 'claude-code', '--root', root, '--json']);
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.out) as { ok: boolean; store: { exists: boolean | null; checkError: string | null; findings: { message: string }[] } };
    expect(doc.ok).toBe(false);
    expect(doc.store).toMatchObject({ exists: null, checkError: errno });
    expect(doc.store.findings).toEqual([{ code: 'STORE_UNSAFE', message: expect.stringContaining(`The root ${root} (from --root) cannot be checked: lstat failed with ${errno}`) as unknown, hint: null }]);
    expect(doc.store.findings[0]?.message).toContain('directories above it');
    const text = await spillway(['doctor', '--host', 'claude-code'], { env: { ...w.env, SPILLWAY_ROOT: root }, cwd: w.project });
    expect(text.code).toBe(1);
    expect(text.out).toContain(`root         ${root} (env): CANNOT BE CHECKED (${errno})`);
    expect(text.out).toContain('unset SPILLWAY_ROOT');
    expect(text.out).not.toContain('MISSING');
    expect(text.out).not.toContain('does not exist');
    expect(hints(text.out)).toEqual([]);
  };

  it('a named root under a regular file (ENOTDIR) is said to be uncheckable, not missing', async () => {
    const w = world();
    writeFileSync(join(w.home, 'file'), '');
    await uncheckable(w, join(w.home, 'file', 'root'), 'ENOTDIR');
    // The default root too: the first spill could not make it.
    const byDefault = await spillway(['doctor', '--host', 'claude-code', '--json'], { env: { ...w.env, XDG_STATE_HOME: join(w.home, 'file') }, cwd: w.project });
    expect(byDefault.code).toBe(1);
    expect(JSON.parse(byDefault.out)).toMatchObject({ store: { rootSource: 'default', exists: null, checkError: 'ENOTDIR', findings: [{ code: 'STORE_UNSAFE', hint: null }] } });
  });

  it('a named root through a symbolic link loop (ELOOP) is said to be uncheckable, not missing', async () => {
    const w = world();
    symlinkSync('loop', join(w.home, 'loop'));
    await uncheckable(w, join(w.home, 'loop', 'root'), 'ELOOP');
  });

  it.skipIf(process.getuid?.() === 0)('a named root under a directory of mode 000 (EACCES) is said to be uncheckable, not missing', async () => {
    const w = world();
    const shut = join(w.home, 'shut');
    mkdirSync(shut, { mode: 0o000 });
    try {
      await uncheckable(w, join(shut, 'root'), 'EACCES');
    } finally {
      chmodSync(shut, 0o700);
    }
  });

  it('usage errors: --config-dir without --host, an unknown host', async () => {
    const w = world();
    const noHost = await run(w, ['doctor', '--config-dir', w.home]);
    expect(noHost.code).toBe(2);
    expect(noHost.stderr).toContain('add --host');
    const unknown = await run(w, ['doctor', '--host', 'emacs', '--json']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ error: { code: 'USAGE', exitCode: 2 } });
  });
});

describe('spillway setup run again', () => {
  it('rewrites the cap of existing wrappers, and undo gives back the first bytes', async () => {
    const w = world();
    mkdirSync(join(w.home, '.codex'));
    const file = join(w.home, '.codex', 'config.toml');
    writeFileSync(file, CODEX);
    expect((await run(w, ['setup', 'codex'])).code).toBe(0);
    const again = await run(w, ['setup', 'codex', '--max-inline-bytes', '4096']);
    expect(again.out).toContain('cap 8192 -> 4096');
    expect(readFileSync(file, 'utf8')).toContain('"4096"');
    const doctor = await run(w, ['doctor', '--host', 'codex', '--json']);
    expect((JSON.parse(doctor.out) as { hosts: { servers: { cap: number }[] }[] }).hosts[0]?.servers[0]?.cap).toBe(4096);
    expect((await run(w, ['setup', 'codex', '--undo'])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(CODEX);
  });

  it('a project file git tracks gets spillway through PATH unless --absolute-paths', async () => {
    const w = world();
    const file = join(w.project, '.mcp.json');
    const text = '{ "mcpServers": { "git": { "command": "uvx", "args": ["mcp-server-git"] } } }\n';
    writeFileSync(file, text);
    const git = (...args: string[]): void => {
      execFileSync('git', args, { cwd: w.project, stdio: 'ignore' });
    };
    git('init', '-q');
    git('add', '.mcp.json');
    const portable = await run(w, ['setup', 'claude-code']);
    expect(portable.out).toContain('git tracks this file');
    expect(readFileSync(file, 'utf8')).toContain('"command": "spillway"');
    expect(readFileSync(file, 'utf8')).not.toContain(process.execPath);
    expect((await run(w, ['setup', 'claude-code', '--undo'])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
    await run(w, ['setup', 'claude-code', '--absolute-paths']);
    expect(readFileSync(file, 'utf8')).toContain(JSON.stringify(process.execPath));
  });
});
