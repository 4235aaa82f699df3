import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpillNotice } from '@spillway/policy/notice';
import { PROXY_MAIN, privateDir, serverScript } from './test-helpers.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const REPO = join(dirname(PROXY_MAIN), '..', '..', '..');
// The inspector's public entry point, its package's bin (what npx runs).
const inspectorDir = dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json'));
const inspectorBin = join(inspectorDir, (JSON.parse(await readFile(join(inspectorDir, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['mcp-inspector-cli'] ?? '');
// inspector-cli 1.0.3 finds its own package.json only from a folder whose parent holds one
// (docs/mcp.md says so); this package's test folder is such a folder.
const cwd = dirname(PROXY_MAIN);

/** The inspector commands of docs/mcp.md, as a user types them: the tool list, then a tool call. */
async function documentedCommands(): Promise<string[]> {
  const doc = await readFile(join(REPO, 'docs', 'mcp.md'), 'utf8');
  const blocks = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').filter((b) => b.includes('inspector-cli'));
  expect(blocks).toHaveLength(2);
  return blocks;
}

describe('an independent client: @modelcontextprotocol/inspector-cli', () => {
  let data: { path: string; remove: () => Promise<void> };
  let root: { path: string; remove: () => Promise<void> };

  beforeAll(async () => {
    data = await privateDir('spill-mcp-inspector-');
    root = await privateDir('spill-mcp-root-');
    await writeFile(join(data.path, 'numbers.txt'), `${Array.from({ length: 100_000 }, (_, i) => String(i + 1)).join('\n')}\n`);
  });

  afterAll(async () => {
    await data.remove();
    await root.remove();
  });

  it('runs the commands of docs/mcp.md as typed, offline: the tool list (spill_read and spill_grep first), and a call that spills', async () => {
    // A user's setup: `spillway` on PATH (as pnpm link-cli puts it), a ~/projects folder
    // with a large file; npx runs the inspector and the filesystem server installed here,
    // never downloading.
    const home = join(data.path, 'home');
    const bin = join(data.path, 'bin');
    await mkdir(join(home, 'projects'), { recursive: true });
    await writeFile(join(home, 'projects', 'big.log'), `${Array.from({ length: 100_000 }, (_, i) => `log line ${String(i + 1)}`).join('\n')}\n`);
    await mkdir(bin);
    await symlink(join(REPO, 'packages', 'spill-cli', 'bin', 'spillway.js'), join(bin, 'spillway'));
    const env = {
      PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: home,
      XDG_STATE_HOME: join(home, '.local', 'state'),
      npm_config_cache: join(home, '.npm'),
      npm_config_offline: 'true',
      npm_config_update_notifier: 'false',
    };
    const typed = async (block: string): Promise<unknown> => {
      const { stdout } = await run('sh', ['-ec', block], { cwd, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
      return JSON.parse(stdout) as unknown;
    };
    const [list, call] = await documentedCommands();
    const listed = (await typed(list ?? '')) as { tools: { name: string }[] };
    const names = listed.tools.map((t) => t.name);
    expect(names.slice(0, 2)).toEqual(['spill_read', 'spill_grep']);
    expect(names).toContain('read_text_file');
    const called = (await typed(call ?? '')) as { content: { text: string }[] };
    const text = called.content[0]?.text ?? '';
    expect(text.startsWith('log line 1\n')).toBe(true);
    // Stored under the user's state directory, where `spillway read` finds it.
    expect(parseSpillNotice(text)?.locator.startsWith(join(home, '.local', 'state', 'spillway'))).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThan(100 * 1024);
  }, 300_000);

  async function inspect(args: readonly string[]): Promise<unknown> {
    const config = JSON.stringify({ upstream: { command: process.execPath, args: [serverScript('server-filesystem'), data.path] }, root: root.path, maxInlineBytes: 4096 });
    // The server command line first: 1.0.3's entry point drops the `--` before handing the
    // arguments on, so a server command after a `--tool-arg` would be taken for more pairs.
    const { stdout } = await run(process.execPath, [inspectorBin, '--cli', process.execPath, PROXY_MAIN, config, ...args], { cwd, timeout: 60_000 });
    return JSON.parse(stdout) as unknown;
  }

  it('gets a large file back as a preview and notice, and greps the stored copy in another proxy process', async () => {
    const called = (await inspect(['--method', 'tools/call', '--tool-name', 'read_text_file', '--tool-arg', `path=${join(data.path, 'numbers.txt')}`])) as { content: { text: string }[] };
    const text = called.content[0]?.text ?? '';
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
    const locator = parseSpillNotice(text)?.locator ?? '';
    expect(locator).not.toBe('');
    const grep = (await inspect(['--method', 'tools/call', '--tool-name', 'spill_grep', '--tool-arg', `locator=${locator}`, '--tool-arg', 'pattern=^77777$'])) as { content: { text: string }[] };
    expect(grep.content[0]?.text).toContain('77777: 77777');
  });
});
