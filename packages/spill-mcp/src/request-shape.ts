/**
 * The shape every request must have before anything reads it: `params`, when present, is
 * an object, and so is its `_meta`. The SDK drops a request that fails its schema without
 * answering, which leaves the host waiting; the proxy answers it at once instead.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC's code for invalid method parameters. */
export const INVALID_PARAMS_CODE = -32602;

const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The error to answer a request with when its `params` or `params._meta` is not an
 * object; `undefined` for a well-shaped request or any other message.
 */
export function malformedRequestError(message: JSONRPCMessage): { readonly code: number; readonly message: string } | undefined {
  const m = message as { method?: unknown; id?: unknown; params?: unknown };
  if (typeof m.method !== 'string' || m.id === undefined) return undefined;
  if (m.params !== undefined && !isObject(m.params)) {
    return { code: INVALID_PARAMS_CODE, message: `Invalid params for ${m.method}: params must be an object.` };
  }
  const meta = (m.params as { _meta?: unknown } | undefined)?._meta;
  if (meta !== undefined && !isObject(meta)) {
    return { code: INVALID_PARAMS_CODE, message: `Invalid params for ${m.method}: _meta must be an object.` };
  }
  return undefined;
}
