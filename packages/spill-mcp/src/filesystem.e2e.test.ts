import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpillNotice } from '@spillway/policy/notice';
import { connectHost, connectProxy, privateDir, serverScript, textOf, type Host } from './test-helpers.js';

const CAP = 16 * 1024;

describe('server-filesystem through the proxy', () => {
  let data: { path: string; remove: () => Promise<void> };
  let root: { path: string; remove: () => Promise<void> };
  let host: Host;
  let bigFile: string;

  beforeAll(async () => {
    data = await privateDir('spill-mcp-fs-');
    root = await privateDir('spill-mcp-root-');
    bigFile = join(data.path, 'big.log');
    // About 12 MB of numbered lines, one of them unique.
    const lines: string[] = [];
    for (let i = 1; i <= 200_000; i++) lines.push(i === 123_457 ? 'NEEDLE-4242 the one line to find' : `line ${String(i)} ${'y'.repeat(50)}`);
    await writeFile(bigFile, `${lines.join('\n')}\n`);
    await writeFile(join(data.path, 'small.txt'), 'hello from a small file\n');
    host = await connectProxy({ upstream: { command: process.execPath, args: [serverScript('server-filesystem'), data.path] }, root: root.path, maxInlineBytes: CAP });
  });

  afterAll(async () => {
    await host.close();
    await data.remove();
    await root.remove();
  });

  it('mirrors the server and adds spill_read and spill_grep with the Claude Code size hint', async () => {
    expect(host.client.getServerVersion()?.name).toContain('filesystem');
    const { tools } = await host.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names.slice(0, 2)).toEqual(['spill_read', 'spill_grep']);
    expect(names).toContain('read_text_file');
    for (const tool of tools.slice(0, 2)) expect(tool._meta?.['anthropic/maxResultSizeChars']).toBeGreaterThan(1000);
    // Any result may be spilled, and a spilled one has no structuredContent.
    expect(tools.every((t) => t.outputSchema === undefined)).toBe(true);
  });

  it('the same read kills a bare SDK stdio connection (10 MiB message limit)', async () => {
    expect((await stat(bigFile)).size).toBeGreaterThan(12_000_000);
    const direct = await connectHost(process.execPath, [serverScript('server-filesystem'), data.path], {}, 10 * 1024 * 1024); // the SDK's default
    try {
      const call = direct.client.request({ method: 'tools/call', params: { name: 'read_text_file', arguments: { path: bigFile } } }, CallToolResultSchema);
      await expect(call).rejects.toThrow(/Connection closed/);
    } finally {
      await direct.close();
    }
  });

  it('spills a 12 MB read_text_file into a preview and notice within the cap, and spill_grep finds the unique line', async () => {
    const result = await host.client.request(
      { method: 'tools/call', params: { name: 'read_text_file', arguments: { path: bigFile } } },
      CallToolResultSchema,
    );
    const text = textOf(result);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(CAP);
    expect(result.structuredContent).toBeUndefined();
    expect(result.isError).toBeFalsy();
    expect(text.startsWith('line 1 ')).toBe(true);
    const notice = parseSpillNotice(text);
    expect(notice).toBeDefined();
    const locator = notice?.locator ?? '';
    expect(locator.startsWith(root.path)).toBe(true);

    const grep = await host.client.callTool({ name: 'spill_grep', arguments: { locator, pattern: 'NEEDLE-\\d+' } });
    expect(grep.isError).toBeFalsy();
    expect(textOf(grep)).toContain('123457: NEEDLE-4242 the one line to find');

    const read = await host.client.callTool({ name: 'spill_read', arguments: { locator, offset: 123_457, limit: 1 } });
    expect(textOf(read).startsWith('NEEDLE-4242 the one line to find\n')).toBe(true);
  });

  it('passes the server\'s stderr through to its own', async () => {
    // stderr is a separate pipe: polled with a budget a loaded machine never needs.
    await expect.poll(() => host.stderr(), { timeout: 60_000, interval: 50 }).toContain('Secure MCP Filesystem Server');
  });

  it('answers a bad locator with a tool error, not a failure', async () => {
    const result = await host.client.callTool({ name: 'spill_read', arguments: { locator: '/etc/passwd' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/SPILL_INVALID_LOCATOR|SPILL_NOT_FOUND/);
  });

  it('passes a small result byte for byte as the server gives it', async () => {
    const direct = await connectHost(process.execPath, [serverScript('server-filesystem'), data.path]);
    try {
      const call = { method: 'tools/call' as const, params: { name: 'read_text_file', arguments: { path: join(data.path, 'small.txt') } } };
      const viaProxy = await host.client.request(call, CallToolResultSchema);
      const straight = await direct.client.request(call, CallToolResultSchema);
      expect(JSON.stringify(viaProxy)).toBe(JSON.stringify(straight));
      expect(viaProxy.structuredContent).toBeDefined();
    } finally {
      await direct.close();
    }
  });
});
