import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpillNotice } from '@spillway/policy/notice';
import { AUTO_GC_STAMP } from './auto-gc.js';
import { parseHeaders } from './commands/mcp.js';
import { BIN, ensureBuilt, spillway } from './test-bin.js';

// The real filesystem server, installed with @spillway/mcp's tests.
const mcpDir = dirname(createRequire(import.meta.url).resolve('@spillway/mcp/package.json'));
const fsServer = join(dirname(createRequire(join(mcpDir, 'package.json')).resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-host', version: '1' } } };

interface Session {
  request(id: number, method: string, params?: unknown): Promise<Record<string, unknown>>;
  notify(method: string): void;
  end(): Promise<{ code: number | null; stderr: string }>;
}

/** Starts `spillway mcp …args` and speaks newline-delimited JSON-RPC to it, as a host does. */
function start(args: readonly string[], env: NodeJS.ProcessEnv): Session {
  const child = spawn(process.execPath, [BIN, 'mcp', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as Record<string, unknown>;
    if (typeof message.id === 'number') waiting.get(message.id)?.(message);
  });
  const exited = once(child, 'close') as Promise<[number | null]>;
  return {
    request: (id, method, params) =>
      new Promise((resolve) => {
        waiting.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`);
      }),
    notify: (method) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`),
    end: async () => {
      child.stdin.end();
      const [code] = await exited;
      return { code, stderr };
    },
  };
}

describe('spillway mcp', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'spillway-mcp-cli-'));
    await chmod(dir, 0o700);
    await mkdir(join(dir, 'root'), { mode: 0o700 });
    env = { ...process.env, SPILLWAY_ROOT: join(dir, 'root'), SPILLWAY_SESSION: 'conversation-9', NO_COLOR: '1' };
    await writeFile(join(dir, 'big.txt'), `${Array.from({ length: 50_000 }, (_, i) => `row ${String(i + 1)}`).join('\n')}\n`);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('wraps a stdio server: a large result is spilled under the session, `spillway ls` sees it, and EOF ends it with 0', async () => {
    const session = start(['--max-inline-bytes', '2000', '--', process.execPath, fsServer, dir], env);
    const init = await session.request(1, 'initialize', INITIALIZE.params);
    expect((init.result as { serverInfo: { name: string } }).serverInfo.name).toMatch(/filesystem/);
    session.notify('notifications/initialized');
    const call = await session.request(2, 'tools/call', { name: 'read_text_file', arguments: { path: join(dir, 'big.txt') } });
    const text = (call.result as { content: { text: string }[] }).content[0]?.text ?? '';
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2000);
    const locator = parseSpillNotice(text)?.locator ?? '';
    expect(locator.startsWith(join(dir, 'root'))).toBe(true);
    const { code } = await session.end();
    expect(code).toBe(0);
    const ls = await spillway(['ls', '--session', 'conversation-9', '--json'], { env });
    expect(ls.out).toContain(locator);
    // The spill started the automatic cleanup on the local root (its stamp marks the sweep).
    for (let i = 0; i < 300 && !existsSync(join(dir, 'root', AUTO_GC_STAMP)); i++) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(join(dir, 'root', AUTO_GC_STAMP))).toBe(true);
  });

  it('answers initialize with an error naming a command that does not exist, and exits 127', async () => {
    // A PATH of readable directories only: an unreadable entry turns ENOENT into EACCES.
    const session = start(['--', 'no-such-mcp-server-xyz'], { ...env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` });
    const init = await session.request(1, 'initialize', INITIALIZE.params);
    expect((init.error as { message: string }).message).toContain('no-such-mcp-server-xyz');
    const { code, stderr } = await session.end();
    expect(code).toBe(127);
    expect(stderr).toContain('SPILLWAY_UPSTREAM_START_FAILED');
  });

  it('exits 2 on usage errors', async () => {
    expect((await spillway(['mcp'], { env })).code).toBe(2);
    expect((await spillway(['mcp', '--url', 'http://127.0.0.1:9/mcp', '--', 'node'], { env })).code).toBe(2);
    expect((await spillway(['mcp', '--url', 'ftp://127.0.0.1/'], { env })).code).toBe(2);
    expect((await spillway(['mcp', '--header', 'A: b', '--', 'node'], { env })).code).toBe(2);
  });

  it('parses --header values', () => {
    expect(parseHeaders(['Authorization: Bearer x:y', 'X-A:1'])).toEqual({ Authorization: 'Bearer x:y', 'X-A': '1' });
    expect(() => parseHeaders(['no colon'])).toThrow(/Name: value/);
  });
});
