// A minimal stdio MCP server (newline-delimited JSON-RPC) with one tool, get_big, that
// returns about 500 KB of text with one needle line in the middle.
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export const NEEDLE = 'MCP-NEEDLE-31337 is the line the preview leaves out';
const lines = [];
for (let i = 0; i < 12_000; i++) lines.push(i === 6000 ? NEEDLE : `record ${String(i).padStart(5, '0')}: ${'abcdefghij'.repeat(3)}`);
const big = `${lines.join('\n')}\n`;

function reply(id, result) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.id === undefined) return;
  switch (message.method) {
    case 'initialize':
      reply(message.id, { protocolVersion: message.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'big', version: '1.0.0' } });
      break;
    case 'tools/list':
      // A host that connects its servers in the background: the session waits for this file
      // (under HOME when the host passes the server no variable of its own, as Codex does).
      if (process.env.BIG_MCP_READY_FILE) writeFileSync(process.env.BIG_MCP_READY_FILE, 'listed\n');
      else if (process.env.HOME) writeFileSync(`${process.env.HOME}/big-ready`, 'listed\n');
      reply(message.id, { tools: [{ name: 'get_big', description: 'Returns the big report.', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } }] });
      break;
    case 'tools/call':
      reply(message.id, { content: [{ type: 'text', text: big }] });
      break;
    case 'ping':
      reply(message.id, {});
      break;
    default:
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } })}\n`);
  }
});
