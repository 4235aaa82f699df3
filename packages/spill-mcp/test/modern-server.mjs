// A 2026-era MCP server built on SDK v2 (`@modelcontextprotocol/server`) and served with
// `serveStdio`, which answers both eras from one factory. It has what the tests need on
// every path: small and large tool results, a large resource and a large prompt, progress,
// a call that waits until it is cancelled, and a failing call.
import { fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const object = (properties = {}) => fromJsonSchema({ type: 'object', properties });
const lines = (n, word) => Array.from({ length: n }, (_, i) => `${word} ${i + 1} ${'y'.repeat(40)}`).join('\n');
let cancelled = 0;

serveStdio(() => {
  const server = new McpServer({ name: 'modern-test-server', version: '2.0.0' }, { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: 'Modern test instructions.' });
  server.registerTool('small', { description: 'A short text.', inputSchema: object() }, () => ({ content: [{ type: 'text', text: 'small modern answer' }] }));
  server.registerTool('big', { description: '`lines` numbered lines.', inputSchema: object({ lines: { type: 'integer' } }) }, ({ lines: n }) => ({
    content: [{ type: 'text', text: lines(n ?? 5000, 'tool') }],
  }));
  server.registerTool('fail', { description: 'Fails with isError.', inputSchema: object() }, () => ({ content: [{ type: 'text', text: 'it failed' }], isError: true }));
  server.registerTool('burst', { description: 'Sends `n` progress notifications, then answers at once.', inputSchema: object({ n: { type: 'integer' } }) }, async ({ n }, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    const count = n ?? 300;
    if (token !== undefined) for (let i = 1; i <= count; i++) void ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: count } });
    return { content: [{ type: 'text', text: `sent ${String(count)}` }] };
  });
  server.registerTool('wait', { description: 'Waits until cancelled.', inputSchema: object() }, (_args, ctx) => new Promise((resolve) => {
    ctx.mcpReq.signal.addEventListener('abort', () => {
      cancelled += 1;
      resolve({ content: [{ type: 'text', text: 'cancelled' }] });
    });
  }));
  server.registerTool('cancelled', { description: 'How many waits were cancelled.', inputSchema: object() }, () => ({ content: [{ type: 'text', text: String(cancelled) }] }));
  server.registerResource('big-resource', 'modern://big', { mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: lines(5000, 'resource') }] }));
  server.registerResource('small-resource', 'modern://small', { mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'a small resource' }] }));
  server.registerPrompt('big-prompt', { description: 'A long prompt.' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: lines(5000, 'prompt') } }] }));
  server.registerPrompt('small-prompt', { description: 'A short prompt.' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'a small prompt' } }] }));
  return server;
});
