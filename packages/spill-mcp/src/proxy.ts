import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities, Implementation, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { sessionId as brandSessionId } from '@spillway/core';
import { createSpillPolicy } from '@spillway/policy';
import { withSurfaceDefaults } from '@spillway/tools';
import { Diagnostics } from './diagnostics.js';
import { SpillProxyError, UPSTREAM_ERROR_RPC_CODE } from './errors.js';
import { Forwarder, rpcError } from './forward.js';
import { HeldTransport } from './held-transport.js';
import { ModernHostEdge, opensModern, refuseHostRequests } from './host-era.js';
import { FastLane } from './fast-lane.js';
import { upstreamToolName } from './names.js';
import { checkOptions, DEFAULT_REQUEST_TIMEOUT_MS, type ResolvedOptions, type SpillProxyOptions } from './options.js';
import { ResultSpiller } from './result-spill.js';
import { mirrorTool, OwnTools } from './spill-tools.js';
import type { UpstreamExit, UpstreamStdioTransport } from './stdio-upstream.js';
import { stdioHostTransport, upstreamTransport } from './transports.js';
import { UpstreamEraTransport, type EraPreference } from './upstream-era.js';

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

/**
 * Creates an MCP proxy that spills oversized results: an MCP server toward the host
 * (stdio by default) and an MCP client toward the real server (a command over stdio, or a
 * Streamable HTTP URL). Everything is forwarded as it is (initialize, tools, prompts,
 * resources, completions, logging, tasks, list-changed notifications, progress,
 * cancellation, ping, and the server's sampling, elicitation and roots requests to the
 * host) except:
 *
 * - a `tools/call` result, a `resources/read` result or a `prompts/get` result whose text is
 *   over `maxInlineBytes` goes through `@spillway/policy`: the host gets a preview and a
 *   notice (a spilled tool result loses its `structuredContent`, and while spilling is on
 *   no mirrored tool has an `outputSchema`);
 * - spillway's own tools (`spill_read`, `spill_grep`) are added when the backend has a
 *   reader; an upstream tool of the same name is renamed `upstream_<name>`.
 *
 * @throws TypeError for a bad option (no upstream, a count out of range, an empty session).
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
  return new ProxyRuntime(options, checkOptions(options));
}

class ProxyRuntime implements SpillProxy {
  readonly sessionId: string;
  readonly closed: Promise<SpillProxyExit>;

  private readonly options: SpillProxyOptions;
  private readonly config: ResolvedOptions;
  private readonly diagnostics: Diagnostics;
  private readonly spiller: ResultSpiller;
  private readonly ownTools: OwnTools;
  private readonly spilling: boolean;
  private resolveClosed!: (exit: SpillProxyExit) => void;
  private upstreamTransport: Transport | undefined;
  private stdioUpstream: UpstreamStdioTransport | undefined;
  private client: Client | undefined;
  private forwarder: Forwarder | undefined;
  private fastLane: FastLane | undefined;
  private upstreamGone: SpillProxyError | undefined;
  private ending: SpillProxyExit['reason'] | undefined;

  constructor(options: SpillProxyOptions, config: ResolvedOptions) {
    this.options = options;
    this.config = config;
    this.sessionId = config.sessionId ?? `mcp-${randomUUID()}`;
    this.diagnostics = new Diagnostics(config.upstream, config.label, config.stderr, options.onEvent);
    const policy = createSpillPolicy({
      backend: options.backend,
      maxInlineBytes: config.maxInlineBytes,
      // The notice names the spill_* tools this proxy adds; an upstream `read` spills like any tool.
      ...withSurfaceDefaults({}, { search: options.search !== undefined, wrapsHarnessTools: false }),
      previewBytes: options.previewBytes,
      saveTimeoutMs: options.saveTimeoutMs,
      onEvent: (event) => {
        this.diagnostics.report({ type: 'spill', event });
      },
    });
    this.spilling = options.backend !== undefined;
    this.spiller = new ResultSpiller(policy, this.sessionId, this.spilling);
    this.ownTools = new OwnTools(options.backend?.reader, {
      maxReadBytes: config.maxReadBytes,
      defaultMaxMatches: config.maxGrepMatches,
    }, options.search === undefined ? undefined : { searcher: options.search, sessionId: brandSessionId(this.sessionId) });
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
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
    // A 2026-07-28 host opens with `server/discover` or any request that carries the
    // envelope; it is served through an edge that translates to the 2025 era spoken inside.
    const modern = opensModern(initialize) ? new ModernHostEdge(initialize) : undefined;
    const params = (initialize.params ?? {}) as { clientInfo?: Implementation; capabilities?: ClientCapabilities };
    // Tasks the host runs for the server are not forwarded; everything else is offered as the host offers it.
    const { tasks: _tasks, ...legacyCaps } = params.capabilities ?? {};
    const forwardedCaps = modern?.forwardedCapabilities ?? legacyCaps;
    const clientInfo = modern?.clientInfo ?? params.clientInfo ?? { name: 'spillway-mcp', version: version() };
    const client = new Client(clientInfo, { capabilities: forwardedCaps });
    this.client = client;
    const transport = this.makeUpstreamTransport(modern === undefined ? 'legacy' : 'modern');
    this.upstreamTransport = transport;
    client.onerror = (error) => {
      if (this.upstreamGone === undefined) this.diagnostics.warn('upstream', error);
    };
    try {
      // A server started through `npx -y` may download itself first: give initialize at
      // least the default timeout, however short the per-request one is.
      await client.connect(transport, { timeout: Math.max(this.config.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS) });
    } catch (error) {
      const failure = this.diagnostics.startFailure(error, this.exit);
      await transport.close().catch(() => undefined);
      this.diagnostics.report({ type: 'upstream-closed', code: failure.code, message: failure.message, exit: this.exit });
      await this.refuseDownstream(downstream, initialize, failure);
      this.resolveClosed({ reason: 'upstream-closed', error: failure, upstreamExit: this.exit });
      throw failure;
    }
    client.onclose = () => {
      this.onUpstreamClosed();
    };
    const forwarder = new Forwarder(
      client,
      {
        tools: this.ownTools,
        mirrorTool: (tool) => mirrorTool(tool, this.spilling),
        upstreamToolName: (name) => upstreamToolName(name) ?? name,
        onResult: (kind, name, result) => this.spiller.apply(kind, name, result),
        gone: () => this.goneError(),
        warn: (what, error) => {
          this.diagnostics.warn(what, error);
        },
        requestTimeoutMs: this.config.requestTimeoutMs,
      },
      { name: 'spillway-mcp', version: version() },
    );
    this.forwarder = forwarder;
    client.fallbackNotificationHandler = (notification) => forwarder.notify(notification);
    forwarder.forwardHostRequests(forwardedCaps);
    if (modern !== undefined) {
      refuseHostRequests(client);
      modern.serve(() => forwarder.identity);
      downstream.translate(modern);
    }
    downstream.interceptRequests((request) => this.ownTools.answerMalformed(request));
    this.startFastLane(downstream);
    forwarder.server.onclose = () => {
      void this.shutdown('downstream-closed');
    };
    await forwarder.server.connect(downstream);
    if (this.upstreamGone !== undefined) void this.shutdown('upstream-closed');
  }

  /** `tools/call` of an upstream tool over stdio bypasses the SDK's two ends (see `fast-lane.ts`). */
  private startFastLane(downstream: HeldTransport): void {
    const upstream = this.upstreamTransport;
    if (!(upstream instanceof UpstreamEraTransport)) return;
    const lane = new FastLane({
      toHost: (message) => void downstream.send(message).catch(() => undefined),
      toUpstream: (message) => void upstream.send(message).catch(() => undefined),
      upstreamName: (name) => (this.ownTools.has(name) ? undefined : (upstreamToolName(name) ?? name)),
      onResult: (name, result) => this.spiller.apply('tool', name, result),
      gone: () => (this.upstreamGone === undefined ? undefined : this.goneJson()),
      requestTimeoutMs: this.config.requestTimeoutMs,
    });
    this.fastLane = lane;
    downstream.divertTo((message) => lane.fromHost(message));
    upstream.divertTo((message) => lane.fromUpstream(message));
  }

  private get exit(): UpstreamExit | undefined {
    return this.stdioUpstream?.exit;
  }

  /** The transport to the upstream: over stdio, in whichever era it speaks, the host's first. */
  private makeUpstreamTransport(prefer: EraPreference): Transport {
    const made = upstreamTransport(this.config, prefer, (error, line) => {
      this.diagnostics.malformed(error, line);
    });
    this.stdioUpstream = made.stdio;
    return made.transport;
  }

  private stdioDownstream(): Transport {
    return stdioHostTransport(this.config.maxMessageBytes, this.closed, () => void this.shutdown('downstream-closed'));
  }

  /** Answers the host's initialize with `failure`, then closes the host side. */
  private async refuseDownstream(downstream: HeldTransport, initialize: JSONRPCRequest, failure: SpillProxyError): Promise<void> {
    const error = { code: UPSTREAM_ERROR_RPC_CODE, message: failure.message, data: this.diagnostics.errorData(failure, this.exit) };
    await downstream.send({ jsonrpc: '2.0', id: initialize.id, error }).catch(() => undefined);
    await downstream.close().catch(() => undefined);
    if (this.options.downstream === undefined) process.stdin.pause();
  }

  private onUpstreamClosed(): void {
    if (this.ending !== undefined) return;
    const failure = this.diagnostics.upstreamGone(this.exit);
    this.upstreamGone = failure;
    this.diagnostics.report({ type: 'upstream-closed', code: failure.code, message: failure.message, exit: this.exit });
    this.fastLane?.failAll(this.goneJson());
    // Pending requests are rejected right after this returns; let their answers go out first.
    if (this.forwarder !== undefined) setTimeout(() => void this.shutdown('upstream-closed'), 50);
  }

  private goneJson(): { code: number; message: string; data: Record<string, unknown> } {
    const gone = this.upstreamGone as SpillProxyError;
    return { code: UPSTREAM_ERROR_RPC_CODE, message: gone.message, data: this.diagnostics.errorData(gone, this.exit) };
  }

  private goneError(): Error | undefined {
    if (this.upstreamGone === undefined) return undefined;
    const { code, message, data } = this.goneJson();
    return rpcError(code, message, data);
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
    await Promise.allSettled([this.forwarder?.server.close(), this.client?.close()]);
    // Wait for the child to be gone, so that an exit status is known to callers.
    await this.upstreamTransport?.close().catch(() => undefined);
    this.resolveClosed({
      reason,
      ...(reason === 'upstream-closed' ? { error: this.upstreamGone } : {}),
      upstreamExit: this.exit,
    });
  }
}
