import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  CancelTaskRequestSchema,
  CancelTaskResultSchema,
  CompleteRequestSchema,
  CompleteResultSchema,
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  EmptyResultSchema,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  GetTaskPayloadRequestSchema,
  GetTaskPayloadResultSchema,
  GetTaskRequestSchema,
  GetTaskResultSchema,
  ListPromptsRequestSchema,
  ListRootsRequestSchema,
  ListRootsResultSchema,
  ListPromptsResultSchema,
  ListResourcesRequestSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesRequestSchema,
  ListResourceTemplatesResultSchema,
  ListTasksRequestSchema,
  ListTasksResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  type Implementation,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type Notification,
  type ServerCapabilities,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { SpillBackend, SpillSearcher } from '@spillway/core';
import { DEFAULT_GREP_MAX_LINE_BYTES, DEFAULT_READ_MAX_BYTES, sessionId as brandSessionId } from '@spillway/core';
import { createSpillPolicy, type ContentBlock, type SpillEvent } from '@spillway/policy';
import { SPILL_TOOL_NAMES, runSpillTool, spillToolDefinitions, SPILL_GREP_TOOL, SPILL_SEARCH_TOOL, runSpillSearch } from '@spillway/policy/tools';
import { searchToolListing } from './search-tool.js';
import { SpillProxyError, UPSTREAM_ERROR_RPC_CODE, type SpillProxyErrorCode } from './errors.js';
import { downstreamToolName, upstreamToolName } from './names.js';
import { UpstreamStdioTransport, type UpstreamExit } from './stdio-upstream.js';

/** `maxInlineBytes` when none is given: 32 KiB, as for `spillway run`. */
export const DEFAULT_MAX_INLINE_BYTES = 32_768;
/** The largest single message accepted from the upstream server or the host: 500 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 500 * 1024 * 1024;
/** How long a forwarded request may go without an answer or progress: 5 minutes. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;
/** The most matches one `spill_grep` call returns, whatever the model asks for. */
export const DEFAULT_MAX_GREP_MATCHES = 200;
/** The `_meta` key that tells Claude Code how large a tool's answers may be before it spills them itself. */
export const MAX_RESULT_SIZE_META_KEY = 'anthropic/maxResultSizeChars';

/** An upstream server started as a child process, spoken to over its stdin/stdout. */
export interface SpillProxyStdioUpstream {
  /** The program (looked up on `PATH`, no shell). */
  readonly command: string;
  /** Its arguments. */
  readonly args?: readonly string[] | undefined;
  /** Its whole environment. Default: this process's environment (`process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Its working directory. Default: this process's. */
  readonly cwd?: string | undefined;
}

/** An upstream server reached over MCP Streamable HTTP. */
export interface SpillProxyHttpUpstream {
  /** The server's MCP endpoint. */
  readonly url: string | URL;
  /** Headers sent with every request, such as `Authorization`. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** Where the real MCP server is. */
export type SpillProxyUpstream = SpillProxyStdioUpstream | SpillProxyHttpUpstream;

/** Something the proxy reports: spills, and problems it survived. */
export type SpillProxyEvent =
  | {
      /** A tool result went through the policy: see `SpillEvent` of `@spillway/policy`. */
      readonly type: 'spill';
      /** What the policy did. */
      readonly event: SpillEvent;
    }
  | {
      /** The upstream server wrote something that is not a JSON-RPC message; it was skipped. */
      readonly type: 'malformed';
      /** Always `SPILLWAY_UPSTREAM_MALFORMED`. */
      readonly code: SpillProxyErrorCode;
      /** What was wrong. */
      readonly message: string;
    }
  | {
      /** The upstream connection ended; the proxy answers errors and closes. */
      readonly type: 'upstream-closed';
      /** Always `SPILLWAY_UPSTREAM_EXITED`. */
      readonly code: SpillProxyErrorCode;
      /** The message the host's pending and later requests receive. */
      readonly message: string;
      /** How the process ended (stdio upstreams). */
      readonly exit?: UpstreamExit | undefined;
    }
  | {
      /** A protocol-level problem that did not stop the proxy (a notification it could not pass on…). */
      readonly type: 'warning';
      /** What happened. */
      readonly message: string;
    };

/** Configuration for {@link createSpillProxy}. */
export interface SpillProxyOptions {
  /** The real MCP server. */
  readonly upstream: SpillProxyUpstream;
  /**
   * Where oversized results are stored: any `SpillBackend`. With a `reader`, the proxy adds
   * the `spill_read` and `spill_grep` tools. Without a backend nothing is spilled.
   */
  readonly backend?: SpillBackend | undefined;
  /** The cap, in UTF-8 bytes, on a tool result's text. Default {@link DEFAULT_MAX_INLINE_BYTES}. */
  readonly maxInlineBytes?: number | undefined;
  /** The session every spill belongs to. Default: a new random id for each proxy. */
  readonly sessionId?: string | undefined;
  /** The host side. Default: this process's stdin/stdout (closed when stdin ends). */
  readonly downstream?: Transport | undefined;
  /**
   * Where the upstream server's stderr and the proxy's own reports go. Default
   * `process.stderr`; `null` discards both (use `onEvent`).
   */
  readonly stderr?: NodeJS.WritableStream | null | undefined;
  /** The largest message accepted from either side. Default {@link DEFAULT_MAX_MESSAGE_BYTES}. */
  readonly maxMessageBytes?: number | undefined;
  /**
   * How long a forwarded request may wait for its answer; progress from the upstream server
   * restarts the clock. Default {@link DEFAULT_REQUEST_TIMEOUT_MS}, which is also the least
   * time the upstream server is given to initialize.
   */
  readonly requestTimeoutMs?: number | undefined;
  /** Byte cap on one `spill_read` answer. Default `DEFAULT_READ_MAX_BYTES` of `@spillway/core`. */
  readonly maxReadBytes?: number | undefined;
  /** The most matches one `spill_grep` answer holds. Default {@link DEFAULT_MAX_GREP_MATCHES}. */
  readonly maxGrepMatches?: number | undefined;
  /** Passed to the policy: an upper bound on the preview. */
  readonly previewBytes?: number | undefined;
  /** Passed to the policy: how long a save may take before the result is kept. */
  readonly saveTimeoutMs?: number | undefined;
  /** Receives every {@link SpillProxyEvent}. It may throw; the proxy is unaffected. */
  readonly onEvent?: ((event: SpillProxyEvent) => void) | undefined;
  /**
   * What answers `spill_search` over this proxy's session, which the proxy then offers
   * (`spillway mcp` passes one from `@spillway/search` when the backend has a reader and a
   * catalog). Omitted: no `spill_search`.
   */
  readonly search?: SpillSearcher | undefined;
}

/** How a proxy ended. */
export interface SpillProxyExit {
  /**
   * `downstream-closed`: the host went away (normal end); `upstream-closed`: the upstream
   * server died or its connection closed; `closed`: `close()` was called.
   */
  readonly reason: 'downstream-closed' | 'upstream-closed' | 'closed';
  /** The error the host was given, for `upstream-closed`. */
  readonly error?: SpillProxyError | undefined;
  /** How the upstream process ended, when it was a process and has ended. */
  readonly upstreamExit?: UpstreamExit | undefined;
}

/** A running (or ready to run) proxy. */
export interface SpillProxy {
  /** The session the proxy's spills belong to. */
  readonly sessionId: string;
  /**
   * Waits for the host's `initialize`, connects to the upstream server with the host's name
   * and capabilities, then serves the host (answering its `initialize` with the upstream
   * server's). Resolves once serving. Rejects with a `SPILLWAY_UPSTREAM_START_FAILED`
   * {@link SpillProxyError} when the upstream cannot be started, after answering the
   * host's `initialize` with a JSON-RPC error that says so. Resolves without serving when
   * the host goes away before it initializes.
   */
  start(): Promise<void>;
  /** Closes both sides. Calling it again does nothing. */
  close(): Promise<void>;
  /** Resolves once both sides are closed, with why. Never rejects. */
  readonly closed: Promise<SpillProxyExit>;
}

function version(): string {
  const pkg = createRequire(import.meta.url)('../package.json') as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}

function isHttp(upstream: SpillProxyUpstream): upstream is SpillProxyHttpUpstream {
  return 'url' in upstream;
}

function quoteWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The upstream as a person would type it: the command line, or the URL. */
export function describeUpstream(upstream: SpillProxyUpstream): string {
  if (isHttp(upstream)) return String(upstream.url);
  return [upstream.command, ...(upstream.args ?? [])].map(quoteWord).join(' ');
}

function describeExit(exit: UpstreamExit | undefined): string {
  if (exit === undefined) return 'it is no longer running';
  if (exit.signal !== null) return `it was ended by signal ${exit.signal}`;
  return `it exited with status ${String(exit.code)}`;
}

function checkCount(value: number | undefined, name: string, min: number): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < min)) {
    throw new TypeError(`createSpillProxy: ${name} must be an integer of at least ${String(min)}, got ${String(value)}.`);
  }
}

/** A JSON-RPC error to answer the host with: code, message and data, as the SDK sends them. */
function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}

/** The SDK prefixes error messages it receives with "MCP error <code>: "; strip it back off. */
function upstreamRpcError(error: unknown): unknown {
  if (!(error instanceof Error) || typeof (error as { code?: unknown }).code !== 'number') return error;
  const code = (error as unknown as { code: number }).code;
  const message = error.message.replace(/^MCP error -?\d+: /, '');
  return rpcError(code, message, (error as { data?: unknown }).data);
}

type AnyResult = Record<string, unknown>;

/**
 * Creates an MCP proxy that spills oversized tool results: an MCP server toward the host
 * (stdio by default) and an MCP client toward the real server (a command over stdio, or a
 * Streamable HTTP URL). Everything is forwarded as it is (initialize, tools, prompts,
 * resources, completions, logging, tasks, list-changed notifications, progress,
 * cancellation, ping, and the server's sampling, elicitation and roots requests to the
 * host) except:
 *
 * - a `tools/call` result whose text is over `maxInlineBytes` goes through
 *   `@spillway/policy`: the host gets a preview and a notice, its `structuredContent` is
 *   dropped, and (while spilling is on) no mirrored tool has an `outputSchema`;
 * - `spill_read` and `spill_grep` are added when the backend has a reader; an upstream tool
 *   of either name is renamed `upstream_<name>`.
 *
 * @example
 * ```ts
 * import { createMemoryBackend } from '@spillway/memory';
 * import { createSpillProxy } from '@spillway/mcp';
 *
 * const proxy = createSpillProxy({
 *   upstream: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/data'] },
 *   backend: createMemoryBackend(),
 *   maxInlineBytes: 32 * 1024,
 * });
 * await proxy.start();
 * const exit = await proxy.closed;
 * process.exitCode = exit.reason === 'upstream-closed' ? 1 : 0;
 * ```
 */
export function createSpillProxy(options: SpillProxyOptions): SpillProxy {
  const given = options.upstream as unknown;
  if (typeof given !== 'object' || given === null) throw new TypeError('createSpillProxy: upstream is required.');
  const upstream = given as SpillProxyUpstream;
  if (isHttp(upstream)) {
    // Throws a TypeError for a URL that cannot be parsed.
    new URL(String(upstream.url));
  } else if (typeof upstream.command !== 'string' || upstream.command === '') {
    throw new TypeError('createSpillProxy: upstream.command must be a non-empty string.');
  }
  checkCount(options.maxInlineBytes, 'maxInlineBytes', 0);
  checkCount(options.maxMessageBytes, 'maxMessageBytes', 1024);
  checkCount(options.requestTimeoutMs, 'requestTimeoutMs', 1);
  checkCount(options.maxReadBytes, 'maxReadBytes', 1);
  checkCount(options.maxGrepMatches, 'maxGrepMatches', 1);
  if (options.sessionId === '') throw new TypeError('createSpillProxy: sessionId must be non-empty.');
  return new ProxyRuntime(options, upstream);
}

class ProxyRuntime implements SpillProxy {
  readonly sessionId: string;
  readonly closed: Promise<SpillProxyExit>;

  private readonly options: SpillProxyOptions;
  private readonly upstream: SpillProxyUpstream;
  private readonly label: string;
  private readonly stderr: NodeJS.WritableStream | null;
  private readonly maxMessageBytes: number;
  private readonly requestTimeoutMs: number;
  private readonly maxReadBytes: number;
  private readonly maxGrepMatches: number;
  private readonly policy: ReturnType<typeof createSpillPolicy>;
  private readonly spilling: boolean;
  private resolveClosed!: (exit: SpillProxyExit) => void;
  private upstreamTransport: UpstreamStdioTransport | StreamableHTTPClientTransport | undefined;
  private client: Client | undefined;
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server forwards requests as they are; McpServer cannot.
  private server: Server | undefined;
  private upstreamGone: SpillProxyError | undefined;
  private ending: SpillProxyExit['reason'] | undefined;
  private readonly taskTools = new Map<string, string>();

  constructor(options: SpillProxyOptions, upstream: SpillProxyUpstream) {
    this.options = options;
    this.upstream = upstream;
    this.label = describeUpstream(upstream);
    this.sessionId = options.sessionId ?? `mcp-${randomUUID()}`;
    this.stderr = options.stderr === undefined ? process.stderr : options.stderr;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.maxReadBytes = options.maxReadBytes ?? DEFAULT_READ_MAX_BYTES;
    this.maxGrepMatches = options.maxGrepMatches ?? DEFAULT_MAX_GREP_MATCHES;
    this.policy = createSpillPolicy({
      backend: options.backend,
      maxInlineBytes: options.maxInlineBytes ?? DEFAULT_MAX_INLINE_BYTES,
      skipTools: SPILL_TOOL_NAMES,
      previewBytes: options.previewBytes,
      saveTimeoutMs: options.saveTimeoutMs,
      onEvent: (event) => {
        this.report({ type: 'spill', event });
      },
    });
    this.spilling = options.backend !== undefined;
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  private report(event: SpillProxyEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A throwing listener must not break a call.
    }
    const line = this.describeEvent(event);
    if (line !== undefined && this.stderr !== null) this.stderr.write(`spillway mcp: ${line}\n`);
  }

  private describeEvent(event: SpillProxyEvent): string | undefined {
    switch (event.type) {
      case 'spill': {
        const e = event.event;
        if (e.type === 'spilled') return undefined;
        const why = e.error instanceof Error ? `: ${e.error.message}` : '';
        return `warning: the result of ${e.toolName} (${String(e.bytes)} bytes) was not spilled (${e.reason})${why}; it is passed on as it was.`;
      }
      case 'malformed':
        return `warning: ${event.message} [${event.code}]`;
      case 'upstream-closed':
        return `error: ${event.message} [${event.code}]`;
      case 'warning':
        return `warning: ${event.message}`;
    }
  }

  private get reader(): SpillBackend['reader'] {
    return this.options.backend?.reader;
  }

  async start(): Promise<void> {
    if (this.client !== undefined) throw new Error('The proxy is already started.');
    // The host's initialize comes first: the upstream server is then told the host's own
    // name and capabilities (sampling, elicitation, roots), and the host gets the upstream
    // server's in return.
    const downstream = new HeldTransport(this.options.downstream ?? this.stdioDownstream());
    const initialize = await downstream.firstRequest();
    if (initialize === undefined) {
      await this.shutdown('downstream-closed');
      return;
    }
    const params = (initialize.params ?? {}) as { clientInfo?: Implementation; capabilities?: ClientCapabilities };
    const hostCaps = params.capabilities ?? {};
    // Tasks the host runs for the server are not forwarded; everything else is offered as the host offers it.
    const { tasks: _tasks, ...forwardedCaps } = hostCaps;
    const clientInfo = params.clientInfo ?? { name: 'spillway-mcp', version: version() };
    const client = new Client(clientInfo, { capabilities: forwardedCaps });
    this.client = client;
    const transport = this.makeUpstreamTransport();
    this.upstreamTransport = transport;
    client.onerror = (error) => {
      if (this.upstreamGone === undefined) this.report({ type: 'warning', message: `upstream: ${error.message}` });
    };
    try {
      // A server started through `npx -y` may download itself first: give initialize at
      // least the default timeout, however short the per-request one is.
      await client.connect(transport, { timeout: Math.max(this.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS) });
    } catch (error) {
      const failure = this.startFailure(error);
      await transport.close().catch(() => undefined);
      this.report({ type: 'upstream-closed', code: failure.code, message: failure.message, exit: this.exit });
      await this.refuseDownstream(downstream, initialize, failure);
      this.resolveClosed({ reason: 'upstream-closed', error: failure, upstreamExit: this.exit });
      throw failure;
    }
    client.onclose = () => {
      this.onUpstreamClosed();
    };
    client.fallbackNotificationHandler = (notification) => this.forwardNotification(notification);

    const server = this.makeServer(client);
    this.server = server;
    this.forwardHostRequests(client, server, forwardedCaps);
    server.onclose = () => {
      void this.shutdown('downstream-closed');
    };
    await server.connect(downstream);
    if (this.upstreamGone !== undefined) void this.shutdown('upstream-closed');
  }

  /** Requests the upstream server sends to the host (sampling, elicitation, roots), for what the host supports. */
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server forwards requests as they are; McpServer cannot.
  private forwardHostRequests(client: Client, server: Server, caps: ClientCapabilities): void {
    const options = (signal: AbortSignal): RequestOptions => ({ signal, timeout: this.requestTimeoutMs, resetTimeoutOnProgress: true });
    type HostRequest = Parameters<typeof server.request>;
    const toHost = async (request: HostRequest[0], schema: HostRequest[1], signal: AbortSignal): Promise<AnyResult> => {
      try {
        const result: unknown = await server.request(request, schema, options(signal));
        return result as AnyResult;
      } catch (error) {
        throw upstreamRpcError(error);
      }
    };
    if (caps.sampling !== undefined) {
      client.setRequestHandler(CreateMessageRequestSchema, (r, e) => toHost(r, CreateMessageResultSchema, e.signal) as never);
    }
    if (caps.elicitation !== undefined) {
      client.setRequestHandler(ElicitRequestSchema, (r, e) => toHost(r, ElicitResultSchema, e.signal) as never);
    }
    if (caps.roots !== undefined) {
      client.setRequestHandler(ListRootsRequestSchema, (r, e) => toHost(r, ListRootsResultSchema, e.signal) as never);
      server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
        await client.sendRootsListChanged().catch((error: unknown) => {
          this.report({ type: 'warning', message: `could not pass on notifications/roots/list_changed: ${error instanceof Error ? error.message : String(error)}` });
        });
      });
    }
  }

  private get exit(): UpstreamExit | undefined {
    return this.upstreamTransport instanceof UpstreamStdioTransport ? this.upstreamTransport.exit : undefined;
  }

  private makeUpstreamTransport(): UpstreamStdioTransport | StreamableHTTPClientTransport {
    const upstream = this.upstream;
    if (isHttp(upstream)) {
      return new StreamableHTTPClientTransport(new URL(String(upstream.url)), {
        requestInit: { headers: { ...(upstream.headers ?? {}) } },
      });
    }
    return new UpstreamStdioTransport({
      command: upstream.command,
      args: upstream.args ?? [],
      env: upstream.env ?? process.env,
      cwd: upstream.cwd,
      stderr: this.stderr,
      maxMessageBytes: this.maxMessageBytes,
      onMalformed: (error, line) => {
        const shown = line.length > 200 ? `${line.slice(0, 200)}…` : line;
        this.report({
          type: 'malformed',
          code: 'SPILLWAY_UPSTREAM_MALFORMED',
          message: `${this.label} wrote something that is not a JSON-RPC message (${error.message.split('\n')[0] ?? ''})${shown === '' ? '' : `: ${shown}`}; it was skipped.`,
        });
      },
    });
  }

  private stdioDownstream(): Transport {
    const transport = new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: this.maxMessageBytes });
    // The SDK's stdio server transport does not notice that the host closed stdin.
    const onEnd = (): void => {
      void this.shutdown('downstream-closed');
    };
    process.stdin.once('end', onEnd);
    process.stdin.once('close', onEnd);
    void this.closed.then(() => {
      process.stdin.off('end', onEnd);
      process.stdin.off('close', onEnd);
      process.stdin.pause();
    });
    return transport;
  }

  private startFailure(error: unknown): SpillProxyError {
    const cause = error instanceof Error ? error.message.replace(/^MCP error -?\d+: /, '') : String(error);
    const code = (error as { code?: unknown } | undefined)?.code;
    let message: string;
    if (isHttp(this.upstream)) {
      message = `The upstream MCP server at ${this.label} could not be reached: ${cause}. Check the URL, the headers and that the server is running.`;
    } else if (code === 'ENOENT') {
      message = `The upstream MCP server could not be started: ${quoteWord(this.upstream.command)} was not found on PATH (${this.label}). Install it or give its full path.`;
    } else if (code === 'EACCES') {
      message = `The upstream MCP server could not be started: ${quoteWord(this.upstream.command)} is not executable (${this.label}).`;
    } else if (this.exit !== undefined) {
      message = `The upstream MCP server \`${this.label}\` ended before it finished initializing: ${describeExit(this.exit)}. Its stderr (above) says why.`;
    } else {
      message = `The upstream MCP server \`${this.label}\` did not initialize: ${cause}.`;
    }
    return new SpillProxyError('SPILLWAY_UPSTREAM_START_FAILED', message, { cause: error });
  }

  /** Answers the host's initialize with `failure`, then closes the host side. */
  private async refuseDownstream(downstream: HeldTransport, initialize: JSONRPCRequest, failure: SpillProxyError): Promise<void> {
    const error = { code: UPSTREAM_ERROR_RPC_CODE, message: failure.message, data: this.errorData(failure) };
    await downstream.send({ jsonrpc: '2.0', id: initialize.id, error }).catch(() => undefined);
    await downstream.close().catch(() => undefined);
    if (this.options.downstream === undefined) process.stdin.pause();
  }

  private errorData(failure: SpillProxyError): Record<string, unknown> {
    const exit = this.exit;
    return {
      code: failure.code,
      upstream: this.label,
      ...(exit === undefined ? {} : { exitCode: exit.code, signal: exit.signal }),
    };
  }

  private onUpstreamClosed(): void {
    if (this.ending !== undefined) return;
    const message = isHttp(this.upstream)
      ? `The connection to the upstream MCP server at ${this.label} closed.`
      : `The upstream MCP server \`${this.label}\` stopped: ${describeExit(this.exit)}. Its stderr says why; restart the host's MCP server to try again.`;
    const failure = new SpillProxyError('SPILLWAY_UPSTREAM_EXITED', message);
    this.upstreamGone = failure;
    this.report({ type: 'upstream-closed', code: failure.code, message, exit: this.exit });
    // Pending requests are rejected right after this returns; let their answers go out first.
    if (this.server !== undefined) setTimeout(() => void this.shutdown('upstream-closed'), 50);
  }

  private goneError(): Error | undefined {
    const gone = this.upstreamGone;
    if (gone === undefined) return undefined;
    return rpcError(UPSTREAM_ERROR_RPC_CODE, gone.message, this.errorData(gone));
  }

  async close(): Promise<void> {
    await this.shutdown('closed');
  }

  private async shutdown(reason: SpillProxyExit['reason']): Promise<void> {
    if (this.ending !== undefined) {
      await this.closed;
      return;
    }
    this.ending = reason;
    await Promise.allSettled([this.server?.close(), this.client?.close()]);
    // Wait for the child to be gone, so that an exit status is known to callers.
    await this.upstreamTransport?.close().catch(() => undefined);
    this.resolveClosed({
      reason,
      ...(reason === 'upstream-closed' ? { error: this.upstreamGone } : {}),
      upstreamExit: this.exit,
    });
  }

  private async forwardNotification(notification: Notification): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    try {
      await server.notification(notification);
    } catch (error) {
      this.report({ type: 'warning', message: `could not pass on ${notification.method}: ${error instanceof Error ? error.message : String(error)}` });
    }
  }

  /** Request options for a forwarded request: the host's signal, progress under its own token. */
  private requestOptions(
    params: { readonly _meta?: { readonly progressToken?: string | number | undefined } | undefined } | undefined,
    extra: { readonly signal: AbortSignal; readonly sendNotification: (n: never) => Promise<void> },
  ): RequestOptions {
    const token = params?._meta?.progressToken;
    const sendNotification = extra.sendNotification as (n: Notification) => Promise<void>;
    return {
      signal: extra.signal,
      timeout: this.requestTimeoutMs,
      resetTimeoutOnProgress: true,
      ...(token === undefined
        ? {}
        : {
            onprogress: (progress) => {
              void sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken: token } }).catch(() => undefined);
            },
          }),
    };
  }

  private async forward(
    request: { readonly method: string; readonly params?: Record<string, unknown> | undefined },
    schema: Parameters<Client['request']>[1],
    extra: { readonly signal: AbortSignal; readonly sendNotification: (n: never) => Promise<void> },
  ): Promise<AnyResult> {
    const gone = this.goneError();
    if (gone !== undefined) throw gone;
    const client = this.client;
    if (client === undefined) throw rpcError(UPSTREAM_ERROR_RPC_CODE, 'The proxy is not connected upstream.');
    try {
      const params = request.params as { _meta?: { progressToken?: string | number } } | undefined;
      const result: unknown = await client.request(request, schema, this.requestOptions(params, extra));
      return result as AnyResult;
    } catch (error) {
      throw this.goneError() ?? upstreamRpcError(error);
    }
  }

  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server forwards requests as they are; McpServer cannot.
  private makeServer(client: Client): Server {
    const upstreamCaps: ServerCapabilities = client.getServerCapabilities() ?? {};
    const capabilities: ServerCapabilities = { ...upstreamCaps, tools: { ...(upstreamCaps.tools ?? {}) } };
    const instructions = client.getInstructions();
    const info = client.getServerVersion() ?? { name: 'spillway-mcp', version: version() };
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server forwards requests as they are; McpServer cannot.
    const server = new Server(info, { capabilities, ...(instructions === undefined ? {} : { instructions }) });
    server.onerror = (error) => {
      this.report({ type: 'warning', message: `host side: ${error.message}` });
    };

    server.setRequestHandler(PingRequestSchema, (request, extra) => this.forward(request, EmptyResultSchema, extra));
    server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
      const page =
        upstreamCaps.tools === undefined ? { tools: [] } : await this.forward(request, ListToolsResultSchema, extra);
      const tools = (page.tools as Tool[]).map((tool) => this.mirrorTool(tool));
      const first = request.params?.cursor === undefined;
      return { ...page, tools: first ? [...this.ownTools(), ...tools] : tools };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const name = upstreamToolName(request.params.name);
      if (name === undefined) return this.callOwnTool(request.params.name, request.params.arguments, extra.signal);
      if (upstreamCaps.tools === undefined) throw rpcError(-32602, `Unknown tool: ${request.params.name}`);
      const forwarded = { ...request, params: { ...request.params, name } };
      if (request.params.task !== undefined) {
        const created = await this.forward(forwarded, CreateTaskResultSchema, extra);
        const taskId = (created.task as { taskId?: unknown } | undefined)?.taskId;
        if (typeof taskId === 'string') this.taskTools.set(taskId, request.params.name);
        return created;
      }
      const result = await this.forward(forwarded, CallToolResultSchema, extra);
      return (await this.spill(request.params.name, result as CallToolResult));
    });

    if (upstreamCaps.prompts !== undefined) {
      server.setRequestHandler(ListPromptsRequestSchema, (r, e) => this.forward(r, ListPromptsResultSchema, e) as never);
      server.setRequestHandler(GetPromptRequestSchema, (r, e) => this.forward(r, GetPromptResultSchema, e) as never);
    }
    if (upstreamCaps.resources !== undefined) {
      server.setRequestHandler(ListResourcesRequestSchema, (r, e) => this.forward(r, ListResourcesResultSchema, e) as never);
      server.setRequestHandler(ListResourceTemplatesRequestSchema, (r, e) => this.forward(r, ListResourceTemplatesResultSchema, e) as never);
      server.setRequestHandler(ReadResourceRequestSchema, (r, e) => this.forward(r, ReadResourceResultSchema, e) as never);
      if (upstreamCaps.resources.subscribe === true) {
        server.setRequestHandler(SubscribeRequestSchema, (r, e) => this.forward(r, EmptyResultSchema, e) as never);
        server.setRequestHandler(UnsubscribeRequestSchema, (r, e) => this.forward(r, EmptyResultSchema, e) as never);
      }
    }
    if (upstreamCaps.completions !== undefined) {
      server.setRequestHandler(CompleteRequestSchema, (r, e) => this.forward(r, CompleteResultSchema, e) as never);
    }
    if (upstreamCaps.logging !== undefined) {
      server.setRequestHandler(SetLevelRequestSchema, (r, e) => this.forward(r, EmptyResultSchema, e) as never);
    }
    if (upstreamCaps.tasks !== undefined) {
      server.setRequestHandler(GetTaskRequestSchema, (r, e) => this.forward(r, GetTaskResultSchema, e) as never);
      server.setRequestHandler(ListTasksRequestSchema, (r, e) => this.forward(r, ListTasksResultSchema, e) as never);
      server.setRequestHandler(CancelTaskRequestSchema, (r, e) => this.forward(r, CancelTaskResultSchema, e) as never);
      server.setRequestHandler(GetTaskPayloadRequestSchema, async (r, e) => {
        const payload = await this.forward(r, GetTaskPayloadResultSchema, e);
        const toolName = this.taskTools.get(r.params.taskId);
        const asTool = CallToolResultSchema.safeParse(payload);
        if (toolName === undefined || !asTool.success) return payload;
        return (await this.spill(toolName, { ...payload, content: asTool.data.content }));
      });
    }
    return server;
  }

  /** The proxy's own tools, when the backend can read back. */
  private ownTools(): Tool[] {
    if (this.reader === undefined) return [];
    const grepChars = this.maxGrepMatches * (DEFAULT_GREP_MAX_LINE_BYTES + 32) + 1_024;
    const tools: Tool[] = spillToolDefinitions.map((definition) => ({
      name: definition.name,
      description: definition.description,
      inputSchema: definition.inputSchema as unknown as Tool['inputSchema'],
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: { [MAX_RESULT_SIZE_META_KEY]: definition.name === SPILL_GREP_TOOL ? grepChars : this.maxReadBytes + 1_024 },
    }));
    return this.options.search === undefined ? tools : [...tools, searchToolListing(MAX_RESULT_SIZE_META_KEY)];
  }

  /** An upstream tool as the host sees it: renamed on a collision, without `outputSchema` while spilling. */
  private mirrorTool(tool: Tool): Tool {
    const name = downstreamToolName(tool.name);
    if (!this.spilling && name === tool.name) return tool;
    const { outputSchema, ...rest } = tool;
    return { ...(this.spilling || outputSchema === undefined ? rest : { ...rest, outputSchema }), name };
  }

  private async callOwnTool(name: string, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
    const searcher = this.options.search;
    if (name === SPILL_SEARCH_TOOL && searcher !== undefined) {
      const found = await runSpillSearch(searcher, args ?? {}, { sessionId: brandSessionId(this.sessionId), signal });
      return { content: [{ type: 'text', text: found.text }], ...(found.isError ? { isError: true } : {}) };
    }
    const reader = this.reader;
    if (reader === undefined) throw rpcError(-32602, `Unknown tool: ${name}`);
    let input = args;
    if (name === SPILL_GREP_TOOL && typeof args === 'object' && args !== null) {
      const asked = (args as { maxMatches?: unknown }).maxMatches;
      if (typeof asked === 'number' && asked > this.maxGrepMatches) input = { ...args, maxMatches: this.maxGrepMatches };
    }
    const answer = await runSpillTool(reader, name, input ?? {}, {
      maxReadBytes: this.maxReadBytes,
      defaultMaxMatches: Math.min(100, this.maxGrepMatches),
      signal,
    });
    return { content: [{ type: 'text', text: answer.text }], ...(answer.isError ? { isError: true } : {}) };
  }

  /** Puts a tool result through the policy; a spilled one loses its `structuredContent`. */
  private async spill(toolName: string, result: CallToolResult): Promise<CallToolResult> {
    if (!this.spilling || !Array.isArray(result.content)) return result;
    const input = { content: result.content as readonly ContentBlock[], ...(result.isError === true ? { isError: true } : {}) };
    const out = await this.policy.applyToResult({ toolName, callId: randomUUID(), sessionId: this.sessionId }, input);
    if (out === input) return result;
    const { structuredContent: _dropped, ...rest } = result;
    return { ...rest, content: out.content as CallToolResult['content'] };
  }
}

/**
 * Wraps the host-side transport so that its first request (initialize) can be read before
 * the proxy's `Server` exists, then handed to that server as if it had just arrived.
 */
class HeldTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly inner: Transport;
  private held: JSONRPCMessage[] = [];
  private connected = false;

  constructor(inner: Transport) {
    this.inner = inner;
  }

  /** Starts the host side and resolves with its first request, or `undefined` when it closes first. */
  firstRequest(): Promise<JSONRPCRequest | undefined> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (request: JSONRPCRequest | undefined): void => {
        if (done) return;
        done = true;
        resolve(request);
      };
      this.inner.onmessage = (message) => {
        if (this.connected) {
          this.onmessage?.(message);
          return;
        }
        this.held.push(message);
        if ('method' in message && 'id' in message) finish(message);
      };
      this.inner.onclose = () => {
        if (this.connected) this.onclose?.();
        finish(undefined);
      };
      this.inner.onerror = (error) => {
        this.onerror?.(error);
      };
      this.inner.start().catch(() => {
        finish(undefined);
      });
    });
  }

  /** Called by the SDK on connect: the host side is already started; replay what was held. */
  start(): Promise<void> {
    this.connected = true;
    const held = this.held;
    this.held = [];
    setImmediate(() => {
      for (const message of held) this.onmessage?.(message);
    });
    return Promise.resolve();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
