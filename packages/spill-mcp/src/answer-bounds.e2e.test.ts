// The shared bound on retrieval answers, run against the proxy's real tools: a proxy
// process (createSpillProxy on its stdin/stdout, in front of a real MCP server that returns
// the artifact), driven by the SDK's MCP client, as a host drives it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parseSpillNotice } from '@spillway/policy/notice';
import { DEFAULT_SPILL_ANSWER_BYTES, DEFAULT_SPILL_ANSWER_MATCHES } from '@spillway/tools';
import { toolAnswerArtifact, toolAnswerCases, type ToolSurface } from '@spillway/test-support/tool-answers';
import { afterAll, beforeAll, describe, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = pathToFileURL(join(packageDir, 'dist', 'index.js')).href;

// A real MCP server (the SDK's) with one tool that answers the text of a file.
const UPSTREAM = `
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const server = new Server({ name: 'rows', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'fetch_rows', inputSchema: { type: 'object' } }] }));
server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: readFileSync(process.env.ROWS_FILE, 'utf8') }] }));
await server.connect(new StdioServerTransport());
`;

// The proxy through its public API, with a memory backend, on this process's stdin/stdout.
const PROXY = `
import { createMemoryBackend } from '@spillway/memory';
import { createSpillProxy } from ${JSON.stringify(entry)};
const proxy = createSpillProxy({ upstream: JSON.parse(process.env.UPSTREAM), backend: createMemoryBackend(), stderr: null });
await proxy.start().catch(() => undefined);
await proxy.closed;
`;

describe('the MCP proxy answers spill_read and spill_grep within the shared bound', () => {
  let dir = '';
  let client: Client;
  let locator = '';
  const surface: ToolSurface = {
    async call(name, args) {
      const result = await client.callTool({ name, arguments: { ...args } });
      const content = result.content as { type: string; text?: string }[];
      return { text: content.map((block) => block.text ?? '').join(''), isError: result.isError === true };
    },
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spill-mcp-bounds-'));
    const rowsFile = join(dir, 'rows.txt');
    await writeFile(rowsFile, toolAnswerArtifact());
    const upstream = { command: process.execPath, args: ['--input-type=module', '-e', UPSTREAM], cwd: packageDir, env: { ...process.env, ROWS_FILE: rowsFile } };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--input-type=module', '-e', PROXY],
      cwd: packageDir,
      env: { ...(process.env as Record<string, string>), UPSTREAM: JSON.stringify(upstream) },
      stderr: 'pipe',
    });
    client = new Client({ name: 'bounds-host', version: '1.0.0' });
    await client.connect(transport);
    const fetched = await client.callTool({ name: 'fetch_rows', arguments: {} });
    const text = (fetched.content as { text?: string }[]).map((block) => block.text ?? '').join('');
    locator = parseSpillNotice(text)?.locator ?? '';
  }, 60_000);

  afterAll(async () => {
    await client.close();
    await rm(dir, { recursive: true, force: true });
  });

  for (const c of toolAnswerCases({ maxAnswerBytes: DEFAULT_SPILL_ANSWER_BYTES, maxMatches: DEFAULT_SPILL_ANSWER_MATCHES })) {
    it(c.name, () => c.run(surface, locator));
  }
});
