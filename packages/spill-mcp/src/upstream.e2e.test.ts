import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { CallToolResultSchema, ListToolsResultSchema, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_SPILL_ANSWER_MATCHES } from '@spillway/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectProxy, PROXY_MAIN, privateDir, TEST_SERVER, textOf, type Host } from './test-helpers.js';

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const testServer = { command: process.execPath, args: [TEST_SERVER, 'stdio'] };
/** For what arrives on its own time (notifications, stderr): a budget a loaded machine never needs. */
const POLL = { timeout: 60_000, interval: 50 };
/**
 * The proxy's request timeout in the timeout tests: twenty times the test server's
 * progress interval (100 ms), and well under its slow call, so that only the behaviour
 * decides which call times out, not how busy the machine is.
 */
const REQUEST_TIMEOUT_MS = 2000;
const SLOW_MS = 5000;

describe('an SDK-built server through the proxy', () => {
  let root: { path: string; remove: () => Promise<void> };
  let host: Host;

  beforeAll(async () => {
    root = await privateDir('spill-mcp-root-');
    host = await connectProxy({ upstream: testServer, root: root.path, maxInlineBytes: 2048 });
  });

  afterAll(async () => {
    await host.close();
    await root.remove();
  });

  it('passes the tools/list cursor through, page by page, and adds its own tools to the first page only', async () => {
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await host.client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ListToolsResultSchema);
      pages.push(page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(pages[0]).toEqual(['spill_read', 'spill_grep', 'big', 'small']);
    expect(pages[1]).toEqual(['upstream_spill_read', 'garbage']);
    expect(pages.length).toBe(7); // 14 upstream tools, 2 a page
    expect(pages.flat().length).toBe(new Set(pages.flat()).size);
  });

  it('renames an upstream tool that collides with spill_read, and calls the right one', async () => {
    const upstream = await host.client.callTool({ name: 'upstream_spill_read', arguments: {} });
    expect(textOf(upstream)).toBe('the upstream spill_read');
    const ours = await host.client.callTool({ name: 'spill_read', arguments: {} });
    expect(ours.isError).toBe(true);
    expect(textOf(ours)).toContain('locator');
  });

  it('keeps an isError result an error and leaves results under the cap alone', async () => {
    const unknown = await host.client.callTool({ name: 'nope', arguments: {} });
    expect(unknown.isError).toBe(true);
    const small = await host.client.callTool({ name: 'small', arguments: {} });
    expect(textOf(small)).toBe('small answer');
  });

  it('the caller\'s cancellation reaches the upstream server', async () => {
    const controller = new AbortController();
    // Cancelled only once the upstream is running the call (it sends progress 0 when it
    // starts), however long forwarding takes.
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const call = host.client.request({ method: 'tools/call', params: { name: 'wait', arguments: {} } }, CallToolResultSchema, { signal: controller.signal, onprogress: () => { started(); } });
    await running;
    controller.abort('stop');
    await expect(call).rejects.toBeDefined();
    await expect.poll(async () => textOf(await host.client.callTool({ name: 'cancelled', arguments: {} })), POLL).toBe('1');
  });

  it('passes list_changed and log notifications from upstream to the host', async () => {
    const seen: string[] = [];
    host.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      seen.push('tools/list_changed');
    });
    host.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      seen.push(`log:${String(n.params.data)}`);
    });
    expect(textOf(await host.client.callTool({ name: 'notify', arguments: {} }))).toBe('notified');
    await expect.poll(() => seen, POLL).toEqual(expect.arrayContaining(['tools/list_changed', 'log:a log line from upstream']));
  });

  it('reports a malformed upstream line on stderr and keeps serving', async () => {
    const result = await host.client.callTool({ name: 'garbage', arguments: {} });
    expect(textOf(result)).toBe('after garbage');
    // stderr and stdout are separate pipes: the report may arrive after the answer.
    await expect.poll(() => host.stderr(), POLL).toContain('this is not json');
    expect(host.stderr()).toContain('SPILLWAY_UPSTREAM_MALFORMED');
    expect(host.stderr()).toContain('this is not json');
  });

  it('leaves the bound on spill_grep to the shared tools: no clamp of its own, a default when the model names none', async () => {
    const big = await host.client.callTool({ name: 'big', arguments: { lines: 5000 } });
    const locator = /stored at: (\S+?)\. /.exec(textOf(big))?.[1] ?? '';
    const rows = (result: object): number => textOf(result).split('\n').filter((line) => /^\d+: /.test(line)).length;
    const asked = await host.client.callTool({ name: 'spill_grep', arguments: { locator, pattern: '^line ', maxMatches: 250 } });
    // The shared implementation's bound, not one of the proxy's own.
    expect(rows(asked)).toBe(Math.min(250, DEFAULT_SPILL_ANSWER_MATCHES));
    expect(textOf(asked)).toContain('more exist');
    const unasked = await host.client.callTool({ name: 'spill_grep', arguments: { locator, pattern: '^line ' } });
    expect(rows(unasked)).toBe(100);
    const { tools } = await host.client.listTools();
    const hint = tools.find((t) => t.name === 'spill_grep')?._meta?.['anthropic/maxResultSizeChars'];
    expect(textOf(asked).length).toBeLessThanOrEqual(hint as number);
  });

  it('answers a spillway tool called with arguments that are not an object with an error result the model can read', async () => {
    for (const args of [[1, 2], 'locator', 7, null]) {
      const response = await host.client.request(
        { method: 'tools/call', params: { name: 'spill_read', arguments: args as never } },
        CallToolResultSchema,
      );
      expect(response.isError).toBe(true);
      expect(textOf(response)).toContain('spill_read failed (SPILL_INVALID_INPUT): the arguments must be a JSON object');
    }
  });

  it('spills a large error result and it stays an error', async () => {
    const result = await host.client.callTool({ name: 'bigerror', arguments: {} });
    expect(result.isError).toBe(true);
    expect(Buffer.byteLength(textOf(result))).toBeLessThanOrEqual(2048);
    expect(textOf(result)).toContain('Full formatted result stored at:');
  });

  it('spills a large result (the cap holds)', async () => {
    const result = await host.client.callTool({ name: 'big', arguments: { lines: 5000 } });
    expect(Buffer.byteLength(textOf(result))).toBeLessThanOrEqual(2048);
    expect(textOf(result)).toContain('Full formatted result stored at:');
  });
});

describe('timeouts', () => {
  let host: Host;

  beforeAll(async () => {
    host = await connectProxy({ upstream: testServer, root: null, requestTimeoutMs: REQUEST_TIMEOUT_MS });
  });

  afterAll(async () => {
    await host.close();
  });

  it('a forwarded request times out, but progress restarts the clock', async () => {
    const withProgress = await host.client.request(
      { method: 'tools/call', params: { name: 'slow', arguments: { ms: SLOW_MS } } },
      CallToolResultSchema,
      { onprogress: () => undefined },
    );
    expect(textOf(withProgress)).toBe(`done after ${String(SLOW_MS)} ms`);
    const silent = host.client.request({ method: 'tools/call', params: { name: 'slow', arguments: { ms: SLOW_MS } } }, CallToolResultSchema);
    await expect(silent).rejects.toMatchObject({ code: -32001 });
  });
});

describe('the proxy without a backend', () => {
  it('adds no tools, and keeps outputSchema and structured content', async () => {
    // Its own proxy, with the default request timeout: the short one above is for the
    // timeout test alone, and a loaded machine can take longer than it to page and spill.
    const host = await connectProxy({ upstream: testServer, root: null });
    try {
      const tools = [];
      let cursor: string | undefined;
      do {
        const page = await host.client.listTools(cursor === undefined ? {} : { cursor });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(tools.map((t) => t.name)).not.toContain('spill_grep');
      expect(tools.find((t) => t.name === 'structured')?.outputSchema).toBeDefined();
      const result = await host.client.callTool({ name: 'structured', arguments: {} });
      expect(result.structuredContent).toEqual({ n: 1 });
      const big = await host.client.callTool({ name: 'big', arguments: { lines: 5000 } });
      expect(textOf(big).length).toBeGreaterThan(100_000);
    } finally {
      await host.close();
    }
  });
});

describe('any backend: the memory backend', () => {
  it('spills into memory and reads back through spill_read', async () => {
    const host = await connectProxy({ upstream: testServer, root: 'memory', maxInlineBytes: 2048 });
    try {
      const big = await host.client.callTool({ name: 'big', arguments: { lines: 4000 } });
      const locator = /stored at: (\S+?)\. /.exec(textOf(big))?.[1] ?? '';
      expect(locator.startsWith('spill+memory:')).toBe(true);
      const read = await host.client.callTool({ name: 'spill_read', arguments: { locator, offset: 3999, limit: 1 } });
      expect(textOf(read).startsWith(`line 3999 ${'x'.repeat(40)}\n`)).toBe(true);
    } finally {
      await host.close();
    }
  });
});

describe('a message over maxMessageBytes', () => {
  it('is dropped and reported, the call times out, and the proxy keeps serving', async () => {
    const host = await connectProxy({ upstream: testServer, root: null, maxMessageBytes: 64 * 1024, requestTimeoutMs: REQUEST_TIMEOUT_MS });
    try {
      const call = host.client.request({ method: 'tools/call', params: { name: 'big', arguments: { lines: 5000 } } }, CallToolResultSchema);
      await expect(call).rejects.toMatchObject({ code: -32001 });
      await expect.poll(() => host.stderr(), POLL).toMatch(/exceeds 65536 bytes.*SPILLWAY_UPSTREAM_MALFORMED/);
      expect(textOf(await host.client.callTool({ name: 'small', arguments: {} }))).toBe('small answer');
    } finally {
      await host.close();
    }
  });
});

describe('upstream failures', () => {
  it('an upstream that dies mid-call: the caller gets an error naming the command and status, and the proxy exits non-zero', async () => {
    const root = await privateDir('spill-mcp-root-');
    const host = await connectProxy({ upstream: testServer, root: root.path });
    const proxyExited = new Promise<void>((resolve) => {
      host.transport.onclose = () => {
        resolve();
      };
    });
    const call = host.client.callTool({ name: 'die', arguments: {} });
    await expect(call).rejects.toThrow(/test-server\.mjs stdio`? stopped: it exited with status 7/);
    await proxyExited;
    expect(host.stderr()).toContain('SPILLWAY_UPSTREAM_EXITED');
    await host.close();
    await root.remove();
  });

  it('an upstream that exits before initializing: the error names its exit status, and the proxy exits with status 1', async () => {
    const child = spawn(process.execPath, [PROXY_MAIN, JSON.stringify({ upstream: { command: process.execPath, args: ['-e', 'setTimeout(() => process.exit(3), 200)'] }, root: null })], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.resume();
    child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
    const [code] = (await once(child, 'close')) as [number | null];
    expect(code).toBe(1);
    const answer = JSON.parse(Buffer.concat(out).toString().trim()) as { error: { message: string; data: { code: string; exitCode: number } } };
    expect(answer.error.message).toMatch(/exited with status 3/);
    expect(answer.error.data).toMatchObject({ code: 'SPILLWAY_UPSTREAM_START_FAILED', exitCode: 3 });
  });

  it('an upstream that cannot start: initialize gets a JSON-RPC error naming the command, and the proxy exits non-zero', async () => {
    const child: ChildProcess = spawn(process.execPath, [PROXY_MAIN, JSON.stringify({ upstream: { command: 'no-such-mcp-server-xyz', args: ['--flag'] }, root: null })], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stdin?.write(`${JSON.stringify(INITIALIZE)}\n`);
    const [code] = (await once(child, 'close')) as [number | null];
    expect(code).toBe(1);
    const answer = JSON.parse(Buffer.concat(out).toString().trim()) as { id: number; error: { code: number; message: string; data: { code: string } } };
    expect(answer.id).toBe(1);
    expect(answer.error.code).toBe(-32000);
    expect(answer.error.message).toContain('no-such-mcp-server-xyz');
    expect(answer.error.data.code).toBe('SPILLWAY_UPSTREAM_START_FAILED');
  });
});

describe('a Streamable HTTP upstream on 127.0.0.1', () => {
  let server: ChildProcess;
  let url: string;
  let host: Host;
  let root: { path: string; remove: () => Promise<void> };

  beforeAll(async () => {
    root = await privateDir('spill-mcp-root-');
    server = spawn(process.execPath, [TEST_SERVER, 'http'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(server.stdout ?? server, 'data')) as [Buffer];
    const port = /listening (\d+)/.exec(line.toString())?.[1];
    url = `http://127.0.0.1:${port ?? '0'}/mcp`;
    host = await connectProxy({ upstream: { url, headers: { Authorization: 'Bearer test-token', 'X-Extra': 'yes' } }, root: root.path, maxInlineBytes: 2048 });
  });

  afterAll(async () => {
    await host.close();
    server.kill();
    await root.remove();
  });

  it('forwards calls with the configured headers and spills large results', async () => {
    expect(host.client.getServerVersion()?.name).toBe('test-server');
    expect(host.client.getInstructions()).toBe('Test instructions.');
    const headers = JSON.parse(textOf(await host.client.callTool({ name: 'headers', arguments: {} }))) as Record<string, string>;
    expect(headers.authorization).toBe('Bearer test-token');
    expect(headers['x-extra']).toBe('yes');
    const big = await host.client.callTool({ name: 'big', arguments: { lines: 3000 } });
    expect(Buffer.byteLength(textOf(big))).toBeLessThanOrEqual(2048);
    const locator = /stored at: (\S+?)\. /.exec(textOf(big))?.[1] ?? '';
    const grep = await host.client.callTool({ name: 'spill_grep', arguments: { locator, pattern: '^line 2999 ' } });
    expect(textOf(grep)).toContain('2999: line 2999');
  });
});
