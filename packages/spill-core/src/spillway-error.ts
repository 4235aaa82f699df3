/**
 * The marker every spillway error carries. `Symbol.for` makes it the same symbol in every
 * copy of every package and in every realm, so {@link isSpillwayError} works across
 * duplicate installs, where `instanceof` does not.
 */
export const SPILLWAY_ERROR_MARKER: unique symbol = Symbol.for('spillway.Error') as never;

/**
 * The base of every error family spillway raises: `SpillError` (storage and reading,
 * `SPILL_*`), the MCP proxy's `SpillProxyError` (`SPILLWAY_UPSTREAM_*`), setup's
 * `ConfigParseError` (`SPILLWAY_CONFIG_UNPARSEABLE`), the audit's `AuditError` (`AUDIT_*`)
 * and the CLI's `CliError` (`USAGE`, `FAILED`…). Each carries a stable `code` of its
 * family, a message that says what to do, and the marker.
 * Branch on the code, never on the message.
 */
export class SpillwayError<Code extends string = string> extends Error {
  /** The stable code, in the family's namespace. */
  readonly code: Code;
  /** Always `true`; see {@link SPILLWAY_ERROR_MARKER}. */
  readonly [SPILLWAY_ERROR_MARKER] = true as const;

  /**
   * @param name - the family's name (`SpillError`, `CliError`…), which `error.name` gives
   * @param code - the stable code
   * @param message - what went wrong and what to do about it
   * @param options - the `cause`, when there is one
   */
  constructor(name: string, code: Code, message: string, options?: { readonly cause?: unknown }) {
    super(message, options !== undefined && 'cause' in options ? { cause: options.cause } : undefined);
    this.name = name;
    this.code = code;
  }
}

/**
 * Tells whether `error` is a {@link SpillwayError} of any family, from any copy of
 * spillway, optionally with the given code.
 */
export function isSpillwayError(error: unknown, code?: string): error is SpillwayError {
  if (typeof error !== 'object' || error === null) return false;
  if ((error as Record<symbol, unknown>)[SPILLWAY_ERROR_MARKER] !== true) return false;
  const actual = (error as { code?: unknown }).code;
  return typeof actual === 'string' && (code === undefined || actual === code);
}
