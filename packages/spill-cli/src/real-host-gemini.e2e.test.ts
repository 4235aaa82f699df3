import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEMINI_FAILED_PREFIX, GEMINI_PREFIX } from '@spillway/hosts/hook';
import { ensureBuilt } from './test-bin.js';
import { BIG_MCP_SERVER, GEMINI_READ_FILE_CUTS, HOSTS_CACHE, MCP_NEEDLE, realHostSkipReason, runHostSession } from './test-real-hosts.js';
import { main } from './main.js';
import { testIO } from './test-io.js';

const skip = realHostSkipReason();
const GEMINI = join(HOSTS_CACHE, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
/** About 2 MB of shell output with one needle line in the middle. */
const SHELL = '{ seq 1 150000; echo SHELL-NEEDLE-4242; seq 150001 300000; }';
const CAP = 32 * 1024;
/** About 2 MB on stdout, then the error on stderr, then a failing exit. */
const FAILING = '{ seq 1 300000; echo FAILED-AT-THE-END: the build broke >&2; exit 3; }';

const SETTINGS = `{
  // written by the test, as a person would
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "general": { "disableAutoUpdate": true, "disableUpdateNag": true },
  "telemetry": { "enabled": false },
  "privacy": { "usageStatisticsEnabled": false },
  "mcpServers": {
    "big": { "command": "node", "args": [${JSON.stringify(BIG_MCP_SERVER)}], "trust": true }
  }
}
`;

describe.skipIf(skip !== undefined)(`Gemini CLI 0.61.0, offline, after spillway setup${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
  let dir: string;
  let settings: string;
  const setup = async (...args: string[]): Promise<{ code: number; out: string }> => {
    const t = testIO({ homedir: dir, cwd: join(dir, 'project') });
    const code = await main(['setup', 'gemini', ...args], t.io);
    return { code, out: t.stdout.text() };
  };

  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'real-gemini-'));
    mkdirSync(join(dir, '.gemini'));
    mkdirSync(join(dir, 'project'));
    settings = join(dir, '.gemini', 'settings.json');
    writeFileSync(settings, SETTINGS);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('setup, undo right after it gives the bytes back, setup again; a broken config is refused', async () => {
    expect((await setup()).code).toBe(0);
    expect(readFileSync(settings, 'utf8')).toContain('// written by the test, as a person would');
    expect((await setup('--undo')).code).toBe(0);
    expect(readFileSync(settings, 'utf8')).toBe(SETTINGS);
    expect((await setup()).out).toContain('cap 32768 bytes');

    const broken = join(dir, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'settings.json'), '{ "mcpServers": { ');
    const t = testIO({ homedir: dir, cwd: join(dir, 'project') });
    expect(await main(['setup', 'gemini', '--config-dir', broken], t.io)).toBe(1);
    expect(readFileSync(join(broken, 'settings.json'), 'utf8')).toBe('{ "mcpServers": { ');
  });

  it('a real session: the shell output through the hook (as the result of read_file), the MCP result through the proxy, spill_grep, a small output unchanged', () => {
    const record = runHostSession({
      api: 'gemini',
      dir,
      cwd: join(dir, 'project'),
      command: [process.execPath, GEMINI, '-p', 'Run the scripted tools.', '--output-format', 'json', '--yolo', '-m', 'gemini-2.5-pro'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dir,
        GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:{PORT}',
        GEMINI_API_KEY: 'fake-gemini-key-for-tests',
        XDG_STATE_HOME: join(dir, 'state'),
        SPILLWAY_USAGE_DIR: join(dir, 'usage'),
        NO_BROWSER: '1',
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
      },
      steps: [
        { name: 'run_shell_command', args: { command: SHELL } },
        { name: 'mcp_big_get_big', args: {} },
        { name: 'mcp_big_spill_grep', args: { locator: '{LOCATOR}', pattern: 'MCP-NEEDLE-31337' } },
        { name: 'run_shell_command', args: { command: 'echo small-output-ok' } },
        { name: 'run_shell_command', args: { command: FAILING } },
      ],
    });
    expect(record.results, `${record.stderr}\n${record.stdout}`).toHaveLength(5);
    const [shell, mcp, grep, small, failing] = record.results as [string, string, string, string, string];
    // A failing command: AfterTool fires for it too; the preview keeps the error printed after
    // 2 MB and the exit code. It comes as read_file's own result (a tail call to read the
    // preview from the project's temp directory), not as an error.
    const failingText = (JSON.parse(failing) as { output?: string }).output ?? '';
    expect(failing).not.toContain(GEMINI_FAILED_PREFIX.trim());
    expect(failingText).toContain('FAILED-AT-THE-END: the build broke');
    expect(failingText).toContain('Exit Code: 3');
    expect(Buffer.byteLength(failingText)).toBeLessThanOrEqual(CAP + 200);
    console.log(`gemini, bytes the model got: a 2 MB shell output ${String(Buffer.byteLength(shell))}, a 2 MB failing one ${String(Buffer.byteLength(failing))}; start: ${shell.slice(0, 300)}`);

    // read_file showed the whole preview: nothing cut, nothing taken for binary.
    for (const cut of GEMINI_READ_FILE_CUTS) {
      expect(shell).not.toContain(cut);
      expect(failing).not.toContain(cut);
    }
    const shellText = JSON.parse(shell) as { error?: string; output?: string };
    expect(shellText.error).toBeUndefined();
    expect(shell).not.toContain(GEMINI_PREFIX.trim());
    expect(shellText.output).toMatch(/\(Omitted \d+ bytes\. Full formatted result stored at: /);
    expect(Buffer.byteLength(shellText.output ?? '')).toBeLessThanOrEqual(CAP);
    const shellLocator = /stored at: (\S+?)\. /.exec(shellText.output ?? '')?.[1] ?? '';
    expect(readFileSync(shellLocator, 'utf8')).toContain(execFileSync('sh', ['-c', SHELL], { encoding: 'utf8', maxBuffer: 1 << 26 }).trimEnd());

    expect(mcp).toMatch(/Omitted \d+ bytes\. Full formatted result stored at: /);
    expect(mcp).not.toContain(MCP_NEEDLE);
    expect(Buffer.byteLength(mcp)).toBeLessThanOrEqual(CAP + 2000);
    expect(grep).toContain(MCP_NEEDLE);
    expect(small).toContain('small-output-ok');
    expect(small).not.toContain('spillway');
  }, 300_000);

  it('spillway stats answers from the session; undo after it keeps what Gemini CLI wrote', async () => {
    const t = testIO({ homedir: dir, env: { SPILLWAY_USAGE_DIR: join(dir, 'usage') } });
    expect(await main(['stats', '--json'], t.io)).toBe(0);
    console.log(`gemini session stats: ${t.stdout.text()}`);
    const stats = JSON.parse(t.stdout.text()) as { total: { spilled: number; readBack: { artifacts: number } } };
    // The 2 MB output, the MCP result and the failing command.
    expect(stats.total.spilled).toBe(3);
    expect(stats.total.readBack.artifacts).toBe(1);
    expect((await setup('--undo')).code).toBe(0);
    const after = readFileSync(settings, 'utf8');
    expect(after).not.toContain('spillway');
    expect(after).toContain('"trust": true');
  });

  it('spillway audit reads the chat Gemini CLI recorded: every line, every tool', async () => {
    const t = testIO({ homedir: dir, env: {} });
    expect(await main(['audit', '--host', 'gemini', '--json'], t.io)).toBe(0);
    const report = JSON.parse(t.stdout.text()) as { skippedLines: number; callsWithoutOutput: number; sessions: unknown[]; tools: { name: string }[] };
    expect(report.skippedLines).toBe(0);
    expect(report.callsWithoutOutput).toBe(0);
    expect(report.sessions).toHaveLength(1);
    expect(report.tools.map((x) => x.name).sort()).toEqual(['big/get_big', 'big/spill_grep', 'run_shell_command']);
  });
});
