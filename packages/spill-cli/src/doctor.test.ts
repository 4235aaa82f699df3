import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from './main.js';
import { testIO } from './test-io.js';
import { tempDirsPerTest } from './test-temp-dirs.js';

const tmp = tempDirsPerTest('doctor-cli-');

/** A Codex config with one stdio MCP server. */
const SERVER = '[mcp_servers.files]\ncommand = "npx"\nargs = ["-y", "srv"]\n';

/** A temporary directory with a Codex config directory whose config.toml is `config`, and the environment to run in. */
function codexWorld(config: string): { dir: string; codex: string; env: Record<string, string> } {
  const dir = tmp();
  const codex = join(dir, 'codex');
  mkdirSync(codex);
  writeFileSync(join(codex, 'config.toml'), config);
  return { dir, codex, env: { XDG_STATE_HOME: join(dir, 'state'), SPILLWAY_USAGE: 'off' } };
}

describe('spillway doctor, in process', () => {
  it("setup's own check hint works as printed and finds everything covered", async () => {
    const { dir, codex, env } = codexWorld(SERVER);
    const t = testIO({ homedir: dir, cwd: dir, env });
    expect(await main(['setup', 'codex', '--config-dir', codex], t.io)).toBe(0);
    const hint = /Check with: spillway (.+)$/m.exec(t.stdout.text())?.[1] ?? '';
    expect(hint).toBe(`doctor --host codex --config-dir ${codex}`);
    const check = testIO({ homedir: dir, cwd: dir, env });
    expect(await main(hint.split(' '), check.io)).toBe(0);
    expect(check.stdout.text()).toMatch(/covered\s+files \[mcp_servers, stdio, cap 8192\]/);
  });

  it('shows a setting of several lines (Codex\'s AGENTS.md block) by its first line, and --json whole', async () => {
    const { dir, codex, env } = codexWorld('model = "m"\n');
    expect(await main(['setup', 'codex', '--config-dir', codex], testIO({ homedir: dir, cwd: dir, env }).io)).toBe(0);
    const text = testIO({ homedir: dir, cwd: dir, env });
    expect(await main(['doctor', '--host', 'codex', '--config-dir', codex], text.io)).toBe(0);
    const line = text.stdout.text().split('\n').find((l) => l.includes('spillway block = ')) ?? '';
    expect(line).toMatch(/covered\s+spillway block = ## Long command output … \(\d+ lines; --json has them all\)$/);
    const json = testIO({ homedir: dir, cwd: dir, env });
    expect(await main(['doctor', '--host', 'codex', '--config-dir', codex, '--json'], json.io)).toBe(0);
    const doc = JSON.parse(json.stdout.text()) as { hosts: { settings: { name: string; value: string }[] }[] };
    const block = doc.hosts[0]?.settings.find((x) => x.name === 'spillway block')?.value ?? '';
    // Counted as wc -l counts: the line breaks, plus a last line without one.
    const count = (block.match(/\n/g) ?? []).length + (block.endsWith('\n') ? 0 : 1);
    expect(count).toBeGreaterThan(1);
    expect(Number(/\((\d+) lines/.exec(line)?.[1])).toBe(count);
  });

  it('warns of a cap above the host\'s own, with a setup command that brings it down', async () => {
    const { dir, codex, env } = codexWorld(SERVER);
    expect(await main(['setup', 'codex', '--config-dir', codex, '--max-inline-bytes', '20000'], testIO({ homedir: dir, cwd: dir, env }).io)).toBe(0);
    const t = testIO({ homedir: dir, cwd: dir, env });
    // A warning: everything is still covered.
    expect(await main(['doctor', '--host', 'codex', '--config-dir', codex], t.io)).toBe(0);
    expect(t.stdout.text()).toContain('CAP_ABOVE_HOST: files (mcp_servers in');
    const hint = /^ {2}run: spillway (.+)$/m.exec(t.stdout.text())?.[1] ?? '';
    expect(hint).toBe(`setup codex --config-dir ${codex} --max-inline-bytes 8192`);
    expect(await main(hint.split(' '), testIO({ homedir: dir, cwd: dir, env }).io)).toBe(0);
    const after = testIO({ homedir: dir, cwd: dir, env });
    expect(await main(['doctor', '--host', 'codex', '--config-dir', codex], after.io)).toBe(0);
    expect(after.stdout.text()).not.toContain('CAP_ABOVE_HOST');
    expect(after.stdout.text()).toMatch(/cap 8192\]/);
  });

  it('prints a command that fixes several findings once, after the last of them', async () => {
    const dir = tmp();
    const home = join(dir, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(join(home, '.claude', 'settings.json'), '{}\n');
    const t = testIO({ homedir: home, cwd: dir, env: { XDG_STATE_HOME: join(dir, 'state'), SPILLWAY_USAGE: 'off' } });
    expect(await main(['doctor', '--host', 'claude-code'], t.io)).toBe(1);
    const lines = t.stdout.text().split('\n');
    const findings = lines.flatMap((l, i) => (/^(HOOK_MISSING|SETTING_MISSING):/.test(l) ? [i] : []));
    expect(findings.length).toBe(2);
    expect(lines.filter((l) => l === '  run: spillway setup claude-code')).toHaveLength(1);
    expect(lines[Math.max(...findings) + 1]).toBe('  run: spillway setup claude-code');
  });

  it("finds an earlier setup's Bash matcher outdated, with the setup command that widens it", async () => {
    const dir = tmp();
    const home = join(dir, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    const settings = join(home, '.claude', 'settings.json');
    writeFileSync(settings, '{}\n');
    const env = { XDG_STATE_HOME: join(dir, 'state'), SPILLWAY_USAGE: 'off' };
    expect(await main(['setup', 'claude-code'], testIO({ homedir: home, cwd: dir, env }).io)).toBe(0);
    writeFileSync(settings, readFileSync(settings, 'utf8').replace('"Bash|Grep|Glob|WebFetch|WebSearch|Agent"', '"Bash"'));
    const t = testIO({ homedir: home, cwd: dir, env });
    expect(await main(['doctor', '--host', 'claude-code'], t.io)).toBe(1);
    const text = t.stdout.text();
    expect(text).toContain(`HOOK_OUTDATED: spillway's PostToolUse hook in ${settings} has the matcher an earlier setup wrote: Grep, Glob, WebFetch, WebSearch, Agent output is not covered.`);
    const hint = /^ {2}run: spillway (.+)$/m.exec(text)?.[1] ?? '';
    expect(hint).toBe('setup claude-code');
    expect(await main(hint.split(' '), testIO({ homedir: home, cwd: dir, env }).io)).toBe(0);
    const after = testIO({ homedir: home, cwd: dir, env });
    expect(await main(['doctor', '--host', 'claude-code'], after.io)).toBe(0);
    expect(after.stdout.text()).not.toContain('HOOK_OUTDATED');
  });

  it('prints control characters of a project config as escapes, never raw', async () => {
    const dir = tmp();
    writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { 'evil\u001b[2J\u001b]0;owned\u0007': { command: 'x\u001b[31m' } } }));
    const t = testIO({ homedir: join(dir, 'home'), cwd: dir, env: { XDG_STATE_HOME: join(dir, 'state') } });
    expect(await main(['doctor', '--host', 'claude-code'], t.io)).toBe(1);
    expect(t.stdout.text()).toContain('evil\\u001b[2J');
    // eslint-disable-next-line no-control-regex
    expect(t.stdout.text()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });
});
