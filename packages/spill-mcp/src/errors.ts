import { SpillwayError } from '@spillway/core';

/**
 * The proxy's own failures. Storage failures never surface here: a result that cannot be
 * stored is passed on as it was.
 *
 * - `SPILLWAY_UPSTREAM_START_FAILED`: the upstream server could not be started or
 *   connected to (command not found, not executable, URL unreachable, initialize refused).
 * - `SPILLWAY_UPSTREAM_EXITED`: the upstream server's process ended, or its HTTP
 *   connection closed, while the proxy was serving.
 * - `SPILLWAY_UPSTREAM_MALFORMED`: the upstream server wrote a line that is not a JSON-RPC
 *   message, or one over `maxMessageBytes` (reported and skipped, never fatal).
 */
export type SpillProxyErrorCode = 'SPILLWAY_UPSTREAM_START_FAILED' | 'SPILLWAY_UPSTREAM_EXITED' | 'SPILLWAY_UPSTREAM_MALFORMED';

/** Every {@link SpillProxyErrorCode}, for iteration and documentation checks. */
export const SPILL_PROXY_ERROR_CODES: readonly SpillProxyErrorCode[] = [
  'SPILLWAY_UPSTREAM_START_FAILED',
  'SPILLWAY_UPSTREAM_EXITED',
  'SPILLWAY_UPSTREAM_MALFORMED',
];

/**
 * The JSON-RPC error code the host receives for {@link SpillProxyErrorCode} failures: the
 * SDK's "connection closed" code, so hosts that special-case it treat it as a dead server.
 */
export const UPSTREAM_ERROR_RPC_CODE = -32000;

/**
 * The marker that identifies a {@link SpillProxyError}. `Symbol.for` makes it the same
 * symbol in every copy of this package (and every realm), so {@link isSpillProxyError}
 * works across duplicate installs, where `instanceof` does not.
 */
export const SPILL_PROXY_ERROR_MARKER: unique symbol = Symbol.for('spillway.SpillProxyError') as never;

/** A failure of the proxy itself, with a stable {@link SpillProxyErrorCode}. */
export class SpillProxyError extends SpillwayError<SpillProxyErrorCode> {
  /** The stable code. */
  declare readonly code: SpillProxyErrorCode;
  /** Always `true`; see {@link SPILL_PROXY_ERROR_MARKER}. */
  readonly [SPILL_PROXY_ERROR_MARKER] = true as const;

  /**
   * @param code - the stable code
   * @param message - what happened and what to do
   * @param options - the underlying error, if any
   */
  constructor(code: SpillProxyErrorCode, message: string, options?: { cause?: unknown }) {
    super('SpillProxyError', code, message, options);
  }
}

/**
 * Whether `value` is a {@link SpillProxyError} from any copy of this package, optionally
 * with the given code. It checks the {@link SPILL_PROXY_ERROR_MARKER}, not `instanceof`.
 */
export function isSpillProxyError(value: unknown, code?: SpillProxyErrorCode): value is SpillProxyError {
  if (typeof value !== 'object' || value === null) return false;
  if ((value as Record<symbol, unknown>)[SPILL_PROXY_ERROR_MARKER] !== true) return false;
  return code === undefined || (value as { code?: unknown }).code === code;
}
