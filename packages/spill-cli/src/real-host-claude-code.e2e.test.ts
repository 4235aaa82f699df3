import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './test-bin.js';
import { BIG_MCP_SERVER, CLAUDE_CODE, claudeCodeSessionEnv, MCP_NEEDLE, realHostSkipReason, runHostSession, waitForBigServer, type SessionRecord } from './test-real-hosts.js';
import { main } from './main.js';
import { testIO } from './test-io.js';

const skip = realHostSkipReason();
/** About 2 MB of shell output with one needle line in the middle. */
const SHELL = '{ seq 1 150000; echo SHELL-NEEDLE-4242; seq 150001 300000; }';
const CAP = 24 * 1024;
/** About 2 MB on stdout, then the error on stderr, then a failing exit: the output the salient preview is for. */
const FAILING = '{ seq 1 300000; echo FAILED-AT-THE-END: the build broke >&2; exit 3; }';
/** Claude Code's cap for a failing command's preview (it keeps only about 10,000 characters of one). */
const FAILURE_CAP = 9000;

describe.skipIf(skip !== undefined)(`Claude Code 2.1.328, offline, after spillway setup${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
  let dir: string;
  let config: string;
  let record: SessionRecord;
  const files = (): [string, string] => [join(config, '.claude.json'), join(config, 'settings.json')];
  const sessionEnv = (): Record<string, string> => claudeCodeSessionEnv(dir, config);
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
    mkdirSync(join(dir, 'project', 'sub'), { recursive: true });
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
    const prefix = (JSON.parse(readFileSync(files()[1], 'utf8')) as { env: Record<string, string> }).env.CLAUDE_CODE_SHELL_PREFIX ?? '';
    expect(readFileSync(prefix, 'utf8')).toContain('--max-inline-bytes-on-failure 9000');
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
      command: [CLAUDE_CODE, '-p', 'Run the scripted tools.', '--output-format', 'json', '--allowedTools', 'Bash,mcp__big__get_big,mcp__big__spill_grep'],
      env: sessionEnv(),
      steps: [
        { name: 'Bash', args: { command: SHELL, description: 'print a long listing' } },
        waitForBigServer('Bash', join(dir, 'big-ready')),
        { name: 'mcp__big__get_big', args: {} },
        { name: 'mcp__big__spill_grep', args: { locator: '{LOCATOR}', pattern: 'MCP-NEEDLE-31337' } },
        { name: 'Bash', args: { command: 'echo small-output-ok', description: 'print a word' } },
        { name: 'Bash', args: { command: FAILING, description: 'run a failing build' } },
        { name: 'Bash', args: { command: 'cd sub', description: 'enter a folder' } },
        { name: 'Bash', args: { command: 'pwd; echo small-error >&2; exit 2', description: 'fail small' } },
      ],
    });
    expect(record.results, record.stderr).toHaveLength(8);
    expect(record.results[1]).toBe('waited');
    const [shell, , mcp, grep, small, failing, cd, smallFailure] = record.results as [string, string, string, string, string, string, string, string];

    expect(Buffer.byteLength(shell)).toBeLessThanOrEqual(CAP + 200);
    expect(shell).not.toContain('<persisted-output>');
    const shellLocator = /stored at: (\S+?)\. /.exec(shell)?.[1] ?? '';
    expect(readFileSync(shellLocator, 'utf8')).toBe(execFileSync('sh', ['-c', SHELL], { encoding: 'utf8', maxBuffer: 1 << 26 }));

    expect(Buffer.byteLength(mcp)).toBeLessThanOrEqual(CAP + 200);
    expect(mcp).toMatch(/\(Omitted \d+ bytes\. Full formatted result stored at: /);
    expect(mcp).not.toContain(MCP_NEEDLE);
    expect(grep).toContain(MCP_NEEDLE);
    expect(small.trim()).toBe('small-output-ok');

    // A failing command: Claude Code fires no output hook for it, so it runs through the
    // shell prefix. The model gets the exit code, the preview (with the error that comes
    // after 2 MB) and the notice, inside what Claude Code keeps of a failure.
    expect(failing.startsWith('Exit code 3\n')).toBe(true);
    expect(Buffer.byteLength(failing)).toBeLessThanOrEqual(FAILURE_CAP + 100);
    expect(failing).not.toContain('characters truncated');
    expect(failing).toContain('FAILED-AT-THE-END: the build broke');
    const failingLocator = /stored at: (\S+?)\. /.exec(failing)?.[1] ?? '';
    expect(readFileSync(failingLocator, 'utf8')).toBe(execFileSync('sh', ['-c', `${FAILING.replace('exit 3', 'true')} 2>&1`], { encoding: 'utf8', maxBuffer: 1 << 26 }));
    // The working directory carries over, and a small failure reads as it did without spillway.
    expect(cd).toBe('(Bash completed with no output)');
    expect(smallFailure).toBe(`Exit code 2\n${join(dir, 'project', 'sub')}\nsmall-error`);
  }, 300_000);

  it('permission rules still match the command as typed: an allowed one runs, another is refused', () => {
    const rules = runHostSession({
      api: 'anthropic',
      dir,
      cwd: join(dir, 'project'),
      command: [CLAUDE_CODE, '-p', 'Run the scripted tools.', '--output-format', 'json', '--settings', JSON.stringify({ permissions: { allow: ['Bash(seq:*)'] } })],
      env: sessionEnv(),
      steps: [
        { name: 'Bash', args: { command: 'seq 1 3', description: 'count' } },
        { name: 'Bash', args: { command: `touch ${join(dir, 'outside-the-project')}`, description: 'touch a file' } },
      ],
    });
    expect(rules.results, rules.stderr).toHaveLength(2);
    expect(rules.results[0]).toBe('1\n2\n3');
    expect(rules.results[1]).toContain('needs approval');
    expect(existsSync(join(dir, 'outside-the-project'))).toBe(false);
  }, 300_000);

  it('spillway stats answers from the session', async () => {
    const t = testIO({ homedir: dir, env: { SPILLWAY_USAGE_DIR: join(dir, 'usage') } });
    expect(await main(['stats', '--json'], t.io)).toBe(0);
    const stats = JSON.parse(t.stdout.text()) as { total: { results: number; spilled: number; bytesKeptOut: number; readBack: { artifacts: number } } };
    console.log(`claude-code session stats: ${t.stdout.text()}`);
    // The 2 MB output, the MCP result and the failing command.
    expect(stats.total.spilled).toBe(3);
    expect(stats.total.results).toBeGreaterThanOrEqual(3);
    expect(stats.total.readBack.artifacts).toBe(1);
  });

  it('spillway audit reads the transcripts Claude Code recorded: every line, every tool', async () => {
    const t = testIO({ homedir: dir, env: { CLAUDE_CONFIG_DIR: config } });
    expect(await main(['audit', '--json', '--cap', '4096'], t.io)).toBe(0);
    const report = JSON.parse(t.stdout.text()) as { skippedLines: number; callsWithoutOutput: number; total: { calls: number; spilled: number }; tools: { name: string }[]; servers: { name: string }[] };
    expect(report.skippedLines).toBe(0);
    expect(report.callsWithoutOutput).toBe(0);
    expect(report.tools.map((x) => x.name).sort()).toEqual(['Bash', 'big/get_big', 'big/spill_grep']);
    expect(report.servers.map((x) => x.name)).toEqual(['big']);
    // The outputs were already spilled to previews of up to 24 KiB: the MCP preview is over 4 KiB.
    expect(report.total.spilled).toBeGreaterThanOrEqual(1);
  });

  it('undo after the session keeps what Claude Code wrote and removes only spillway', async () => {
    const undo = await setup('--undo');
    expect(undo.code, undo.out).toBe(0);
    const main_ = readFileSync(files()[0], 'utf8');
    const settings = readFileSync(files()[1], 'utf8');
    expect(main_ + settings).not.toContain('spillway');
    expect(settings).toContain('"theme": "dark"');
    expect((JSON.parse(main_) as { mcpServers: { big: { command: string } } }).mcpServers.big.command).toBe('node');
  });
});
