import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './test-bin.js';
import { BIG_MCP_SERVER, HOSTS_CACHE, MCP_NEEDLE, realHostSkipReason, runHostSession } from './test-real-hosts.js';
import { main } from './main.js';
import { testIO } from './test-io.js';

const skip = realHostSkipReason();
const CODEX = join(HOSTS_CACHE, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
const CAP = 8 * 1024;

const CONFIG = `# Codex configuration, as a person writes it
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

describe.skipIf(skip !== undefined)(`Codex 0.169.0, offline, after spillway setup${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
  let dir: string;
  let file: string;
  const setup = async (...args: string[]): Promise<{ code: number; out: string }> => {
    const t = testIO({ homedir: dir, cwd: join(dir, 'project') });
    const code = await main(['setup', 'codex', '--config-dir', join(dir, 'codex'), ...args], t.io);
    return { code, out: t.stdout.text() };
  };

  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'real-codex-'));
    mkdirSync(join(dir, 'codex'));
    mkdirSync(join(dir, 'project'));
    file = join(dir, 'codex', 'config.toml');
    writeFileSync(file, CONFIG);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('setup, undo right after it gives the bytes back, setup again; a broken config is refused', async () => {
    expect((await setup()).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('# the big report server');
    expect((await setup('--undo')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(CONFIG);
    expect((await setup()).out).toContain('cap 8192 bytes');
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'config.toml'), '[mcp_servers.big\ncommand = "node"\n');
    const t = testIO({ homedir: dir, cwd: join(dir, 'project') });
    expect(await main(['setup', 'codex', '--config-dir', broken], t.io)).toBe(1);
    expect(readFileSync(join(broken, 'config.toml'), 'utf8')).toBe('[mcp_servers.big\ncommand = "node"\n');
  });

  it('a real session: the 500 KB MCP result reaches the model as preview and notice under 10 KiB, spill_grep finds the needle, a small output is unchanged', () => {
    const record = runHostSession({
      api: 'openai-responses',
      dir,
      cwd: join(dir, 'project'),
      command: [process.execPath, CODEX, 'exec', '--skip-git-repo-check', '--json', '-c', 'model_providers.fake.base_url="http://127.0.0.1:{PORT}/v1"', 'Run the scripted tools.'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, CODEX_HOME: join(dir, 'codex'), FAKE_OPENAI_KEY: 'sk-fake-key-for-tests' },
      steps: [
        { name: 'get_big', namespace: 'mcp__big', args: {} },
        { name: 'spill_grep', namespace: 'mcp__big', args: { locator: '{LOCATOR}', pattern: 'MCP-NEEDLE-31337' } },
        { name: 'exec_command', args: { cmd: 'echo small-output-ok' } },
      ],
    });
    expect(record.results, `${record.stderr}\n${record.stdout}`).toHaveLength(3);
    const [mcp, grep, small] = record.results as [string, string, string];
    expect(mcp).toMatch(/\(Omitted \d+ bytes\. Full formatted result stored at: /);
    expect(mcp).not.toContain(MCP_NEEDLE);
    expect(mcp).not.toMatch(/truncated/i);
    expect(Buffer.byteLength(mcp)).toBeLessThanOrEqual(CAP + 200);
    expect(grep).toContain(MCP_NEEDLE);
    expect(small).toContain('small-output-ok');
  }, 300_000);

  it('spillway audit reads the rollout Codex recorded: every line, every tool', async () => {
    const t = testIO({ homedir: dir, env: { CODEX_HOME: join(dir, 'codex') } });
    expect(await main(['audit', '--host', 'codex', '--json'], t.io)).toBe(0);
    const report = JSON.parse(t.stdout.text()) as { skippedLines: number; callsWithoutOutput: number; sessions: unknown[]; tools: { name: string }[] };
    expect(report.skippedLines).toBe(0);
    expect(report.callsWithoutOutput).toBe(0);
    expect(report.sessions).toHaveLength(1);
    expect(report.tools.map((x) => x.name).sort()).toEqual(['big/get_big', 'big/spill_grep', 'exec_command']);
  });

  it('spillway stats answers from the session; undo after it leaves the config as it was', async () => {
    // Codex hands an MCP server only HOME, PATH and a few others: the proxy logs under HOME.
    const t = testIO({ homedir: dir, env: {} });
    expect(await main(['stats', '--json'], t.io)).toBe(0);
    console.log(`codex session stats: ${t.stdout.text()}`);
    const stats = JSON.parse(t.stdout.text()) as { total: { spilled: number; readBack: { artifacts: number } } };
    expect(stats.total.spilled).toBe(1);
    expect(stats.total.readBack.artifacts).toBe(1);
    expect((await setup('--undo')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(CONFIG);
  });
});
