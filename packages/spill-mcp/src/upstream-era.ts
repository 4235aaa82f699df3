import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  metaOf,
  MODERN_PROTOCOL_VERSION,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  type Json,
} from './era.js';

/** Which era the proxy tries first toward the server. */
export type EraPreference = 'legacy' | 'modern';

const PROBE_ID = 'spillway-server-discover';
const PROBE_TIMEOUT_MS = 10_000;

/**
 * The upstream side of the era bridge: a transport under the proxy's (2025-era) client
 * that speaks whichever era the server offers. The client's `initialize` becomes a
 * `server/discover` when the server answers it, each later request then carries the
 * 2026 envelope in `_meta`, and each result loses the 2026-only fields. A server that
 * knows no `server/discover` (a 2025 one answers "method not found") gets the
 * `initialize` itself, and everything passes as it is. The 2026-only fields of results are
 * dropped for a 2025 host, and kept for a 2026 one.
 */
export class UpstreamEraTransport implements Transport {
  /** Set by the SDK. */
  onclose?: () => void;
  /** Set by the SDK. */
  onerror?: (error: Error) => void;
  /** Set by the SDK. */
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly inner: Transport;
  private readonly prefer: EraPreference;
  private modern = false;
  private envelope: Json = {};
  private probe: ((message: Json) => void) | undefined;
  private initializeId: string | number | undefined;
  private divert: ((message: Json) => boolean) | undefined;

  /**
   * @param inner - the transport to the server
   * @param prefer - the era to try first: the host's own, so that nothing needs translating when the server has it
   */
  constructor(inner: Transport, prefer: EraPreference) {
    this.inner = inner;
    this.prefer = prefer;
  }

  /** The era the server is spoken to in, once known. */
  get era(): 'legacy' | 'modern' {
    return this.modern ? 'modern' : 'legacy';
  }

  /** Lets `divert` take messages (in the client's era) before the client sees them. */
  divertTo(divert: (message: Json) => boolean): void {
    this.divert = divert;
  }

  /** Starts the inner transport. */
  start(): Promise<void> {
    this.inner.onmessage = (message) => {
      this.receive(message);
    };
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    return this.inner.start();
  }

  /** Closes the inner transport. */
  close(): Promise<void> {
    return this.inner.close();
  }

  /** Sends one message from the client, in the server's era. */
  async send(message: JSONRPCMessage): Promise<void> {
    const m = message as unknown as Json;
    if (m.method === 'initialize' && m.id !== undefined && this.initializeId === undefined) {
      await this.open(m);
      return;
    }
    if (!this.modern) {
      await this.inner.send(message);
      return;
    }
    if (m.method === 'notifications/initialized') return;
    if (m.method !== undefined && m.id !== undefined) {
      const params = (m.params ?? {}) as Json;
      await this.inner.send({ ...m, params: { ...params, _meta: { ...metaOf(params), ...this.envelope } } } as unknown as JSONRPCMessage);
      return;
    }
    await this.inner.send(message);
  }

  private async open(initialize: Json): Promise<void> {
    const id = initialize.id as string | number;
    this.initializeId = id;
    const params = (initialize.params ?? {}) as { clientInfo?: unknown; capabilities?: unknown; protocolVersion?: unknown };
    this.envelope = {
      [PROTOCOL_VERSION_META_KEY]: MODERN_PROTOCOL_VERSION,
      [CLIENT_INFO_META_KEY]: params.clientInfo,
      [CLIENT_CAPABILITIES_META_KEY]: params.capabilities ?? {},
    };
    if (this.prefer === 'modern' && (await this.discover(id, params.protocolVersion))) return;
    await this.inner.send(initialize as unknown as JSONRPCMessage);
  }

  /** Asks `server/discover`; on a 2026 answer, answers the client's initialize from it. */
  private async discover(initializeId: string | number, asked: unknown): Promise<boolean> {
    const answer = new Promise<Json>((resolve) => {
      this.probe = resolve;
    });
    await this.inner.send({ jsonrpc: '2.0', id: PROBE_ID, method: 'server/discover', params: { _meta: this.envelope } } as unknown as JSONRPCMessage);
    // A server that neither answers nor refuses the probe gets the 2025 handshake after a while.
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<Json>((resolve) => {
      timer = setTimeout(() => {
        resolve({});
      }, PROBE_TIMEOUT_MS);
    });
    const response = await Promise.race([answer, silent]);
    clearTimeout(timer);
    this.probe = undefined;
    const result = response.result as Json | undefined;
    const versions = result?.supportedVersions;
    if (!Array.isArray(versions) || !versions.includes(MODERN_PROTOCOL_VERSION)) return false;
    this.modern = true;
    const serverInfo = metaOf(result)?.[SERVER_INFO_META_KEY] ?? { name: 'upstream', version: '0.0.0' };
    const initialized: Json = {
      protocolVersion: typeof asked === 'string' ? asked : '2025-11-25',
      capabilities: result?.capabilities ?? {},
      serverInfo,
      ...(typeof result?.instructions === 'string' ? { instructions: result.instructions } : {}),
    };
    this.onmessage?.({ jsonrpc: '2.0', id: initializeId, result: initialized } as unknown as JSONRPCMessage);
    return true;
  }

  private receive(message: Json): void {
    if (message.id === PROBE_ID && this.probe !== undefined && message.method === undefined) {
      const resolve = this.probe;
      this.probe = undefined;
      resolve(message);
      return;
    }
    if (!this.modern && this.prefer === 'legacy' && message.id === this.initializeId && message.error !== undefined && this.probe === undefined) {
      // A server that refuses the 2025 handshake may still speak 2026.
      this.initializeId = `${String(this.initializeId)}-answered`;
      void this.discover(message.id as string | number, undefined).then((modern) => {
        if (!modern) this.onmessage?.(message as unknown as JSONRPCMessage);
      });
      return;
    }
    const out = this.modern && message.result !== undefined && message.method === undefined ? this.legacyResponse(message) : (message as unknown as JSONRPCMessage);
    if (this.divert?.(out) === true) return;
    this.onmessage?.(out);
  }

  /** A 2026 response as a 2025 one: without `resultType` and the cache hints, and an `input_required` result as an error. */
  private legacyResponse(message: Json): JSONRPCMessage {
    const result = message.result as Json;
    if (result.resultType !== undefined && result.resultType !== 'complete') {
      const requests = Object.values((result.inputRequests ?? {}) as Record<string, { method?: unknown }>).map((r) => String(r.method));
      const error = {
        code: -32603,
        message: `spillway mcp does not carry a multi-round-trip request (resultType ${JSON.stringify(result.resultType)}${requests.length === 0 ? '' : `: ${requests.join(', ')}`}) from a 2026-07-28 server to its host; call the server directly for this.`,
      };
      return { jsonrpc: '2.0', id: message.id, error } as unknown as JSONRPCMessage;
    }
    // A 2026 host is given the server's own cache hints and name; a 2025 one, what a 2025 server sends.
    if (this.prefer === 'modern') return message as unknown as JSONRPCMessage;
    const { resultType: _type, ttlMs: _ttl, cacheScope: _scope, ...out } = result;
    const meta = metaOf(out);
    if (meta !== undefined && SERVER_INFO_META_KEY in meta) {
      const { [SERVER_INFO_META_KEY]: _server, ...rest } = meta;
      if (Object.keys(rest).length === 0) delete out._meta;
      else out._meta = rest;
    }
    return { ...message, result: out } as unknown as JSONRPCMessage;
  }
}
