import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  ClientCapabilities,
  Implementation,
  JSONRPCMessage,
  JSONRPCRequest,
  ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import {
  claimedVersion,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LEGACY_PROTOCOL_VERSION,
  metaOf,
  MODERN_PROTOCOL_VERSION,
  NOT_BRIDGED_CODE,
  notBridged,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  UNSUPPORTED_PROTOCOL_VERSION_CODE,
  type Json,
} from './era.js';

const INITIALIZE_ID = 'spillway-modern-host-initialize';
// 2026 methods the proxy's 2025-era inside has no counterpart for.
const MODERN_ONLY = ['subscriptions/listen'];
// Methods whose 2026 results carry cache hints (`ttlMs`, `cacheScope`).
const CACHEABLE = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);
// What the proxy can promise of an answer it passes on: nothing beyond this host.
const NO_CACHE = { ttlMs: 0, cacheScope: 'private' } as const;

/** Whether the host's first request opens a 2026-07-28 connection (no `initialize`). */
export function opensModern(first: JSONRPCRequest): boolean {
  return first.method !== 'initialize' && (first.method === 'server/discover' || claimedVersion(first.params) !== undefined);
}

/** Who the proxy's server is, for `server/discover`. */
export interface ServedIdentity {
  readonly serverInfo: Implementation;
  readonly capabilities: ServerCapabilities;
  readonly instructions: string | undefined;
}

/**
 * The host side of the era bridge, for a 2026-07-28 host. The proxy's forwarding speaks
 * 2025 inside, so the host's connection is opened for it with an `initialize` made from
 * the first request's `_meta`; `server/discover` is answered here; each request loses the
 * 2026 envelope on its way in, and each result gains `resultType` on its way out.
 */
export class ModernHostEdge {
  /** The host as its first request named it. */
  readonly clientInfo: Implementation;
  /** What the host said it can do. */
  readonly capabilities: ClientCapabilities;
  private identity: (() => ServedIdentity) | undefined;
  private readonly cacheable = new Set<string | number>();
  // The inside's answer to the opening initialize is the first answer with its id; any
  // later one answers a host request that happened to use the same id, and goes out.
  private initializeAnswered = false;

  /** @param first - the host's first request */
  constructor(first: JSONRPCRequest) {
    const meta = metaOf(first.params);
    const info = meta?.[CLIENT_INFO_META_KEY] as Implementation | undefined;
    this.clientInfo = typeof info?.name === 'string' && typeof info.version === 'string' ? info : { name: 'modern-host', version: '0.0.0' };
    this.capabilities = (meta?.[CLIENT_CAPABILITIES_META_KEY] ?? {});
  }

  /** Tells the edge what to answer `server/discover` with. */
  serve(identity: () => ServedIdentity): void {
    this.identity = identity;
  }

  /**
   * What the upstream is offered of the host's capabilities. In 2026 a server asks for
   * sampling, elicitation and roots inside a result (multi-round-trip), not with a request
   * of its own, so none of them can be offered to a 2025 server.
   */
  get forwardedCapabilities(): ClientCapabilities {
    const { sampling: _s, elicitation: _e, roots: _r, tasks: _t, ...rest } = this.capabilities;
    return rest;
  }

  /** The messages that open the inside connection, before anything the host sent. */
  opening(): JSONRPCMessage[] {
    const params = { protocolVersion: LEGACY_PROTOCOL_VERSION, capabilities: this.forwardedCapabilities, clientInfo: this.clientInfo };
    return [
      { jsonrpc: '2.0', id: INITIALIZE_ID, method: 'initialize', params },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ] as JSONRPCMessage[];
  }

  /**
   * A host message on its way in: `undefined` when this edge answered it (through
   * `reply`), else the message for the inside.
   */
  incoming(message: JSONRPCMessage, reply: (message: JSONRPCMessage) => void): JSONRPCMessage | undefined {
    const m = message as unknown as Json;
    if (typeof m.method !== 'string' || m.id === undefined) return message;
    const id = m.id as string | number;
    const version = claimedVersion(m.params);
    if (version !== undefined && version !== MODERN_PROTOCOL_VERSION) {
      const error = {
        code: UNSUPPORTED_PROTOCOL_VERSION_CODE,
        message: `Unsupported protocol version ${version}: spillway mcp speaks ${MODERN_PROTOCOL_VERSION} and, after initialize, ${LEGACY_PROTOCOL_VERSION}.`,
        data: { supported: [MODERN_PROTOCOL_VERSION], requested: version },
      };
      reply({ jsonrpc: '2.0', id, error });
      return undefined;
    }
    if (m.method === 'server/discover') {
      reply({ jsonrpc: '2.0', id, result: this.discover() });
      return undefined;
    }
    if (MODERN_ONLY.includes(m.method)) {
      const error = { code: NOT_BRIDGED_CODE, message: notBridged(m.method, '2026-07-28 host', 'server behind a 2025-era bridge (list changes are not pushed)') };
      reply({ jsonrpc: '2.0', id, error });
      return undefined;
    }
    if (CACHEABLE.has(m.method)) this.cacheable.add(id);
    const meta = metaOf(m.params);
    if (meta === undefined || !(PROTOCOL_VERSION_META_KEY in meta)) return message;
    const {
      [PROTOCOL_VERSION_META_KEY]: _v,
      [CLIENT_INFO_META_KEY]: _i,
      [CLIENT_CAPABILITIES_META_KEY]: _c,
      ...rest
    } = meta;
    const { _meta: _old, ...params } = m.params as Json;
    return { ...m, params: Object.keys(rest).length === 0 ? params : { ...params, _meta: rest } } as unknown as JSONRPCMessage;
  }

  /** A message on its way out to the host, or `undefined` to drop it. */
  outgoing(message: JSONRPCMessage): JSONRPCMessage | undefined {
    const m = message as unknown as Json;
    if (m.id === INITIALIZE_ID && m.method === undefined && !this.initializeAnswered) {
      this.initializeAnswered = true;
      return undefined;
    }
    if (m.method !== undefined || m.id === undefined) return message;
    const id = m.id as string | number;
    const cacheable = this.cacheable.delete(id);
    const result = m.result as Json | undefined;
    if (result === undefined) return message;
    const hints = cacheable && (result.ttlMs === undefined || result.cacheScope === undefined) ? NO_CACHE : undefined;
    if (result.resultType !== undefined && hints === undefined) return message;
    return { ...m, result: { ...result, resultType: result.resultType ?? 'complete', ...hints } } as unknown as JSONRPCMessage;
  }

  private discover(): Json {
    const identity = this.identity?.();
    return {
      supportedVersions: [MODERN_PROTOCOL_VERSION],
      capabilities: identity?.capabilities ?? {},
      ...(identity?.instructions === undefined ? {} : { instructions: identity.instructions }),
      resultType: 'complete',
      ...NO_CACHE,
      _meta: { [SERVER_INFO_META_KEY]: identity?.serverInfo ?? { name: 'spillway-mcp', version: '0.0.0' } },
    };
  }
}

/**
 * Answers the requests a 2025 server sends its host (sampling, elicitation, roots) with an
 * error that names them, when the host speaks 2026-07-28: there they are parts of a result.
 */
export function refuseHostRequests(client: Client): void {
  client.fallbackRequestHandler = (request) =>
    Promise.reject(Object.assign(new Error(notBridged(`a ${request.method} request`, '2025-era server', '2026-07-28 host')), { code: NOT_BRIDGED_CODE }));
}
