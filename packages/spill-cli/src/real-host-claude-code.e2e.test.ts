import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './test-bin.js';
import { BIG_MCP_SERVER, HOSTS_CACHE, MCP_NEEDLE, realHostSkipReason, runHostSession, type SessionRecord } from './test-real-hosts.js';
import { main } from './main.js';
import { testIO } from './test-io.js';

const skip = realHostSkipReason();
const CLAUDE = join(HOSTS_CACHE, 'node_modules', '@anthropic-ai', 'claude-code-linux-x64', 'claude');
/** About 2 MB of shell output with one needle line in the middle. */
const SHELL = '{ seq 1 150000; echo SHELL-NEEDLE-4242; seq 150001 300000; }';
const CAP = 24 * 1024;

describe.skipIf(skip !== undefined)(`Claude Code 2.1.328, offline, after spillway setup${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
  let dir: string;
  let config: string;
  let record: SessionRecord;
  const files = (): [string, string] => [join(config, '.claude.json'), join(config, 'settings.json')];
  const setup = async (...args: string[]): Promise<{ code: number; out: string }> => {
    const t = testIO({ homedir: dir, cwd: join(dir, 'project'), env: { PATH: process.env.PATH } });
    const code = await main(['setup', 'claude-code', '--config-dir', config, ...args], t.io);
    return { code, out: t.stdout.text() };
  };

  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'real-claude-'));
    config = join(dir, 'claude');
    mkdirSync(config);
    mkdirSync(join(dir, 'project'));
    writeFileSync(files()[0], `${JSON.stringify({ hasCompletedOnboarding: true, mcpServers: { big: { type: 'stdio', command: 'node', args: [BIG_MCP_SERVER], env: {} } } }, null, 2)}\n`);
    // Strict JSON: Claude Code ignores a settings.json with comments (checked).
    writeFileSync(files()[1], '{\n  "permissions": { "allow": [] },\n  "theme": "dark"\n}\n');
  }, 60_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('setup, undo right after it gives the bytes back, setup again', async () => {
    const before = files().map((f) => readFileSync(f));
    expect((await setup()).code).toBe(0);
    expect(readFileSync(files()[1], 'utf8')).toContain('hook claude-code --max-inline-bytes 24576');
    expect((await setup('--undo')).code).toBe(0);
    expect(files().map((f) => readFileSync(f))).toEqual(before);
    expect((await setup()).out).toContain('cap 24576 bytes');
  });

  it('a broken config is refused and left untouched', async () => {
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'settings.json'), '{ "hooks": ');
    const t = testIO({ homedir: dir, cwd: join(dir, 'project') });
    expect(await main(['setup', 'claude-code', '--config-dir', broken], t.io)).toBe(1);
    expect(t.stdout.text()).toContain(`Cannot parse ${join(broken, 'settings.json')}`);
    expect(readFileSync(join(broken, 'settings.json'), 'utf8')).toBe('{ "hooks": ');
  });

  it('a real session: the 2 MB shell output and the 500 KB MCP result reach the model as preview and notice, spill_grep finds the needle, a small output is unchanged', () => {
    record = runHostSession({
      api: 'anthropic',
      dir,
      cwd: join(dir, 'project'),
      command: [CLAUDE, '-p', 'Run the scripted tools.', '--output-format', 'json', '--allowedTools', 'Bash,mcp__big__get_big,mcp__big__spill_grep'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dir,
        CLAUDE_CONFIG_DIR: config,
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:{PORT}',
        ANTHROPIC_API_KEY: 'sk-ant-fake-key-for-tests',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        ENABLE_TOOL_SEARCH: 'false',
        XDG_STATE_HOME: join(dir, 'state'),
        SPILLWAY_USAGE_DIR: join(dir, 'usage'),
      },
      steps: [
        { name: 'Bash', args: { command: SHELL, description: 'print a long listing' } },
        { name: 'mcp__big__get_big', args: {} },
        { name: 'mcp__big__spill_grep', args: { locator: '{LOCATOR}', pattern: 'MCP-NEEDLE-31337' } },
        { name: 'Bash', args: { command: 'echo small-output-ok', description: 'print a word' } },
      ],
    });
    expect(record.results, record.stderr).toHaveLength(4);
    const [shell, mcp, grep, small] = record.results as [string, string, string, string];

    expect(Buffer.byteLength(shell)).toBeLessThanOrEqual(CAP + 200);
    expect(shell).not.toContain('<persisted-output>');
    const shellLocator = /stored at: (\S+?)\. /.exec(shell)?.[1] ?? '';
    expect(readFileSync(shellLocator, 'utf8')).toBe(execFileSync('sh', ['-c', SHELL], { encoding: 'utf8', maxBuffer: 1 << 26 }));

    expect(Buffer.byteLength(mcp)).toBeLessThanOrEqual(CAP + 200);
    expect(mcp).toMatch(/\(Omitted \d+ bytes\. Full formatted result stored at: /);
    expect(mcp).not.toContain(MCP_NEEDLE);
    expect(grep).toContain(MCP_NEEDLE);
    expect(small.trim()).toBe('small-output-ok');
  }, 300_000);

  it('spillway stats answers from the session', async () => {
    const t = testIO({ homedir: dir, env: { SPILLWAY_USAGE_DIR: join(dir, 'usage') } });
    expect(await main(['stats', '--json'], t.io)).toBe(0);
    const stats = JSON.parse(t.stdout.text()) as { total: { results: number; spilled: number; bytesKeptOut: number; readBack: { artifacts: number } } };
    console.log(`claude-code session stats: ${t.stdout.text()}`);
    expect(stats.total.spilled).toBe(2);
    expect(stats.total.results).toBeGreaterThanOrEqual(3);
    expect(stats.total.readBack.artifacts).toBe(1);
  });

  it('undo after the session keeps what Claude Code wrote and removes only spillway', async () => {
    expect((await setup('--undo')).code).toBe(0);
    const main_ = readFileSync(files()[0], 'utf8');
    const settings = readFileSync(files()[1], 'utf8');
    expect(main_ + settings).not.toContain('spillway');
    expect(settings).toContain('"theme": "dark"');
    expect((JSON.parse(main_) as { mcpServers: { big: { command: string } } }).mcpServers.big.command).toBe('node');
  });
});
