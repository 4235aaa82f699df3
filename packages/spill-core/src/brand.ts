declare const brandTag: unique symbol;

/**
 * A compile-time tag on a primitive. A branded value can only be made through its
 * constructor, so a plain string cannot be passed where a {@link SpillLocator} is
 * expected by accident. At run time a branded string is an ordinary string.
 */
export type Brand<T, B extends string> = T & { readonly [brandTag]: B };

/**
 * An opaque, model-facing handle for one stored artifact. The local backend uses an
 * absolute path, the memory backend a `spill+memory://…` URI. Consumers never parse it.
 */
export type SpillLocator = Brand<string, 'SpillLocator'>;

/** The harness's id for one conversation. Any non-empty string. */
export type SessionId = Brand<string, 'SessionId'>;

/** The harness's id for one tool call. Any non-empty string. */
export type CallId = Brand<string, 'CallId'>;

function requireNonEmpty(kind: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TypeError(`${kind} must be a non-empty string; got ${describe(value)}.`);
  }
  return value;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return 'an empty string';
  if (value === null) return 'null';
  return typeof value;
}

/**
 * Brands a string as a {@link SpillLocator}. This only checks that it is a non-empty
 * string: whether it names a real artifact is for the backend that receives it to decide.
 *
 * @throws TypeError when `value` is not a non-empty string.
 */
export function spillLocator(value: string): SpillLocator {
  return requireNonEmpty('A spill locator', value) as SpillLocator;
}

/**
 * Brands a string as a {@link SessionId}.
 *
 * @throws TypeError when `value` is not a non-empty string.
 */
export function sessionId(value: string): SessionId {
  return requireNonEmpty('A session id', value) as SessionId;
}

/**
 * Brands a string as a {@link CallId}.
 *
 * @throws TypeError when `value` is not a non-empty string.
 */
export function callId(value: string): CallId {
  return requireNonEmpty('A call id', value) as CallId;
}
