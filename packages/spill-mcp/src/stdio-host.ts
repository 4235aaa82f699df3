import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineSplitter, lineText } from './lines.js';

/** Whether `value` has the shape of a JSON-RPC 2.0 message: what every reader of it relies on. */
function isMessage(value: unknown): value is JSONRPCMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const m = value as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };
  if (m.jsonrpc !== '2.0') return false;
  const id = m.id === undefined || typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id));
  if (typeof m.method === 'string') {
    // A request with params of the wrong shape goes on, to be answered with an error
    // (see request-shape.ts); a notification has nobody to answer.
    if (m.id !== undefined) return id;
    return m.params === undefined || (typeof m.params === 'object' && m.params !== null && !Array.isArray(m.params));
  }
  if (m.id === undefined || !id) return false;
  const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);
  return isObject(m.result) !== isObject(m.error);
}

/**
 * The host side over stdin/stdout: newline-delimited JSON-RPC, split in linear time, each
 * message checked for its JSON-RPC shape only (the SDK's server checks each request's
 * parameters against its method's schema anyway, and the fast lane checks what it uses).
 * A line that is not a message, or is over `maxMessageBytes`, is reported and skipped.
 */
export class HostStdioTransport implements Transport {
  /** Set by the SDK. */
  onclose?: () => void;
  /** Set by the SDK. */
  onerror?: (error: Error) => void;
  /** Set by the SDK. */
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly stdin: NodeJS.ReadableStream;
  private readonly stdout: NodeJS.WritableStream;
  private readonly splitter: LineSplitter;
  private readonly onData = (chunk: Buffer): void => {
    this.splitter.push(chunk);
  };
  private readonly onError = (error: Error): void => {
    this.onerror?.(error);
  };

  /**
   * @param stdin - where the host writes
   * @param stdout - where the host reads
   * @param maxMessageBytes - the largest message accepted
   */
  constructor(stdin: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, maxMessageBytes: number) {
    this.stdin = stdin;
    this.stdout = stdout;
    this.splitter = new LineSplitter(
      maxMessageBytes,
      (line) => {
        this.deliver(line);
      },
      (size) => {
        this.onerror?.(new Error(`A message from the host exceeds ${String(maxMessageBytes)} bytes (at least ${String(size)}); it was dropped.`));
      },
    );
  }

  /** Starts reading. */
  start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
    return Promise.resolve();
  }

  private deliver(line: Buffer): void {
    const text = lineText(line);
    if (text === undefined) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (!isMessage(value)) {
      this.onerror?.(new Error(`The host wrote something that is not a JSON-RPC message: ${text.slice(0, 200)}`));
      return;
    }
    this.onmessage?.(value);
  }

  /** Writes one message, waiting for the pipe to drain when it is full. */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  /** Stops reading and tells the SDK. */
  close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.splitter.clear();
    this.onclose?.();
    return Promise.resolve();
  }
}
