import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './test-bin.js';
import { BIG_MCP_SERVER, HOSTS_CACHE, MCP_NEEDLE, realHostSkipReason, runHostSession } from './test-real-hosts.js';
import { main } from './main.js';
import { testIO } from './test-io.js';

/** OpenCode's grep and glob run ripgrep from PATH, and download it when it is missing, which fails offline. */
const ripgrepMissing = spawnSync('rg', ['--version']).status !== 0 ? 'ripgrep (rg) is not on PATH, and OpenCode cannot download it offline: apt-get install ripgrep' : undefined;
const skip = realHostSkipReason() ?? ripgrepMissing;
const OPENCODE = join(HOSTS_CACHE, 'node_modules', 'opencode-linux-x64', 'bin', 'opencode');
const CAP = 16 * 1024;
const ERROR = 'error: the build broke at step 9';

const CONFIG = `{
  // OpenCode configuration, as a person writes it
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Fake",
      "options": { "baseURL": "{env:FAKE_BASE_URL}", "apiKey": "fake-key-for-tests" },
      "models": { "fake-model": { "name": "Fake model", "tool_call": true } },
    },
  },
  "model": "fake/fake-model",
  "permission": { "bash": "allow" },
  "mcp": {
    "big": { "type": "local", "command": ["node", ${JSON.stringify(BIG_MCP_SERVER)}], "enabled": true },
  },
}
`;

describe.skipIf(skip !== undefined)(`OpenCode 1.18.33, offline, after spillway setup${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
  let dir: string;
  let home: string;
  let file: string;
  const setup = async (...args: string[]): Promise<{ code: number; out: string }> => {
    const t = testIO({ homedir: home, cwd: join(dir, 'project'), env: { XDG_CONFIG_HOME: join(home, '.config') } });
    const code = await main(['setup', 'opencode', ...args], t.io);
    return { code, out: t.stdout.text() };
  };

  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'real-opencode-'));
    home = join(dir, 'home');
    mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
    mkdirSync(join(dir, 'project'));
    // For grep, glob and list: 100 files under long names, each with long matching lines.
    // OpenCode's grep and glob run ripgrep from PATH (they download it when it is missing,
    // which fails offline; .ci/run installs Debian's).
    const tree = join(dir, 'project', 'tree');
    for (let d = 0; d < 10; d++) {
      const sub = join(tree, `folder-${String(d)}-`.padEnd(200, 'f'));
      mkdirSync(sub, { recursive: true });
      for (let f = 0; f < 10; f++) {
        writeFileSync(join(sub, `${`file-${String(f)}-`.padEnd(200, 'g')}.txt`), Array.from({ length: 20 }, (_, i) => `line ${String(i)} NEEDLE in ${String(d)}/${String(f)} ${'z'.repeat(900)}`).join('\n'));
      }
    }
    file = join(home, '.config', 'opencode', 'opencode.jsonc');
    writeFileSync(file, CONFIG);
    // What OpenCode's first start online leaves in its config directory. Without it, every
    // start installs @opencode-ai/plugin there first, and offline that takes about 70 s of
    // retries before it gives up (on a loaded machine, past the session's time limit).
    mkdirSync(join(home, '.config', 'opencode', 'node_modules'));
    writeFileSync(join(home, '.config', 'opencode', 'package-lock.json'), `${JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } })}\n`);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('setup, undo right after it gives the bytes back, setup again; a broken config is refused', async () => {
    expect((await setup()).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('// OpenCode configuration, as a person writes it');
    expect((await setup('--undo')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(CONFIG);
    expect((await setup()).out).toContain('cap 16384 bytes');
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'opencode.json'), '{ "mcp": { "big": ');
    const t = testIO({ homedir: home, cwd: join(dir, 'project') });
    expect(await main(['setup', 'opencode', '--config-dir', broken], t.io)).toBe(1);
    expect(readFileSync(join(broken, 'opencode.json'), 'utf8')).toBe('{ "mcp": { "big": ');
  });

  it('a real session: the 500 KB MCP result reaches the model as preview and notice, spill_grep finds the needle, a small output is unchanged', () => {
    const record = runHostSession({
      api: 'openai-chat',
      dir,
      cwd: join(dir, 'project'),
      command: [OPENCODE, 'run', '--format', 'json', 'Run the scripted tools.'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_DATA_HOME: join(home, '.local', 'share'),
        XDG_CACHE_HOME: join(home, '.cache'),
        XDG_STATE_HOME: join(home, '.local', 'state'),
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        FAKE_BASE_URL: 'http://127.0.0.1:{PORT}/v1',
      },
      steps: [
        { name: 'big_get_big', args: {} },
        { name: 'big_spill_grep', args: { locator: '{LOCATOR}', pattern: 'MCP-NEEDLE-31337' } },
        { name: 'bash', args: { command: 'echo small-output-ok', description: 'print a word' } },
        // A failing command's 1.9 MB output with its error in the middle: OpenCode alone keeps
        // its last 14 KB or so (the error is lost); spillway's plugin gives the preview.
        { name: 'bash', args: { command: `seq 1 150000; echo "${ERROR}"; seq 150001 300000; exit 3`, description: 'a long failing run' } },
        { name: 'grep', args: { pattern: 'NEEDLE', path: join(dir, 'project', 'tree') } },
        { name: 'glob', args: { pattern: '**/*.txt', path: join(dir, 'project', 'tree') } },
        { name: 'webfetch', args: { url: 'http://127.0.0.1:{PAGE_PORT}/page.txt', format: 'text' } },
      ],
      page: { body: Array.from({ length: 2000 }, (_, i) => `PAGE line ${String(i)} ${'p'.repeat(60)}`).join('\n') },
    });
    expect(record.results, `${record.stderr}\n${record.stdout}`).toHaveLength(7);
    const [mcp, grep, small, long, ...builtIn] = record.results as [string, string, string, string, string, string, string];
    // grep, glob and webfetch: each large output reaches the model as the preview of what OpenCode would have shown.
    for (const [tool, shown] of [['grep', builtIn[0]], ['glob', builtIn[1]], ['webfetch', builtIn[2]]] as const) {
      expect(shown, tool).toMatch(/\(Omitted \d+ bytes\. Full formatted result stored at: /);
      expect(Buffer.byteLength(shown), tool).toBeLessThanOrEqual(CAP + 200);
      const whole = readFileSync(/stored at: (\S+?)\. /.exec(shown)?.[1] ?? '', 'utf8');
      expect(whole, tool).toContain({ grep: 'NEEDLE in ', glob: 'file-', webfetch: 'PAGE line 1999 ' }[tool]);
      console.log(`opencode ${tool}: OpenCode's own output ${String(Buffer.byteLength(whole))} bytes, the model got ${String(Buffer.byteLength(shown))}`);
    }
    console.log(`opencode, a 1.9 MB failing bash output: ${String(Buffer.byteLength(long))} bytes reached the model through spillway's plugin (error line ${long.includes(ERROR) ? 'kept' : 'lost'})`);
    expect(long).toContain(ERROR);
    expect(long).toMatch(/\(Omitted \d+ bytes\. Full formatted result stored at: /);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(CAP + 200);
    const stored = /stored at: (\S+?)\. /.exec(long)?.[1] ?? '';
    expect(readFileSync(stored, 'utf8')).toContain(`150000\n${ERROR}\n150001\n`);
    expect(mcp).toMatch(/\(Omitted \d+ bytes\. Full formatted result stored at: /);
    expect(mcp).not.toContain(MCP_NEEDLE);
    expect(Buffer.byteLength(mcp)).toBeLessThanOrEqual(CAP);
    expect(grep).toContain(MCP_NEEDLE);
    expect(small).toBe('small-output-ok\n');
  }, 300_000);

  it('spillway stats answers from the session; undo after it keeps what OpenCode wrote', async () => {
    const t = testIO({ homedir: home, env: { XDG_STATE_HOME: join(home, '.local', 'state') } });
    expect(await main(['stats', '--json'], t.io)).toBe(0);
    console.log(`opencode session stats: ${t.stdout.text()}`);
    const stats = JSON.parse(t.stdout.text()) as { total: { spilled: number; readBack: { artifacts: number } } };
    // The MCP result (the proxy); the long bash output, grep, glob and webfetch (the plugin).
    expect(stats.total.spilled).toBe(5);
    expect(stats.total.readBack.artifacts).toBe(1);
    const plugin = join(home, '.config', 'opencode', 'plugin', 'spillway.js');
    expect(existsSync(plugin)).toBe(true);
    expect((await setup('--undo')).code).toBe(0);
    expect(existsSync(plugin)).toBe(false);
    const after = readFileSync(file, 'utf8');
    expect(after).not.toContain('spillway');
    expect(after).toContain('// OpenCode configuration, as a person writes it');
    // OpenCode added its own "$schema" during the session: that stays, the server is unwrapped.
    expect(after).toContain('"$schema"');
    expect(after.replace(/\s+/g, '')).toContain(`"command":["node",${JSON.stringify(BIG_MCP_SERVER)}]`);
  });
});
