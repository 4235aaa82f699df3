import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isHttp, type ResolvedOptions } from './options.js';
import { HostStdioTransport } from './stdio-host.js';
import { UpstreamStdioTransport } from './stdio-upstream.js';
import { UpstreamEraTransport, type EraPreference } from './upstream-era.js';

/**
 * The transport to the upstream: Streamable HTTP for a URL (2025 era), else the child
 * process over the proxy's linear-time stdio transport, in whichever era it speaks.
 */
export function upstreamTransport(
  config: ResolvedOptions,
  prefer: EraPreference,
  onMalformed: (error: Error, line: string) => void,
): { transport: Transport; stdio: UpstreamStdioTransport | undefined } {
  const upstream = config.upstream;
  if (isHttp(upstream)) {
    const transport = new StreamableHTTPClientTransport(new URL(String(upstream.url)), {
      requestInit: { headers: { ...(upstream.headers ?? {}) } },
    });
    return { transport, stdio: undefined };
  }
  const stdio = new UpstreamStdioTransport({
    command: upstream.command,
    args: upstream.args ?? [],
    env: upstream.env ?? process.env,
    cwd: upstream.cwd,
    stderr: config.stderr,
    maxMessageBytes: config.maxMessageBytes,
    onMalformed,
  });
  return { transport: new UpstreamEraTransport(stdio, prefer), stdio };
}

/**
 * The host side over this process's stdin/stdout; `onEnd` is called when the host closes
 * stdin.
 */
export function stdioHostTransport(maxMessageBytes: number, closed: Promise<unknown>, onEnd: () => void): Transport {
  const transport = new HostStdioTransport(process.stdin, process.stdout, maxMessageBytes);
  process.stdin.once('end', onEnd);
  process.stdin.once('close', onEnd);
  void closed.then(() => {
    process.stdin.off('end', onEnd);
    process.stdin.off('close', onEnd);
    process.stdin.pause();
  });
  return transport;
}
