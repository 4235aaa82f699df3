import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUsageLog } from '@spillway/usage';
import { SPILLWAY_SCRIPT } from './auto-gc.js';
import { main } from './main.js';
import { testIO } from './test-io.js';
import { tempDirsPerTest } from './test-temp-dirs.js';

const tmp = tempDirsPerTest('setup-cli-');
const CODEX = '# mine\n[mcp_servers.files]\ncommand = "npx" # the server\nargs = ["-y", "srv"]\n';

describe('spillway setup', () => {
  it('says the cap and why, writes absolute paths, and undo gives the bytes back', async () => {
    const dir = tmp();
    const codex = join(dir, 'codex');
    mkdirSync(codex);
    writeFileSync(join(codex, 'config.toml'), CODEX);
    const t = testIO({ homedir: dir, cwd: dir });
    expect(await main(['setup', 'codex', '--config-dir', codex], t.io)).toBe(0);
    expect(t.stdout.text()).toMatch(/cap 8192 bytes \(under the 10 KiB/);
    // The hint works as printed: it names the config directory it was given.
    const hint = /Undo with: spillway (.+)$/m.exec(t.stdout.text())?.[1] ?? '';
    expect(hint).toBe(`setup codex --config-dir ${codex} --undo`);
    const written = readFileSync(join(codex, 'config.toml'), 'utf8');
    expect(written).toContain(`command = ${JSON.stringify(process.execPath)} # the server`);
    expect(written).toContain(JSON.stringify(SPILLWAY_SCRIPT));

    const dry = testIO({ homedir: dir, cwd: dir });
    expect(await main(['setup', 'codex', '--config-dir', codex, '--undo', '--dry-run'], dry.io)).toBe(0);
    expect(dry.stdout.text()).toContain('would be restored');
    expect(readFileSync(join(codex, 'config.toml'), 'utf8')).toBe(written);

    expect(await main(hint.split(' '), testIO({ homedir: dir, cwd: dir }).io)).toBe(0);
    expect(readFileSync(join(codex, 'config.toml'), 'utf8')).toBe(CODEX);
  });

  it('undo with an altered record that would leave a wrapper exits 1, naming the server and its command', async () => {
    const dir = tmp();
    const codex = join(dir, 'codex');
    mkdirSync(codex);
    const config = join(codex, 'config.toml');
    writeFileSync(config, CODEX);
    expect(await main(['setup', 'codex', '--config-dir', codex], testIO({ homedir: dir, cwd: dir }).io)).toBe(0);
    // The host edits the file; the record loses its servers (still JSON, still 0600).
    writeFileSync(config, `# edited\n${readFileSync(config, 'utf8')}`);
    const records = join(dir, '.local', 'state', 'spillway', 'setup-undo');
    // The config's record (setup also wrote one for AGENTS.md).
    const name = readdirSync(records).find((n) => (JSON.parse(readFileSync(join(records, n), 'utf8')) as { configPath?: string }).configPath === config);
    const recordPath = join(records, name ?? '');
    writeFileSync(recordPath, JSON.stringify({ ...(JSON.parse(readFileSync(recordPath, 'utf8')) as object), servers: [] }), { mode: 0o600 });
    const wrapped = readFileSync(config, 'utf8');
    const t = testIO({ homedir: dir, cwd: dir });
    expect(await main(['setup', 'codex', '--config-dir', codex, '--undo'], t.io)).toBe(1);
    const out = t.stdout.text() + t.stderr.text();
    expect(out).toContain('files');
    expect(out).toContain('npx -y srv');
    expect(readFileSync(config, 'utf8')).toBe(wrapped);
  });

  it('prints control characters of a project config as escapes, never raw', async () => {
    const dir = tmp();
    writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { 'evil\u001b[2J\u001b]0;owned\u0007': { url: 'http://127.0.0.1:1/\u001b[31m' } } }));
    const t = testIO({ homedir: join(dir, 'home'), cwd: dir });
    await main(['setup', 'claude-code', '--dry-run'], t.io);
    expect(t.stdout.text()).toContain('evil\\u001b[2J');
    // eslint-disable-next-line no-control-regex
    expect(t.stdout.text()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });

  it('refuses an unknown host (usage) and a broken config (failure, named, untouched)', async () => {
    const dir = tmp();
    expect(await main(['setup', 'emacs'], testIO({ homedir: dir, cwd: dir }).io)).toBe(2);
    const codex = join(dir, 'codex');
    mkdirSync(codex);
    writeFileSync(join(codex, 'config.toml'), '[mcp_servers.x\ncommand = 1\n');
    const t = testIO({ homedir: dir, cwd: dir });
    expect(await main(['setup', 'codex', '--config-dir', codex, '--json'], t.io)).toBe(1);
    const report = JSON.parse(t.stdout.text()) as { files: { status: string; error?: string }[] };
    expect(report.files[0]?.status).toBe('refused');
    expect(report.files[0]?.error).toContain(join(codex, 'config.toml'));
    expect(readFileSync(join(codex, 'config.toml'), 'utf8')).toBe('[mcp_servers.x\ncommand = 1\n');
  });
});

describe('spillway stats', () => {
  it('answers from the log, per host and tool, with --session and --json', async () => {
    const dir = tmp();
    const env = { SPILLWAY_USAGE_DIR: join(dir, 'usage') };
    const log = createUsageLog({ env });
    log.record({ kind: 'spilled', surface: 'hook', host: 'claude-code', tool: 'Bash', session: 'a', artifact: '/x', bytes: 2_000_000, shownBytes: 24_000 });
    log.record({ kind: 'passed', surface: 'hook', host: 'claude-code', tool: 'Bash', session: 'b', bytes: 100 });
    log.record({ kind: 'read', surface: 'mcp', artifact: '/x' });
    const t = testIO({ env, homedir: dir });
    expect(await main(['stats'], t.io)).toBe(0);
    expect(t.stdout.text()).toContain('results seen 2, spilled 1');
    expect(t.stdout.text()).toContain('read back: 1 of 1 spilled results, 1 read,');
    expect(t.stdout.text()).toMatch(/claude-code\s+Bash\s+2\s+1\s+1\.9 MiB/);
    const j = testIO({ env, homedir: dir });
    expect(await main(['stats', '--session', 'b', '--json'], j.io)).toBe(0);
    expect((JSON.parse(j.stdout.text()) as { total: { results: number; spilled: number } }).total).toMatchObject({ results: 1, spilled: 0 });
  });
});
