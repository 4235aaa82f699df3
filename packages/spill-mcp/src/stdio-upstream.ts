import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LineSplitter, lineText } from './lines.js';

/** How an upstream server process ended. */
export interface UpstreamExit {
  /** The exit code, or `null` when a signal ended it. */
  readonly code: number | null;
  /** The signal that ended it, or `null`. */
  readonly signal: NodeJS.Signals | null;
}

/** Options of {@link UpstreamStdioTransport}. */
export interface UpstreamStdioOptions {
  /** The program (looked up on `PATH`, no shell). */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Its whole environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Its working directory. */
  readonly cwd?: string | undefined;
  /** Where its stderr goes; `null` discards it. */
  readonly stderr: NodeJS.WritableStream | null;
  /** The largest message, in bytes, accepted from it. */
  readonly maxMessageBytes: number;
  /** Told about every line that is not a JSON-RPC message (the line is skipped). */
  readonly onMalformed: (error: Error, line: string) => void;
}

/**
 * An MCP client transport over a child process's stdin/stdout, for the proxy's upstream.
 *
 * Unlike the SDK's `StdioClientTransport` it keeps the child's exit status (so errors can
 * name it), hands the child the caller's whole environment, skips a malformed line instead
 * of closing, and joins a large message's chunks once, in time linear in its size (the
 * SDK's buffer copies everything received so far on every chunk).
 */
export class UpstreamStdioTransport implements Transport {
  /** Set by the SDK. */
  onclose?: () => void;
  /** Set by the SDK. */
  onerror?: (error: Error) => void;
  /** Set by the SDK. */
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly options: UpstreamStdioOptions;
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly splitter: LineSplitter;
  private lines: Buffer[] = [];
  private next = 0;
  private waiting = false;
  private exitStatus: UpstreamExit | undefined;
  private closed = false;

  /** @param options - what to run and how */
  constructor(options: UpstreamStdioOptions) {
    this.options = options;
    this.splitter = new LineSplitter(
      options.maxMessageBytes,
      (line) => this.lines.push(line),
      (size) => {
        options.onMalformed(
          new Error(`A message from the upstream server exceeds ${String(options.maxMessageBytes)} bytes (at least ${String(size)}); it was dropped. Raise maxMessageBytes (--max-message-bytes).`),
          '',
        );
      },
    );
  }

  /** How the child ended, once it has. */
  get exit(): UpstreamExit | undefined {
    return this.exitStatus;
  }

  /** The child's pid, once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Spawns the child; rejects when it cannot be started (ENOENT, EACCES…). */
  start(): Promise<void> {
    if (this.child !== undefined) return Promise.reject(new Error('The upstream transport is already started.'));
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, [...this.options.args], {
        env: this.options.env,
        cwd: this.options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      let spawned = false;
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });
      child.once('error', (error) => {
        if (!spawned) reject(error);
        else this.onerror?.(error);
      });
      child.once('close', (code, signal) => {
        this.exitStatus = { code, signal };
        this.finish();
      });
      child.stdin.on('error', (error) => {
        this.onerror?.(error);
      });
      child.stdout.on('data', (chunk: Buffer) => {
        this.splitter.push(chunk);
        this.drain();
      });
      const sink = this.options.stderr;
      if (sink === null) child.stderr.resume();
      else child.stderr.on('data', (chunk: Buffer) => sink.write(chunk));
    });
  }

  /**
   * Delivers the complete lines in order. The SDK handles a notification a microtask after
   * it arrives but a response at once, and forgets a request's progress handler with its
   * response: a response that follows progress in the same burst waits for a macrotask,
   * so that every progress notification is handled first.
   */
  private drain(): void {
    if (this.waiting) return;
    let notified = false;
    while (this.next < this.lines.length) {
      const line = this.lines[this.next] as Buffer;
      const message = this.parse(line);
      if (message === undefined) {
        this.next += 1;
        continue;
      }
      const isResponse = !('method' in message);
      if (isResponse && notified) {
        this.waiting = true;
        setImmediate(() => {
          this.waiting = false;
          this.drain();
        });
        return;
      }
      this.next += 1;
      if ('method' in message && !('id' in message)) notified = true;
      this.onmessage?.(message);
    }
    this.lines = [];
    this.next = 0;
  }

  private parse(buffer: Buffer): JSONRPCMessage | undefined {
    const text = lineText(buffer);
    if (text === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.options.onMalformed(error instanceof Error ? error : new Error(String(error)), text);
      return undefined;
    }
    // Requests and notifications are small: validate them fully. A response is checked for
    // its envelope only (the SDK validates its result against the request's own schema), so
    // a 100 MB result is not walked twice.
    const envelope = value as { jsonrpc?: unknown; id?: unknown; method?: unknown; result?: unknown; error?: unknown } | null;
    const isResponse =
      typeof envelope === 'object' &&
      envelope !== null &&
      envelope.jsonrpc === '2.0' &&
      envelope.method === undefined &&
      (typeof envelope.id === 'string' || typeof envelope.id === 'number') &&
      typeof envelope.result === 'object' &&
      envelope.result !== null &&
      !Array.isArray(envelope.result);
    if (isResponse) return value as JSONRPCMessage;
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.options.onMalformed(new Error(`not a JSON-RPC message: ${parsed.error.message.split('\n')[0] ?? ''}`), text);
      return undefined;
    }
    return parsed.data;
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.splitter.clear();
    this.onclose?.();
  }

  /** Ends the child: closes its stdin, then SIGTERM after 2 s, then SIGKILL after 2 s more. */
  async close(): Promise<void> {
    const child = this.child;
    if (child === undefined || this.exitStatus !== undefined) {
      this.finish();
      return;
    }
    const ended = new Promise<void>((resolve) => child.once('close', () => { resolve(); }));
    const wait = (ms: number): Promise<void> => Promise.race([ended, new Promise<void>((r) => setTimeout(r, ms).unref())]);
    child.stdin.end();
    await wait(2_000);
    if (!this.hasExited()) {
      child.kill('SIGTERM');
      await wait(2_000);
    }
    if (!this.hasExited()) child.kill('SIGKILL');
  }

  private hasExited(): boolean {
    return this.exitStatus !== undefined;
  }

  /** Writes one message, waiting for the pipe to drain when it is full. */
  send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (child === undefined || this.exitStatus !== undefined || child.stdin.destroyed) {
      return Promise.reject(new Error('The upstream server is not running.'));
    }
    return new Promise((resolve) => {
      if (child.stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else child.stdin.once('drain', resolve);
    });
  }
}
