// A small MCP server built on the SDK's low-level Server (2025 era), for what the published
// servers do not do: a paginated tool list, a tool named like the proxy's own, large output,
// resources and prompts on demand, progress and the result in one write, malformed lines and
// dying mid-call. `node test-server.mjs stdio` serves on stdin/stdout; `node test-server.mjs
// http` serves Streamable HTTP on 127.0.0.1 and prints `listening <port>` on stdout.
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const TOOLS = [
  { name: 'big', description: 'Returns `lines` numbered lines.', inputSchema: { type: 'object', properties: { lines: { type: 'integer' } } } },
  { name: 'small', description: 'Returns a short text.', inputSchema: { type: 'object' } },
  { name: 'spill_read', description: 'An upstream tool that happens to share a name with the proxy.', inputSchema: { type: 'object' } },
  { name: 'garbage', description: 'Writes a malformed line, then answers.', inputSchema: { type: 'object' } },
  { name: 'die', description: 'Exits with status 7 in the middle of the call.', inputSchema: { type: 'object' } },
  { name: 'wait', description: 'Waits until cancelled (first sending progress 0 when asked for progress).', inputSchema: { type: 'object' } },
  { name: 'cancelled', description: 'Says how many wait calls were cancelled.', inputSchema: { type: 'object' } },
  { name: 'notify', description: 'Sends a tool-list change and a log message, then answers.', inputSchema: { type: 'object' } },
  { name: 'slow', description: 'Answers after `ms`, sending progress every 100 ms when asked to.', inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } } },
  { name: 'structured', description: 'Answers with structured content.', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
  { name: 'bigerror', description: 'Fails with a long error text.', inputSchema: { type: 'object' } },
  { name: 'headers', description: 'Echoes the request headers it received (HTTP only).', inputSchema: { type: 'object' } },
  { name: 'sample', description: 'Asks the host for a sampling/createMessage, whatever the host declared, and says what came back.', inputSchema: { type: 'object' } },
  { name: 'burst', description: 'Sends `n` progress notifications and the answer in one write.', inputSchema: { type: 'object', properties: { n: { type: 'integer' } } } },
];
const PAGE = 2;
let cancelledWaits = 0;

function makeServer() {
  const server = new Server({ name: 'test-server', version: '1.2.3', title: 'Test server' }, { capabilities: { tools: { listChanged: true }, logging: {}, resources: {}, prompts: {} }, instructions: 'Test instructions.' });
  const numbered = (n, word) => Array.from({ length: n }, (_, i) => `${word} ${i + 1} ${'z'.repeat(40)}`).join('\n');
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [{ uri: 'legacy://big', name: 'big' }, { uri: 'legacy://small', name: 'small' }] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const { uri } = request.params;
    if (uri !== 'legacy://big' && uri !== 'legacy://small') throw Object.assign(new Error(`no resource ${uri}`), { code: -32002 });
    return { contents: [{ uri, mimeType: 'text/plain', text: uri === 'legacy://big' ? numbered(5000, 'resource') : 'a small resource' }] };
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [{ name: 'big-prompt' }, { name: 'small-prompt' }] }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => ({
    messages: [{ role: 'user', content: { type: 'text', text: request.params.name === 'big-prompt' ? numbered(5000, 'prompt') : 'a small prompt' } }],
  }));
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start = Number(request.params?.cursor ?? '0');
    const end = start + PAGE;
    return { tools: TOOLS.slice(start, end), ...(end < TOOLS.length ? { nextCursor: String(end) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    switch (name) {
      case 'big': {
        const n = Number(args.lines ?? 1000);
        const lines = [];
        for (let i = 1; i <= n; i++) lines.push(`line ${i} ${'x'.repeat(40)}`);
        return { content: [{ type: 'text', text: lines.join('\n') }] };
      }
      case 'small':
        return { content: [{ type: 'text', text: 'small answer' }] };
      case 'spill_read':
        return { content: [{ type: 'text', text: 'the upstream spill_read' }] };
      case 'garbage':
        process.stdout.write('this is not json\n{"jsonrpc":"2.0","nonsense":true}\n');
        return { content: [{ type: 'text', text: 'after garbage' }] };
      case 'die':
        setTimeout(() => process.exit(7), 20);
        return new Promise(() => {});
      case 'wait': {
        // Tells a caller that asked for progress that the call has started here.
        const token = request.params._meta?.progressToken;
        if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 0 } });
        return new Promise((resolve) => {
          const cancelled = () => {
            cancelledWaits += 1;
            resolve({ content: [{ type: 'text', text: 'cancelled' }] });
          };
          // The cancellation can be handled before this handler runs.
          if (extra.signal.aborted) cancelled();
          else extra.signal.addEventListener('abort', cancelled);
        });
      }
      case 'cancelled':
        return { content: [{ type: 'text', text: String(cancelledWaits) }] };
      case 'notify':
        await server.sendToolListChanged();
        await server.sendLoggingMessage({ level: 'warning', data: 'a log line from upstream' });
        return { content: [{ type: 'text', text: 'notified' }] };
      case 'slow': {
        const ms = Number(args.ms ?? 1000);
        const token = request.params._meta?.progressToken;
        for (let t = 100; t <= ms; t += 100) {
          await new Promise((r) => setTimeout(r, 100));
          if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: t, total: ms } });
        }
        return { content: [{ type: 'text', text: `done after ${ms} ms` }] };
      }
      case 'structured':
        return { content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } };
      case 'bigerror':
        return { content: [{ type: 'text', text: `error detail\n`.repeat(5000) }], isError: true };
      case 'sample': {
        const answer = await extra
          .sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } }, CreateMessageResultSchema)
          .then((r) => `answered: ${JSON.stringify(r)}`, (error) => `refused: ${error.message}`);
        return { content: [{ type: 'text', text: answer }] };
      }
      case 'burst': {
        // One write holds every notification and the response, as a fast server's would.
        const token = request.params._meta?.progressToken;
        const n = Number(args.n ?? 300);
        const id = extra.requestId;
        const lines = [];
        for (let i = 1; i <= n && token !== undefined; i++) lines.push(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: i, total: n } }));
        lines.push(JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `sent ${n}` }] } }));
        process.stdout.write(`${lines.join('\n')}\n`);
        return new Promise(() => {});
      }
      case 'headers':
        return { content: [{ type: 'text', text: JSON.stringify(extra.requestInfo?.headers ?? {}) }] };
      default:
        return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true };
    }
  });
  return server;
}

if (process.argv[2] === 'http') {
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
    // Stateless: one server and transport per request.
    const server = makeServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  http.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening ${http.address().port}\n`);
  });
} else {
  await makeServer().connect(new StdioServerTransport());
}
