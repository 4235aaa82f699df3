// Every pairing of host era and server era through `spillway mcp`, with real processes:
// hosts are an SDK v2 client pinned to 2026-07-28, an SDK v2 client in `auto` mode and an
// SDK 1.32 client; servers are @modelcontextprotocol/server-filesystem (2025 era) and a
// server of the suite's own on @modelcontextprotocol/server 2.4.0 with serveStdio (2026).
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectEraHost, HOST_KINDS, type EraHost, type HostKind } from './test-era-hosts.js';
import { PROXY_MAIN, privateDir, serverScript, TEST_DIR, TEST_SERVER, textOf } from './test-helpers.js';

const CAP = 8192;
const MODERN_SERVER = join(TEST_DIR, 'modern-server.mjs');

interface ServerCase {
  readonly name: string;
  readonly era: '2025' | '2026';
  readonly args: (dir: string) => string[];
}

const SERVERS: readonly ServerCase[] = [
  { name: 'server-filesystem', era: '2025', args: (dir) => [serverScript('server-filesystem'), dir] },
  { name: 'a serveStdio server on SDK v2', era: '2026', args: () => [MODERN_SERVER] },
];

function locatorOf(text: string): string {
  const locator = /stored at: (\S+?)\. /.exec(text)?.[1];
  if (locator === undefined) throw new Error(`no spill notice in: ${text.slice(-300)}`);
  return locator;
}

function resourceText(result: Record<string, unknown>): string {
  return (result.contents as { text?: string }[]).map((c) => c.text ?? '').join('');
}

function promptText(result: Record<string, unknown>): string {
  return (result.messages as { content: { text?: string } }[]).map((m) => m.content.text ?? '').join('');
}

/** The notice's artifact holds `line`: spill_grep finds it and spill_read at its number returns it. */
async function expectRetrievable(host: EraHost, text: string, needle: string): Promise<void> {
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(CAP);
  const locator = locatorOf(text);
  const grep = textOf(await host.callTool('spill_grep', { locator, pattern: `^${needle} `, }));
  const line = /^(\d+): /m.exec(grep)?.[1];
  expect(grep).toContain(needle);
  const read = textOf(await host.callTool('spill_read', { locator, offset: Number(line), limit: 1 }));
  expect(read.startsWith(`${needle} `)).toBe(true);
}

let data: { path: string; remove: () => Promise<void> };
let bigFile: string;
let smallFile: string;

beforeAll(async () => {
  data = await privateDir('spillway-mcp-eras-');
  bigFile = join(data.path, 'big.txt');
  smallFile = join(data.path, 'small.txt');
  await writeFile(bigFile, Array.from({ length: 6000 }, (_, i) => `file ${String(i + 1)} ${'f'.repeat(40)}`).join('\n'));
  await writeFile(smallFile, 'a small file\n');
});
afterAll(async () => {
  await data.remove();
});

function proxyArgs(serverArgs: string[]): string[] {
  return [PROXY_MAIN, JSON.stringify({ upstream: { command: process.execPath, args: serverArgs }, root: 'memory', maxInlineBytes: CAP })];
}

describe.each(SERVERS)('through spillway mcp to $name ($era era)', (server) => {
  describe.each(HOST_KINDS.map((kind) => ({ kind })))('from a $kind host', ({ kind }: { kind: HostKind }) => {
    let host: EraHost;
    // The same kind of host straight to the server; a pinned host cannot reach a 2025 server,
    // so there it is compared with the auto host, which falls back to 2025.
    let direct: EraHost;

    beforeAll(async () => {
      host = await connectEraHost(kind, process.execPath, proxyArgs(server.args(data.path)));
      const directKind = kind === 'v2-pinned' && server.era === '2025' ? 'v2-auto' : kind;
      direct = await connectEraHost(directKind, process.execPath, server.args(data.path));
    }, 120_000);
    afterAll(async () => {
      await Promise.allSettled([host.close(), direct.close()]);
    });

    it('connects in the host\'s own era: a v2 host gets 2026-07-28 whatever the server speaks', () => {
      expect(host.version).toBe(kind === 'v1' ? direct.version : '2026-07-28');
    });

    it('lists spillway\'s tools first, then the server\'s', async () => {
      const names = (await host.listTools()).tools.map((t) => t.name);
      expect(names.slice(0, 2)).toEqual(['spill_read', 'spill_grep']);
      expect(names).toContain(server.era === '2025' ? 'read_text_file' : 'big');
    });

    it('spills an oversized tool result within the cap, and it is retrievable', async () => {
      const result = server.era === '2025'
        ? await host.callTool('read_text_file', { path: bigFile })
        : await host.callTool('big', { lines: 6000 });
      expect(result.structuredContent).toBeUndefined();
      await expectRetrievable(host, textOf(result), server.era === '2025' ? 'file 4321' : 'tool 4321');
    });

    it('passes a small tool result as a direct call gets it', async () => {
      const call = server.era === '2025' ? (['read_text_file', { path: smallFile }] as const) : (['small', {}] as const);
      const viaProxy = await host.callTool(call[0], call[1]);
      const straight = await direct.callTool(call[0], call[1]);
      const { structuredContent: _a, ...proxied } = viaProxy;
      const { structuredContent: _b, ...plain } = straight;
      expect(JSON.stringify(proxied)).toBe(JSON.stringify(plain));
      // Under the cap, structured content is kept as the server gave it.
      expect(JSON.stringify(viaProxy.structuredContent)).toBe(JSON.stringify(straight.structuredContent));
    });

    it('passes a tool error as a direct call gets it', async () => {
      const call = server.era === '2025' ? (['read_text_file', { path: join(data.path, 'missing.txt') }] as const) : (['fail', {}] as const);
      const viaProxy = await host.callTool(call[0], call[1]);
      const straight = await direct.callTool(call[0], call[1]);
      expect(viaProxy.isError).toBe(true);
      expect(textOf(viaProxy)).toBe(textOf(straight));
    });

    if (server.era === '2026') {
      it('spills an oversized resource within the cap, and it is retrievable', async () => {
        const result = await host.readResource('modern://big');
        await expectRetrievable(host, resourceText(result), 'resource 4321');
      });

      it('spills an oversized prompt within the cap, and it is retrievable', async () => {
        const result = await host.getPrompt('big-prompt');
        await expectRetrievable(host, promptText(result), 'prompt 4321');
      });

      it('passes a small resource and a small prompt as a direct call gets them', async () => {
        expect(JSON.stringify(await host.readResource('modern://small'))).toBe(JSON.stringify(await direct.readResource('modern://small')));
        expect(JSON.stringify(await host.getPrompt('small-prompt'))).toBe(JSON.stringify(await direct.getPrompt('small-prompt')));
      });

      it('passes a JSON-RPC error for an unknown resource', async () => {
        const viaProxy = await host.readResource('modern://missing').then(() => 'resolved', (error: unknown) => String(error));
        const straight = await direct.readResource('modern://missing').then(() => 'resolved', (error: unknown) => String(error));
        expect(viaProxy).not.toBe('resolved');
        expect(viaProxy).toBe(straight);
      });

      it('passes every progress notification of a burst to the host before the result', async () => {
        const before = host.progressSeen();
        const result = await host.callTool('burst', { n: 300 }, { onprogress: () => undefined });
        expect(textOf(result)).toBe('sent 300');
        expect(host.progressSeen() - before).toBe(300);
      });

      it('passes cancellation to the server', async () => {
        const controller = new AbortController();
        const pending = host.callTool('wait', {}, { signal: controller.signal });
        setTimeout(() => {
          controller.abort();
        }, 200);
        await expect(pending).rejects.toThrow();
        let seen = '0';
        for (let i = 0; i < 400 && seen === '0'; i++) {
          seen = textOf(await host.callTool('cancelled', {}));
          if (seen === '0') await new Promise((r) => setTimeout(r, 50));
        }
        expect(seen).toBe('1');
      });
    }
  });
});

describe.each(HOST_KINDS.map((kind) => ({ kind })))('a $kind host through spillway mcp to the 2025-era test server', ({ kind }: { kind: HostKind }) => {
  let host: EraHost;
  beforeAll(async () => {
    host = await connectEraHost(kind, process.execPath, proxyArgs([TEST_SERVER]));
  }, 120_000);
  afterAll(async () => {
    await host.close();
  });

  it('spills an oversized resource and prompt within the cap, and both are retrievable', async () => {
    await expectRetrievable(host, resourceText(await host.readResource('legacy://big')), 'resource 4321');
    await expectRetrievable(host, promptText(await host.getPrompt('big-prompt')), 'prompt 4321');
  });

  it(kind === 'v2-pinned' ? 'refuses a sampling request from the 2025 server with an error that names it' : 'answers a sampling request the host did not offer with an error, not a hang', async () => {
    const text = textOf(await host.callTool('sample', {}));
    expect(text.startsWith('refused: ')).toBe(true);
    if (kind === 'v2-pinned') expect(text).toContain('cannot carry a sampling/createMessage request from a 2025-era server to a 2026-07-28 host');
  });

  it('passes 300 progress notifications written in one burst with the result, all before it', async () => {
    const result = await host.callTool('burst', { n: 300 }, { onprogress: () => undefined });
    expect(textOf(result)).toBe('sent 300');
    expect(host.progressSeen()).toBe(300);
  });
});

/** A proxy over the filesystem server with a raw line reader: answers by id. */
function rawProxy() {
  const child = spawn(process.execPath, proxyArgs([serverScript('server-filesystem'), data.path]), { stdio: ['pipe', 'pipe', 'ignore'] });
  const answers = new Map<string, Record<string, unknown>>();
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline: number;
    while ((newline = buffered.indexOf('\n')) !== -1) {
      const message = JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>;
      buffered = buffered.slice(newline + 1);
      if (message.id !== undefined) answers.set(JSON.stringify(message.id).replace(/^"|"$/g, ""), message);
    }
  });
  const write = (message: Record<string, unknown>): void => {
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  };
  const waitFor = async (ids: readonly string[]): Promise<void> => {
    for (let i = 0; i < 400 && !ids.every((id) => answers.has(id)); i++) await new Promise((r) => setTimeout(r, 25));
  };
  return { child, answers, write, waitFor };
}


describe('the 2026-07-28 edge, on the wire', () => {
  it('answers server/discover, refuses an unknown version with -32022 and names what it does not bridge', async () => {
    const { child, answers } = rawProxy();
    const envelope = (version: string) => ({
      'io.modelcontextprotocol/protocolVersion': version,
      'io.modelcontextprotocol/clientInfo': { name: 'wire', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    });
    const send = (id: string, method: string, version = '2026-07-28'): void => {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { _meta: envelope(version) } })}\n`);
    };
    try {
      send('d', 'server/discover');
      send('future', 'tools/list', '2027-01-01');
      send('listen', 'subscriptions/listen');
      send('list', 'tools/list');
      for (let i = 0; i < 1600 && answers.size < 4; i++) await new Promise((r) => setTimeout(r, 25));
      const discover = answers.get('d')?.result as Record<string, unknown>;
      expect(discover.supportedVersions).toEqual(['2026-07-28']);
      expect(discover.resultType).toBe('complete');
      expect((discover.capabilities as Record<string, unknown>).tools).toBeDefined();
      expect((discover._meta as Record<string, { name: string }>)['io.modelcontextprotocol/serverInfo']?.name).toBe('secure-filesystem-server');
      const future = answers.get('future')?.error as { code: number; data: { supported: string[] } };
      expect(future.code).toBe(-32022);
      expect(future.data.supported).toEqual(['2026-07-28']);
      const listen = answers.get('listen')?.error as { code: number; message: string };
      expect(listen.message).toContain('subscriptions/listen');
      const list = answers.get('list')?.result as { resultType: string; ttlMs: number; cacheScope: string; tools: unknown[] };
      expect(list.resultType).toBe('complete');
      expect(list.ttlMs).toBe(0);
      expect(list.cacheScope).toBe('private');
      expect(list.tools.length).toBeGreaterThan(2);
    } finally {
      child.stdin.end();
      child.kill();
    }
  });
});

describe('malformed requests and foreign ids, on the wire', () => {
  const MODERN = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'wire', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const BAD: readonly [string, unknown][] = [
    ['meta-string', { _meta: 'x' }],
    ['meta-array', { _meta: [1] }],
    ['meta-null', { _meta: null }],
    ['params-string', 'x'],
  ];

  it.each(['2025', '2026'] as const)('answers at once, with -32602, a request whose params or _meta is not an object (%s era)', async (era) => {
    const { child, answers, write, waitFor } = rawProxy();
    try {
      if (era === '2025') {
        write({ id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'wire', version: '1' } } });
        await waitFor(['init']);
        write({ method: 'notifications/initialized' });
      } else {
        write({ id: 'first', method: 'tools/list', params: { _meta: MODERN } });
        await waitFor(['first']);
      }
      const ids: string[] = [];
      for (const method of ['tools/list', 'ping', 'tools/call']) {
        for (const [label, params] of BAD) {
          const id = `${method}-${label}`;
          ids.push(id);
          write({ id, method, params: method === 'tools/call' && typeof params === 'object' ? { ...params, name: 'spill_read', arguments: { locator: 'x' } } : params });
        }
      }
      await waitFor(ids);
      for (const id of ids) expect((answers.get(id)?.error as { code?: number } | undefined)?.code, id).toBe(-32602);
    } finally {
      child.stdin.end();
      child.kill();
    }
  });

  it('answers a 2026 host request whose id is the one the proxy once used for its own initialize', async () => {
    const { child, answers, write, waitFor } = rawProxy();
    try {
      write({ id: 'spillway-modern-host-initialize', method: 'tools/list', params: { _meta: MODERN } });
      await waitFor(['spillway-modern-host-initialize']);
      const list = answers.get('spillway-modern-host-initialize')?.result as { tools?: unknown[] } | undefined;
      expect(list?.tools?.length).toBeGreaterThan(2);
    } finally {
      child.stdin.end();
      child.kill();
    }
  });
});
