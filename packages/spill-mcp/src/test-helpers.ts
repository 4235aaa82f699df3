import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { SpillProxyUpstream } from './options.js';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

/** The test fixtures' directory. */
export const TEST_DIR = join(here, '..', 'test');
/** Runs the proxy through the public API on its stdin/stdout. */
export const PROXY_MAIN = join(TEST_DIR, 'proxy-main.mjs');
/** The SDK-built test server. */
export const TEST_SERVER = join(TEST_DIR, 'test-server.mjs');

/** The entry script of an installed MCP server package (never downloaded at test time). */
export function serverScript(pkg: 'server-filesystem' | 'server-everything' | 'server-memory'): string {
  return join(dirname(require.resolve(`@modelcontextprotocol/${pkg}/package.json`)), 'dist', 'index.js');
}

/** A private (0700) temporary directory, removed by the returned cleanup. */
export async function privateDir(prefix: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  await chmod(path, 0o700);
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A host: the SDK client over stdio, with the child's stderr collected. */
export interface Host {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  stderr(): string;
  close(): Promise<void>;
}

/** What the host offers the server, and the handlers it installs before connecting. */
export interface HostSetup {
  readonly capabilities?: ClientCapabilities;
  readonly prepare?: (client: Client) => void;
}

/** Connects an SDK client over stdio to `command args…` (the proxy or a server directly). */
export async function connectHost(
  command: string,
  args: readonly string[],
  env: Record<string, string> = {},
  maxBufferSize = 1024 * 1024 * 1024,
  host: HostSetup = {},
): Promise<Host> {
  const transport = new StdioClientTransport({
    command,
    args: [...args],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
    maxBufferSize,
  });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const client = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities: host.capabilities ?? {} });
  host.prepare?.(client);
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => err,
    close: () => client.close(),
  };
}

/** Options for the proxy under test. */
export interface ProxyConfig {
  readonly upstream: SpillProxyUpstream;
  /** The spill root of a local backend; `'memory'` for a memory backend; `null` for none. */
  readonly root: string | null;
  readonly maxInlineBytes?: number;
  readonly sessionId?: string;
  readonly requestTimeoutMs?: number;
  readonly maxMessageBytes?: number;
}

/** Connects an SDK client over stdio to the proxy wrapping `config.upstream`. */
export function connectProxy(config: ProxyConfig, env: Record<string, string> = {}, host: HostSetup = {}): Promise<Host> {
  return connectHost(process.execPath, [PROXY_MAIN, JSON.stringify(config)], env, undefined, host);
}

/** The one text block of a result. */
export function textOf(result: object): string {
  const content = (result as { content?: unknown }).content as { type: string; text?: string }[];
  return content.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');
}
