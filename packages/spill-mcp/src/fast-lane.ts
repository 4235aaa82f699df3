import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Json } from './era.js';
import type { AnyResult } from './forward.js';

/** What the fast lane needs of the rest of the proxy. */
export interface FastLaneHooks {
  /** Writes to the host (through its era's edge). */
  readonly toHost: (message: JSONRPCMessage) => void;
  /** Writes to the upstream (through its era's edge). */
  readonly toUpstream: (message: JSONRPCMessage) => void;
  /** The upstream name of a tool the host calls, or `undefined` for one of spillway's own. */
  readonly upstreamName: (name: string) => string | undefined;
  /** Sees (and may replace) the tool result, as forwarding's result hook does. */
  readonly onResult: (name: string, result: AnyResult) => Promise<AnyResult>;
  /** The error every request gets once the upstream has gone, if it has. */
  readonly gone: () => { code: number; message: string; data?: unknown } | undefined;
  /** How long a call may go without an answer or progress. */
  readonly requestTimeoutMs: number;
}

interface Pending {
  readonly hostId: string | number;
  readonly name: string;
  readonly hostToken: string | number | undefined;
  timer: NodeJS.Timeout;
}

const PREFIX = 'spillway-fast-';

/**
 * The common call, `tools/call` of an upstream tool, forwarded without the SDK's server and
 * client in between: the request goes up as it came (the tool name mapped, the progress
 * token made the proxy's own), the answer comes back through the same result hook as every
 * other, and progress and cancellation are mapped on the way. Everything else takes the
 * SDK path. It saves the per-message schema walks and protocol bookkeeping of both SDK
 * ends, which is most of what the proxy itself costs on a small call.
 */
export class FastLane {
  private readonly hooks: FastLaneHooks;
  private readonly pending = new Map<string, Pending>();
  private readonly byHostId = new Map<string | number, string>();
  private next = 0;

  /** @param hooks - the rest of the proxy */
  constructor(hooks: FastLaneHooks) {
    this.hooks = hooks;
  }

  /** A host message: `true` when the lane took it. */
  fromHost(message: JSONRPCMessage): boolean {
    const m = message as unknown as Json;
    if (m.method === 'notifications/cancelled') return this.cancel(m);
    if (m.method !== 'tools/call' || m.id === undefined) return false;
    const params = m.params as Json | undefined;
    if (typeof params?.name !== 'string' || params.task !== undefined || this.hooks.gone() !== undefined) return false;
    const name = this.hooks.upstreamName(params.name);
    if (name === undefined) return false;
    const args = params.arguments;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) return false;
    const id = `${PREFIX}${String(this.next++)}`;
    const meta = params._meta as Json | undefined;
    const hostToken = meta?.progressToken as string | number | undefined;
    const hostId = m.id as string | number;
    this.pending.set(id, { hostId, name: params.name, hostToken, timer: this.timer(id) });
    this.byHostId.set(hostId, id);
    const upParams: Json = { ...params, name };
    if (hostToken !== undefined) upParams._meta = { ...meta, progressToken: id };
    this.hooks.toUpstream({ jsonrpc: '2.0', id, method: 'tools/call', params: upParams } as unknown as JSONRPCMessage);
    return true;
  }

  /** An upstream message: `true` when it belonged to the lane. */
  fromUpstream(message: Json): boolean {
    if (message.method === 'notifications/progress') {
      const params = message.params as Json | undefined;
      const token = params?.progressToken;
      if (typeof token !== 'string' || !token.startsWith(PREFIX)) return false;
      // Progress of a call that has ended (answered, cancelled, timed out) is dropped.
      const call = this.pending.get(token);
      if (call === undefined) return true;
      clearTimeout(call.timer);
      call.timer = this.timer(token);
      if (call.hostToken !== undefined) {
        this.hooks.toHost({ ...message, params: { ...params, progressToken: call.hostToken } } as unknown as JSONRPCMessage);
      }
      return true;
    }
    if (message.method !== undefined || typeof message.id !== 'string' || !message.id.startsWith(PREFIX)) return false;
    const call = this.settle(message.id);
    // The answer to a call that was cancelled or timed out is dropped.
    if (call === undefined) return true;
    if (message.error !== undefined) {
      this.hooks.toHost({ jsonrpc: '2.0', id: call.hostId, error: message.error } as JSONRPCMessage);
      return true;
    }
    const result = (message.result ?? {}) as AnyResult;
    void this.hooks.onResult(call.name, result).then(
      (shown) => {
        this.hooks.toHost({ jsonrpc: '2.0', id: call.hostId, result: shown });
      },
      () => {
        this.hooks.toHost({ jsonrpc: '2.0', id: call.hostId, result });
      },
    );
    return true;
  }

  /** Answers every call in flight with `error` (the upstream has gone). */
  failAll(error: { code: number; message: string; data?: unknown }): void {
    for (const id of [...this.pending.keys()]) {
      const call = this.settle(id);
      if (call !== undefined) this.hooks.toHost({ jsonrpc: '2.0', id: call.hostId, error });
    }
  }

  private settle(id: string): Pending | undefined {
    const call = this.pending.get(id);
    if (call === undefined) return undefined;
    clearTimeout(call.timer);
    this.pending.delete(id);
    this.byHostId.delete(call.hostId);
    return call;
  }

  private cancel(m: Json): boolean {
    const params = m.params as Json | undefined;
    const id = this.byHostId.get(params?.requestId as string | number);
    if (id === undefined) return false;
    this.settle(id);
    this.hooks.toUpstream({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { ...params, requestId: id } } as unknown as JSONRPCMessage);
    return true;
  }

  private timer(id: string): NodeJS.Timeout {
    const timer = setTimeout(() => {
      const call = this.settle(id);
      if (call === undefined) return;
      this.hooks.toUpstream({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'timed out' } } as unknown as JSONRPCMessage);
      const message = `The upstream server did not answer ${call.name} within ${String(this.hooks.requestTimeoutMs)} ms (--timeout).`;
      this.hooks.toHost({ jsonrpc: '2.0', id: call.hostId, error: { code: -32001, message, data: { timeout: this.hooks.requestTimeoutMs } } });
    }, this.hooks.requestTimeoutMs);
    timer.unref();
    return timer;
  }
}
