// Runs the proxy on this process's stdin/stdout through the public API, as an embedding
// would: `node proxy-main.mjs '<json options>'`. The tests spawn it as their MCP server.
import { createLocalBackend } from '@spillway/local';
import { createMemoryBackend } from '@spillway/memory';
import { createSpillProxy } from '../dist/index.js';

const config = JSON.parse(process.argv[2] ?? '{}');
const proxy = createSpillProxy({
  upstream: config.upstream,
  backend: config.root === null ? undefined : config.root === 'memory' ? createMemoryBackend() : createLocalBackend({ root: config.root }),
  maxInlineBytes: config.maxInlineBytes,
  sessionId: config.sessionId,
  requestTimeoutMs: config.requestTimeoutMs,
  maxMessageBytes: config.maxMessageBytes,
});
try {
  await proxy.start();
} catch {
  // start() has answered the host and printed why.
}
const exit = await proxy.closed;
process.exitCode = exit.reason === 'upstream-closed' ? 1 : 0;
