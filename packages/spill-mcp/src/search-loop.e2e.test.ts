// spill_search through the proxy as a host drives it: a proxy process (createSpillProxy
// with a searcher, on its stdin/stdout, over a local root) in front of a real MCP server,
// driven by the SDK's MCP client. The agent's loop spills three outputs, searches across
// them without a locator and reads around the hit; the notice names spill_search; and each
// request of the shared contract answers what the shared run answers over the same root.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { retrievalHintFor } from '@spillway/core/notice';
import { createLocalBackend } from '@spillway/local';
import { parseSpillNotice } from '@spillway/policy/notice';
import { spillSearchTool } from '@spillway/tools';
import { createBackendSearch, type SpillSearch } from '@spillway/search';
import { expectSameSearchAnswers, SEARCH_SESSION, searchFixture, sharedSearchRun } from '@spillway/test-support/search-answers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = pathToFileURL(join(packageDir, 'dist', 'index.js')).href;

// A real MCP server (the SDK's) whose one tool answers the text of a named file.
const UPSTREAM = `
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const server = new Server({ name: 'outputs', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'fetch_output', inputSchema: { type: 'object', properties: { name: { type: 'string' } } } }] }));
server.setRequestHandler(CallToolRequestSchema, (r) => ({ content: [{ type: 'text', text: readFileSync(join(process.env.OUTPUTS, r.params.arguments.name), 'utf8') }] }));
await server.connect(new StdioServerTransport());
`;

// The proxy through its public API: a local root, a searcher over it, one session.
const PROXY = `
import { createLocalBackend } from '@spillway/local';
import { createBackendSearch } from '@spillway/search';
import { createSpillProxy } from ${JSON.stringify(entry)};
const backend = createLocalBackend({ root: process.env.ROOT });
const search = await createBackendSearch(backend);
const proxy = createSpillProxy({ upstream: JSON.parse(process.env.UPSTREAM), backend, sessionId: process.env.SESSION, maxInlineBytes: 4096, search, stderr: null });
await proxy.start().catch(() => undefined);
await proxy.closed;
await search.close();
`;

function textOf(result: unknown): string {
  return (((result as { content?: unknown }).content ?? []) as { text?: string }[]).map((block) => block.text ?? '').join('');
}

describe('spill_search through the MCP proxy, driven by a real MCP client', () => {
  let dir = '';
  let root = '';
  let client: Client;
  let shared: SpillSearch;
  const notices: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spill-mcp-search-'));
    root = join(dir, 'root');
    await mkdir(root, { mode: 0o700 });
    await chmod(root, 0o700);
    const outputs = join(dir, 'outputs');
    await mkdir(outputs);
    for (const a of searchFixture()) await writeFile(join(outputs, a.name), a.content);
    const upstream = { command: process.execPath, args: ['--input-type=module', '-e', UPSTREAM], cwd: packageDir, env: { ...process.env, OUTPUTS: outputs } };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--input-type=module', '-e', PROXY],
      cwd: packageDir,
      env: { ...(process.env as Record<string, string>), UPSTREAM: JSON.stringify(upstream), ROOT: root, SESSION: SEARCH_SESSION },
      stderr: 'pipe',
    });
    client = new Client({ name: 'search-host', version: '1.0.0' });
    await client.connect(transport);
    for (const a of searchFixture()) notices.push(textOf(await client.callTool({ name: 'fetch_output', arguments: { name: a.name } })));
    // The shared run, over the same root, with an index of its own.
    shared = await createBackendSearch(createLocalBackend({ root }), { location: ':memory:' });
  }, 60_000);

  afterAll(async () => {
    await client.close();
    await shared.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('offers spill_search with the shared name, description and arguments', async () => {
    const { tools } = await client.listTools();
    const offered = tools.find((t) => t.name === 'spill_search');
    expect(offered?.description).toBe(spillSearchTool.description);
    expect(offered?.inputSchema).toEqual(spillSearchTool.inputSchema);
  });

  it('spills each output with a notice that names spill_search', () => {
    for (const notice of notices) {
      expect(parseSpillNotice(notice)?.retrievalHint).toBe(retrievalHintFor('spill-tools-and-search'));
    }
  });

  it('the loop: spill_search finds the line without a locator, and spill_read follows the hit', async () => {
    const found = textOf(await client.callTool({ name: 'spill_search', arguments: { query: 'disk quota exceeded' } }));
    expect(Buffer.byteLength(found)).toBeLessThanOrEqual(4096);
    const m = /^\[1\] (\S+) lines? (\d+)/m.exec(found);
    expect(m).not.toBeNull();
    const back = await client.callTool({ name: 'spill_read', arguments: { locator: m?.[1] ?? '', offset: Number(m?.[2]), limit: 20 } });
    expect(back.isError).not.toBe(true);
    expect(textOf(back)).toContain('FATAL disk quota exceeded on shard 17 (ENOSPC)');
    const bad = await client.callTool({ name: 'spill_search', arguments: { query: 42 } });
    expect(bad.isError).toBe(true);
  });

  it('answers each request of the shared contract as the shared run does over the same root', async () => {
    await expectSameSearchAnswers(
      async (args) => {
        const result = await client.callTool({ name: 'spill_search', arguments: { ...args } });
        return { text: textOf(result), isError: result.isError === true };
      },
      sharedSearchRun(shared),
    );
  });
});
