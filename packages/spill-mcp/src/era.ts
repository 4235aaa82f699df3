/**
 * The two MCP eras, as the proxy sees them. 2025 (`initialize`, then a session) is what
 * the proxy's forwarding speaks inside; 2026-07-28 (no handshake, `server/discover`, the
 * protocol version and client capabilities in each request's `_meta`, a `resultType` on
 * each result) is translated to and from it at the edges, in `host-era.ts` toward the host
 * and `upstream-era.ts` toward the server. A third era is a third pair of edges.
 */

/** The 2026 revision, the one without `initialize`. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
/** The 2025 revision the proxy speaks inside. */
export const LEGACY_PROTOCOL_VERSION = '2025-11-25';

/** `_meta` keys of the 2026 per-request envelope. */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
/** @see PROTOCOL_VERSION_META_KEY */
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';
/** @see PROTOCOL_VERSION_META_KEY */
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';
/** The `_meta` key of a 2026 result that names the server. */
export const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

/** The JSON-RPC code of a refused protocol version (2026-07-28). */
export const UNSUPPORTED_PROTOCOL_VERSION_CODE = -32022;
/** The JSON-RPC code the proxy answers for a feature it cannot carry across eras. */
export const NOT_BRIDGED_CODE = -32601;

/** A JSON object as it travels. */
export type Json = Record<string, unknown>;

/** The `_meta` object of a message's params or result, if it has one. */
export function metaOf(value: unknown): Json | undefined {
  const meta = (value as { _meta?: unknown } | undefined)?._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Json) : undefined;
}

/** The protocol version a 2026 request claims in its `_meta`, if any. */
export function claimedVersion(params: unknown): string | undefined {
  const version = metaOf(params)?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' ? version : undefined;
}

/** The message of a feature that one era has and the other cannot be given. */
export function notBridged(feature: string, from: string, to: string): string {
  return `spillway mcp cannot carry ${feature} from a ${from} to a ${to}; the two protocol eras do it differently and the proxy does not translate it.`;
}
