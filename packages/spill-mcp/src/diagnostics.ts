import type { SpillEvent } from '@spillway/policy';
import { SpillProxyError, type SpillProxyErrorCode } from './errors.js';
import { isHttp, quoteWord, type SpillProxyUpstream } from './options.js';
import type { UpstreamExit } from './stdio-upstream.js';

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

/** How an upstream process ended, in words. */
export function describeExit(exit: UpstreamExit | undefined): string {
  if (exit === undefined) return 'it is no longer running';
  if (exit.signal !== null) return `it was ended by signal ${exit.signal}`;
  return `it exited with status ${String(exit.code)}`;
}

function describeEvent(event: SpillProxyEvent): string | undefined {
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

/**
 * What the proxy tells people: every {@link SpillProxyEvent} goes to `onEvent` and, worded,
 * to stderr; the failures the host receives are worded here too.
 */
export class Diagnostics {
  private readonly upstream: SpillProxyUpstream;
  private readonly label: string;
  private readonly stderr: NodeJS.WritableStream | null;
  private readonly onEvent: ((event: SpillProxyEvent) => void) | undefined;

  /**
   * @param upstream - the upstream, as configured
   * @param label - how it is named in messages
   * @param stderr - where reports are written; `null` for nowhere
   * @param onEvent - the embedder's listener
   */
  constructor(
    upstream: SpillProxyUpstream,
    label: string,
    stderr: NodeJS.WritableStream | null,
    onEvent: ((event: SpillProxyEvent) => void) | undefined,
  ) {
    this.upstream = upstream;
    this.label = label;
    this.stderr = stderr;
    this.onEvent = onEvent;
  }

  /** Tells the listener and stderr. */
  report(event: SpillProxyEvent): void {
    try {
      this.onEvent?.(event);
    } catch {
      // A throwing listener must not break a call.
    }
    const line = describeEvent(event);
    if (line !== undefined && this.stderr !== null) this.stderr.write(`spillway mcp: ${line}\n`);
  }

  /** A warning that `what` failed. */
  warn(what: string, error: unknown): void {
    this.report({ type: 'warning', message: `${what}: ${error instanceof Error ? error.message : String(error)}` });
  }

  /** A line the upstream wrote that is not a JSON-RPC message. */
  malformed(error: Error, line: string): void {
    const shown = line.length > 200 ? `${line.slice(0, 200)}…` : line;
    this.report({
      type: 'malformed',
      code: 'SPILLWAY_UPSTREAM_MALFORMED',
      message: `${this.label} wrote something that is not a JSON-RPC message (${error.message.split('\n')[0] ?? ''})${shown === '' ? '' : `: ${shown}`}; it was skipped.`,
    });
  }

  /** Why the upstream could not be started or connected to. */
  startFailure(error: unknown, exit: UpstreamExit | undefined): SpillProxyError {
    const cause = error instanceof Error ? error.message.replace(/^MCP error -?\d+: /, '') : String(error);
    const code = (error as { code?: unknown } | undefined)?.code;
    const upstream = this.upstream;
    let message: string;
    if (isHttp(upstream)) {
      message = `The upstream MCP server at ${this.label} could not be reached: ${cause}. Check the URL, the headers and that the server is running.`;
    } else if (code === 'ENOENT') {
      message = `The upstream MCP server could not be started: ${quoteWord(upstream.command)} was not found on PATH (${this.label}). Install it or give its full path.`;
    } else if (code === 'EACCES') {
      message = `The upstream MCP server could not be started: ${quoteWord(upstream.command)} is not executable (${this.label}).`;
    } else if (exit !== undefined) {
      message = `The upstream MCP server \`${this.label}\` ended before it finished initializing: ${describeExit(exit)}. Its stderr (above) says why.`;
    } else {
      message = `The upstream MCP server \`${this.label}\` did not initialize: ${cause}.`;
    }
    return new SpillProxyError('SPILLWAY_UPSTREAM_START_FAILED', message, { cause: error });
  }

  /** The failure every request gets once the upstream has gone. */
  upstreamGone(exit: UpstreamExit | undefined): SpillProxyError {
    const message = isHttp(this.upstream)
      ? `The connection to the upstream MCP server at ${this.label} closed.`
      : `The upstream MCP server \`${this.label}\` stopped: ${describeExit(exit)}. Its stderr says why; restart the host's MCP server to try again.`;
    return new SpillProxyError('SPILLWAY_UPSTREAM_EXITED', message);
  }

  /** The JSON-RPC error `data` that goes with a failure. */
  errorData(failure: SpillProxyError, exit: UpstreamExit | undefined): Record<string, unknown> {
    return {
      code: failure.code,
      upstream: this.label,
      ...(exit === undefined ? {} : { exitCode: exit.code, signal: exit.signal }),
    };
  }
}
