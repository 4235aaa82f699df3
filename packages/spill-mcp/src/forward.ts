import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  CancelTaskRequestSchema,
  CompleteRequestSchema,
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListRootsRequestSchema,
  ListRootsResultSchema,
  ListTasksRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  ResultSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  type Notification,
  type ServerCapabilities,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

/** A result as it travels: a JSON object. */
export type AnyResult = Record<string, unknown>;

/** What a result hook is told about the result it may replace. */
export type ResultKind = 'tool' | 'resource' | 'prompt';

/**
 * What forwarding asks of the rest of the proxy. Forwarding mirrors the upstream server and
 * knows nothing of spilling: results pass through {@link ForwardHooks.onResult}, and the
 * proxy's own tools are whatever {@link ForwardHooks.tools} offers.
 */
export interface ForwardHooks {
  /** Tools offered before the upstream's, on the first page of `tools/list`. */
  readonly tools: {
    list(): Tool[];
    has(name: string): boolean;
    call(name: string, args: unknown, signal: AbortSignal): Promise<CallToolResult>;
  };
  /** An upstream tool as the host sees it. */
  readonly mirrorTool: (tool: Tool) => Tool;
  /** The upstream name of a tool the host calls by `name`. */
  readonly upstreamToolName: (name: string) => string;
  /** Sees (and may replace) every tool result, read resource and prompt. */
  readonly onResult: (kind: ResultKind, name: string, result: AnyResult) => Promise<AnyResult>;
  /** The error every request gets once the upstream has gone, if it has. */
  readonly gone: () => Error | undefined;
  /** A problem worth a warning. */
  readonly warn: (what: string, error: unknown) => void;
  /** How long a forwarded request may go without an answer or progress. */
  readonly requestTimeoutMs: number;
}

/** A JSON-RPC error to answer the host with: code, message and data, as the SDK sends them. */
export function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}

/** The SDK prefixes error messages it receives with "MCP error <code>: "; strip it back off. */
function upstreamRpcError(error: unknown): unknown {
  if (!(error instanceof Error) || typeof (error as { code?: unknown }).code !== 'number') return error;
  const code = (error as unknown as { code: number }).code;
  const message = error.message.replace(/^MCP error -?\d+: /, '');
  return rpcError(code, message, (error as { data?: unknown }).data);
}

interface Extra {
  readonly signal: AbortSignal;
  readonly sendNotification: (n: never) => Promise<void>;
}

type Params = { readonly _meta?: { readonly progressToken?: string | number | undefined } | undefined } | undefined;

/**
 * The host-facing server: a low-level SDK `Server` with the upstream's identity and
 * capabilities, whose every handler forwards to the upstream `client`.
 */
export class Forwarder {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server forwards requests as they are; McpServer cannot.
  readonly server: Server;
  private readonly client: Client;
  private readonly hooks: ForwardHooks;
  private readonly taskTools = new Map<string, string>();
  private readonly served: { serverInfo: { name: string; version: string }; capabilities: ServerCapabilities; instructions: string | undefined };

  /**
   * @param client - connected to the upstream server
   * @param hooks - the rest of the proxy
   * @param fallbackInfo - the server's name and version when the upstream gave none
   */
  constructor(client: Client, hooks: ForwardHooks, fallbackInfo: { name: string; version: string }) {
    this.client = client;
    this.hooks = hooks;
    const upstreamCaps: ServerCapabilities = client.getServerCapabilities() ?? {};
    const capabilities: ServerCapabilities = { ...upstreamCaps, tools: { ...(upstreamCaps.tools ?? {}) } };
    const instructions = client.getInstructions();
    const info = client.getServerVersion() ?? fallbackInfo;
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server forwards requests as they are; McpServer cannot.
    this.server = new Server(info, { capabilities, ...(instructions === undefined ? {} : { instructions }) });
    this.served = { serverInfo: info, capabilities, instructions };
    this.server.onerror = (error) => {
      hooks.warn('host side', error);
    };
    this.mirror(upstreamCaps);
  }

  /** The name, capabilities and instructions the host is given. */
  get identity(): { serverInfo: { name: string; version: string }; capabilities: ServerCapabilities; instructions: string | undefined } {
    return this.served;
  }

  /** Passes a notification from the upstream on to the host. */
  async notify(notification: Notification): Promise<void> {
    try {
      await this.server.notification(notification);
    } catch (error) {
      this.hooks.warn(`could not pass on ${notification.method}`, error);
    }
  }

  /** Request options for a forwarded request: the host's signal, progress under its own token. */
  private options(params: Params, extra: Extra): RequestOptions {
    const token = params?._meta?.progressToken;
    const sendNotification = extra.sendNotification as (n: Notification) => Promise<void>;
    return {
      signal: extra.signal,
      timeout: this.hooks.requestTimeoutMs,
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

  /**
   * Forwards one request. Only the result's envelope is checked here (any JSON object): the
   * host's own SDK validates the result it receives, and the proxy's server checks a tool
   * result before answering, so a small result is not walked more often than needed.
   */
  private async forward(
    request: { readonly method: string; readonly params?: Record<string, unknown> | undefined },
    extra: Extra,
  ): Promise<AnyResult> {
    const gone = this.hooks.gone();
    if (gone !== undefined) throw gone;
    try {
      const result: unknown = await this.client.request(request, ResultSchema, this.options(request.params as Params, extra));
      return result as AnyResult;
    } catch (error) {
      throw this.hooks.gone() ?? upstreamRpcError(error);
    }
  }

  private mirror(caps: ServerCapabilities): void {
    const server = this.server;
    const hooks = this.hooks;
    const f = (): never => ((r: Parameters<Forwarder['forward']>[0], e: Extra) => this.forward(r, e)) as never;
    server.setRequestHandler(PingRequestSchema, f());
    server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
      const page = caps.tools === undefined ? { tools: [] } : await this.forward(request, extra);
      const tools = (Array.isArray(page.tools) ? (page.tools as Tool[]) : []).map((tool) => hooks.mirrorTool(tool));
      const first = request.params?.cursor === undefined;
      return { ...page, tools: first ? [...hooks.tools.list(), ...tools] : tools };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const shown = request.params.name;
      if (hooks.tools.has(shown)) return hooks.tools.call(shown, request.params.arguments, extra.signal);
      if (caps.tools === undefined) throw rpcError(-32602, `Unknown tool: ${shown}`);
      const forwarded = { ...request, params: { ...request.params, name: hooks.upstreamToolName(shown) } };
      if (request.params.task !== undefined) {
        const created = await this.forward(forwarded, extra);
        const taskId = (created.task as { taskId?: unknown } | undefined)?.taskId;
        if (typeof taskId === 'string') this.taskTools.set(taskId, shown);
        return created;
      }
      const result = await this.forward(forwarded, extra);
      return (await hooks.onResult('tool', shown, result));
    });
    if (caps.prompts !== undefined) {
      server.setRequestHandler(ListPromptsRequestSchema, f());
      server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
        const result = await this.forward(request, extra);
        return (await hooks.onResult('prompt', request.params.name, result));
      });
    }
    if (caps.resources !== undefined) {
      server.setRequestHandler(ListResourcesRequestSchema, f());
      server.setRequestHandler(ListResourceTemplatesRequestSchema, f());
      server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
        const result = await this.forward(request, extra);
        return (await hooks.onResult('resource', request.params.uri, result));
      });
      if (caps.resources.subscribe === true) {
        server.setRequestHandler(SubscribeRequestSchema, f());
        server.setRequestHandler(UnsubscribeRequestSchema, f());
      }
    }
    if (caps.completions !== undefined) server.setRequestHandler(CompleteRequestSchema, f());
    if (caps.logging !== undefined) server.setRequestHandler(SetLevelRequestSchema, f());
    if (caps.tasks !== undefined) {
      server.setRequestHandler(GetTaskRequestSchema, f());
      server.setRequestHandler(ListTasksRequestSchema, f());
      server.setRequestHandler(CancelTaskRequestSchema, f());
      server.setRequestHandler(GetTaskPayloadRequestSchema, async (r, e) => {
        const payload = await this.forward(r, e);
        const toolName = this.taskTools.get(r.params.taskId);
        if (toolName === undefined || !CallToolResultSchema.safeParse(payload).success) return payload;
        return (await hooks.onResult('tool', toolName, payload));
      });
    }
  }

  /** Requests the upstream server sends to the host (sampling, elicitation, roots), for what the host supports. */
  forwardHostRequests(caps: ClientCapabilities): void {
    const { client, server } = this;
    const options = (signal: AbortSignal): RequestOptions => ({ signal, timeout: this.hooks.requestTimeoutMs, resetTimeoutOnProgress: true });
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
          this.hooks.warn('could not pass on notifications/roots/list_changed', error);
        });
      });
    }
  }
}
