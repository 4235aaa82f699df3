import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpillNotice } from '@spillway/policy';
import { PROXY_MAIN, privateDir, serverScript } from './test-helpers.js';

const run = promisify(execFile);
const inspector = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'index.js');
// inspector-cli 1.0.3 runs on Node 20 when started from a folder whose parent holds a package.json.
const cwd = dirname(PROXY_MAIN);

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

  async function inspect(args: readonly string[]): Promise<unknown> {
    const config = JSON.stringify({ upstream: { command: process.execPath, args: [serverScript('server-filesystem'), data.path] }, root: root.path, maxInlineBytes: 4096 });
    // Everything after `--` is the server command line; one target word must come before it.
    const { stdout } = await run(process.execPath, [inspector, process.execPath, ...args, '--', PROXY_MAIN, config], { cwd, timeout: 60_000 });
    return JSON.parse(stdout) as unknown;
  }

  it('lists the tools with spill_read and spill_grep first', async () => {
    const listed = (await inspect(['--method', 'tools/list'])) as { tools: { name: string }[] };
    expect(listed.tools.slice(0, 2).map((t) => t.name)).toEqual(['spill_read', 'spill_grep']);
  });

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
