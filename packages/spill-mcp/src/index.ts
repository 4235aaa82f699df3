/**
 * `@spillway/mcp`: an MCP proxy that spills oversized results, for every MCP host.
 * Wrap any MCP server (a command over stdio, or a Streamable HTTP URL) and the host gets a
 * bounded preview plus a notice instead of a result too large for its context, with
 * `spill_read` and `spill_grep` to get the rest back.
 *
 * @packageDocumentation
 */
export { createSpillProxy, type SpillProxy, type SpillProxyExit } from './proxy.js';
export {
  describeUpstream,
  DEFAULT_MAX_GREP_MATCHES,
  DEFAULT_MAX_INLINE_BYTES,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type SpillProxyHttpUpstream,
  type SpillProxyOptions,
  type SpillProxyStdioUpstream,
  type SpillProxyUpstream,
} from './options.js';
export type { SpillProxyEvent } from './diagnostics.js';
export { MAX_RESULT_SIZE_META_KEY } from './options.js';
export { downstreamToolName, upstreamToolName, UPSTREAM_ESCAPE_PREFIX } from './names.js';
export {
  isSpillProxyError,
  SpillProxyError,
  SPILL_PROXY_ERROR_CODES,
  SPILL_PROXY_ERROR_MARKER,
  UPSTREAM_ERROR_RPC_CODE,
  type SpillProxyErrorCode,
} from './errors.js';
export { UpstreamStdioTransport, type UpstreamExit, type UpstreamStdioOptions } from './stdio-upstream.js';
