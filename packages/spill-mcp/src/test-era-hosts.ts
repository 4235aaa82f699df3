// Test hosts of both MCP eras, behind one shape: an SDK v2 client pinned to 2026-07-28, an
// SDK v2 client negotiating on its own ('auto'), and an SDK 1.32 client (2025 era). Each
// counts the progress notifications that reach its transport before the client's own
// handling (the SDK clients may drop a notification that arrives with its response).
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  GetPromptResultSchema,
  ListToolsResultSchema,
  ReadResourceResultSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** Which client a host is. */
export type HostKind = 'v2-pinned' | 'v2-auto' | 'v1';

/** Every host kind, in the order the tests run them. */
export const HOST_KINDS: readonly HostKind[] = ['v2-pinned', 'v2-auto', 'v1'];

/** A call's options. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly onprogress?: () => void;
}

/** A connected host of either era. */
export interface EraHost {
  readonly kind: HostKind;
  /** The protocol version the host ended up speaking. */
  readonly version: string | undefined;
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<Record<string, unknown>>;
  readResource(uri: string): Promise<Record<string, unknown>>;
  getPrompt(name: string): Promise<Record<string, unknown>>;
  listTools(): Promise<{ tools: { name: string }[] }>;
  /** Progress notifications that reached the transport so far. */
  progressSeen(): number;
  close(): Promise<void>;
}

type Wired = { onmessage?: ((message: unknown, ...rest: unknown[]) => void) | undefined };

function countProgress(transport: Wired): () => number {
  let seen = 0;
  const inner = transport.onmessage;
  transport.onmessage = (message, ...rest) => {
    if ((message as { method?: unknown }).method === 'notifications/progress') seen += 1;
    inner?.call(transport, message, ...rest);
  };
  return () => seen;
}

/** Connects a host of `kind` over stdio to `command args…`. */
export async function connectEraHost(kind: HostKind, command: string, args: readonly string[]): Promise<EraHost> {
  const env = process.env as Record<string, string>;
  const timeout = 120_000;
  if (kind === 'v1') {
    const transport = new LegacyStdio({ command, args: [...args], env, stderr: 'pipe', maxBufferSize: 1024 * 1024 * 1024 });
    transport.stderr?.on('data', () => undefined);
    const client = new LegacyClient({ name: 'era-host', version: '1.0.0' });
    await client.connect(transport);
    const progressSeen = countProgress(transport as unknown as Wired);
    const opts = (o: CallOptions = {}) => ({ timeout, ...(o.signal ? { signal: o.signal } : {}), ...(o.onprogress ? { onprogress: o.onprogress } : {}) });
    return {
      kind,
      version: client.getServerVersion() === undefined ? undefined : '2025',
      callTool: (name, a, o) => client.request({ method: 'tools/call', params: { name, arguments: a } }, CallToolResultSchema, opts(o)),
      readResource: (uri) => client.request({ method: 'resources/read', params: { uri } }, ReadResourceResultSchema, opts()),
      getPrompt: (name) => client.request({ method: 'prompts/get', params: { name } }, GetPromptResultSchema, opts()),
      listTools: () => client.request({ method: 'tools/list' }, ListToolsResultSchema, opts()),
      progressSeen,
      close: () => client.close(),
    };
  }
  const mode = kind === 'v2-pinned' ? { pin: '2026-07-28' as const } : ('auto' as const);
  const transport = new ModernStdio({ command, args: [...args], env, stderr: 'pipe' });
  transport.stderr?.on('data', () => undefined);
  const client = new ModernClient({ name: 'era-host', version: '2.0.0' }, { versionNegotiation: { mode } });
  await client.connect(transport);
  const progressSeen = countProgress(transport as unknown as Wired);
  const opts = (o: CallOptions = {}) => ({ timeout, ...(o.signal ? { signal: o.signal } : {}), ...(o.onprogress ? { onprogress: o.onprogress } : {}) });
  return {
    kind,
    version: client.getNegotiatedProtocolVersion(),
    callTool: (name, a, o) => client.callTool({ name, arguments: a }, opts(o)),
    readResource: (uri) => client.readResource({ uri }, opts()),
    getPrompt: (name) => client.getPrompt({ name }, opts()),
    listTools: () => client.listTools(undefined, opts()),
    progressSeen,
    close: () => client.close(),
  };
}
