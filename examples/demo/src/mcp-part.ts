import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { parseSpillNotice } from '@spillway/policy/notice';
import { NEEDLE, fetchedPage } from './data.js';

/** What the demo prints with: the walk-through's printer satisfies it. */
export interface McpPartPrinter {
  title(text: string): void;
  note(text: string): void;
  line(text?: string): void;
  model(text: string): void;
}

/** What the MCP round trip observed, for the demo's test. */
export interface McpPartSummary {
  /** The tools the host saw, in order. */
  readonly tools: readonly string[];
  /** The large read came back as a preview plus a notice within the cap. */
  readonly spilled: boolean;
  /** Size of what the host got for the large read. */
  readonly replacementBytes: number;
  /** `spill_grep` found the needle in the stored copy. */
  readonly needleFound: boolean;
}

function textOf(result: { readonly content: readonly { readonly type: string; readonly text?: string }[] }): string {
  return result.content.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');
}

/**
 * One MCP round trip: an SDK client (standing in for a host such as Claude Code) talks to
 * `spillway mcp`, which wraps the real `@modelcontextprotocol/server-filesystem`. A large
 * file read comes back as a preview plus a notice, and `spill_grep` finds a token in the
 * stored copy.
 */
export async function mcpPart(out: McpPartPrinter, tempDir: string, root: string, cap: number): Promise<McpPartSummary> {
  const require = createRequire(import.meta.url);
  const bin = join(dirname(require.resolve('@spillway/cli/package.json')), 'dist', 'bin.js');
  const server = join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');
  const data = join(tempDir, 'mcp-data');
  await mkdir(data, { mode: 0o700 });
  const file = join(data, 'page.html');
  await writeFile(file, fetchedPage());

  out.title('In any MCP host: spillway mcp wraps an MCP server');
  out.note(`host config: "command": "spillway", "args": ["mcp", "--max-inline-bytes", "${String(cap)}", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "<dir>"]`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', '--root', root, '--session', 'demo-mcp', '--max-inline-bytes', String(cap), '--', process.execPath, server, data],
    // The demo keeps its own state: its usage events stay in its temporary directory.
    env: { ...(process.env as Record<string, string>), SPILLWAY_USAGE_DIR: join(tempDir, 'usage'), NO_COLOR: '1' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'demo-host', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    out.line();
    out.line(`    tools/list → ${names.join(', ')}`);
    out.line();
    out.line(`    tools/call read_text_file { path: "${file}" }`);
    const result = await client.request({ method: 'tools/call', params: { name: 'read_text_file', arguments: { path: file } } }, CallToolResultSchema);
    const text = textOf(result);
    out.model(text);
    const locator = parseSpillNotice(text)?.locator;
    let needleFound = false;
    if (locator !== undefined) {
      out.line();
      out.line(`    tools/call spill_grep { locator, pattern: "${NEEDLE}" }`);
      const grep = await client.callTool({ name: 'spill_grep', arguments: { locator, pattern: NEEDLE, literal: true } });
      const answer = textOf(grep as { content: { type: string; text?: string }[] });
      out.model(answer);
      needleFound = grep.isError !== true && answer.includes(NEEDLE);
    }
    return { tools: names, spilled: locator !== undefined, replacementBytes: Buffer.byteLength(text), needleFound };
  } finally {
    await client.close();
  }
}
