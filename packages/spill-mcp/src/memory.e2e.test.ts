import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpillNotice } from '@spillway/policy/notice';
import { connectProxy, privateDir, serverScript, textOf, type Host } from './test-helpers.js';

const CAP = 8 * 1024;

describe('server-memory through the proxy', () => {
  let data: { path: string; remove: () => Promise<void> };
  let root: { path: string; remove: () => Promise<void> };
  let host: Host;

  beforeAll(async () => {
    data = await privateDir('spill-mcp-memory-');
    root = await privateDir('spill-mcp-root-');
    const file = join(data.path, 'memory.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      lines.push(JSON.stringify({ type: 'entity', name: `entity-${String(i)}`, entityType: 'thing', observations: [`observation number ${String(i)} about a thing`] }));
    }
    lines.push(JSON.stringify({ type: 'relation', from: 'entity-1', to: 'entity-2', relationType: 'knows' }));
    await writeFile(file, `${lines.join('\n')}\n`);
    host = await connectProxy(
      { upstream: { command: process.execPath, args: [serverScript('server-memory')] }, root: root.path, maxInlineBytes: CAP },
      { MEMORY_FILE_PATH: file },
    );
  });

  afterAll(async () => {
    await host.close();
    await data.remove();
    await root.remove();
  });

  it('spills a large read_graph, drops its structuredContent, and the spilled copy holds every entity', async () => {
    const result = await host.client.request({ method: 'tools/call', params: { name: 'read_graph', arguments: {} } }, CallToolResultSchema);
    const text = textOf(result);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(CAP);
    expect(result.structuredContent).toBeUndefined();
    const locator = parseSpillNotice(text)?.locator ?? '';
    expect(locator).not.toBe('');
    const grep = await host.client.callTool({ name: 'spill_grep', arguments: { locator, pattern: 'entity-19999"', literal: true } });
    expect(grep.isError).toBeFalsy();
    expect(textOf(grep)).toMatch(/^\d+: .*entity-19999"/);
  });
});

describe('storage failure', () => {
  it('keeps the whole result when the backend cannot store it, and says so on stderr', async () => {
    const data = await privateDir('spill-mcp-memory-');
    const file = join(data.path, 'memory.jsonl');
    await writeFile(file, `${Array.from({ length: 500 }, (_, i) => JSON.stringify({ type: 'entity', name: `e${String(i)}`, entityType: 't', observations: ['o'] })).join('\n')}\n`);
    // A root that does not exist: the local backend refuses to save into it.
    const host = await connectProxy(
      { upstream: { command: process.execPath, args: [serverScript('server-memory')] }, root: join(data.path, 'missing-root'), maxInlineBytes: 1024 },
      { MEMORY_FILE_PATH: file },
    );
    try {
      const result = await host.client.request({ method: 'tools/call', params: { name: 'read_graph', arguments: {} } }, CallToolResultSchema);
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain('"e499"');
      expect(result.structuredContent).toBeDefined();
      // stderr is a separate pipe: the warning may arrive after the answer.
      await expect.poll(() => host.stderr(), { timeout: 60_000, interval: 50 }).toMatch(/was not spilled \(save-rejected\)/);
    } finally {
      await host.close();
      await data.remove();
    }
  });
});
