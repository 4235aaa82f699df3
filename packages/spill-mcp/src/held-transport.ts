import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { malformedRequestError } from './request-shape.js';

/**
 * Answers a host request before the SDK's schemas see it, or `undefined` to let it through.
 * It resolves with the request's `result`.
 */
export type Intercept = (request: JSONRPCRequest) => Promise<Record<string, unknown>> | undefined;

/** Translates between the host's protocol era and the one spoken inside (see `host-era.ts`). */
export interface HostEdge {
  /** Messages to deliver inside before the host's own. */
  opening(): JSONRPCMessage[];
  /** A host message for the inside, or `undefined` when the edge answered it with `reply`. */
  incoming(message: JSONRPCMessage, reply: (message: JSONRPCMessage) => void): JSONRPCMessage | undefined;
  /** A message for the host, or `undefined` to drop it. */
  outgoing(message: JSONRPCMessage): JSONRPCMessage | undefined;
}

/**
 * Wraps the host-side transport so that its first request (initialize) can be read before
 * the proxy's `Server` exists, then handed to that server as if it had just arrived. An
 * {@link Intercept} may answer a request itself, for what the SDK would refuse before any
 * handler ran.
 */
export class HeldTransport implements Transport {
  /** Set by the SDK. */
  onclose?: () => void;
  /** Set by the SDK. */
  onerror?: (error: Error) => void;
  /** Set by the SDK. */
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly inner: Transport;
  private held: JSONRPCMessage[] = [];
  private connected = false;
  private intercept: Intercept | undefined;
  private edge: HostEdge | undefined;
  private divert: ((message: JSONRPCMessage) => boolean) | undefined;

  /** @param inner - the host-side transport, not yet started */
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
          this.dispatch(message);
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

  /** Sets the {@link HostEdge}, before the SDK connects. */
  translate(edge: HostEdge): void {
    this.edge = edge;
  }

  /** Lets `divert` take host messages (in the inside era) before the SDK sees them. */
  divertTo(divert: (message: JSONRPCMessage) => boolean): void {
    this.divert = divert;
  }

  /** Sets the {@link Intercept}. */
  interceptRequests(intercept: Intercept): void {
    this.intercept = intercept;
  }

  private dispatch(received: JSONRPCMessage): void {
    const malformed = malformedRequestError(received);
    if (malformed !== undefined) {
      const id = (received as JSONRPCRequest).id;
      void this.inner.send({ jsonrpc: '2.0', id, error: malformed }).catch(() => undefined);
      return;
    }
    const message = this.edge === undefined ? received : this.edge.incoming(received, (reply) => void this.inner.send(reply).catch(() => undefined));
    if (message === undefined || this.divert?.(message) === true) return;
    const answer = 'method' in message && 'id' in message ? this.intercept?.(message as JSONRPCRequest) : undefined;
    if (answer === undefined) {
      this.onmessage?.(message);
      return;
    }
    const id = (message as JSONRPCRequest).id;
    void answer.then((result) => this.send({ jsonrpc: '2.0', id, result })).catch((error: unknown) => {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    });
  }

  /** Called by the SDK on connect: the host side is already started; replay what was held. */
  start(): Promise<void> {
    this.connected = true;
    const held = this.held;
    this.held = [];
    setImmediate(() => {
      for (const message of this.edge?.opening() ?? []) this.onmessage?.(message);
      for (const message of held) this.dispatch(message);
    });
    return Promise.resolve();
  }

  /** Sends to the host. */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const out = this.edge === undefined ? message : this.edge.outgoing(message);
    if (out === undefined) return Promise.resolve();
    return this.inner.send(out, options);
  }

  /** Closes the host side. */
  close(): Promise<void> {
    return this.inner.close();
  }
}
