/** The bounds of a whole-number option or input, for {@link wholeNumberProblem}. */
export interface WholeNumberRange {
  /** The smallest value allowed. */
  readonly min: number;
  /** The largest value allowed; default `Number.MAX_SAFE_INTEGER`. */
  readonly max?: number;
  /** What the number counts, for the message (`'bytes'`, `'milliseconds'`). */
  readonly unit?: string;
}

/**
 * Why `value` is not a whole number within `range`, as the words that follow its name
 * (`"must be a whole number, at least 1; got 0"`), or `undefined` when it is one. Every
 * package checks its numeric options and inputs with this, and wraps the phrase in its
 * own error (a `TypeError` for configuration, a coded error for a call's input), so that
 * the rule (a safe integer, no `NaN`, no fractions, no strings) and the wording are one.
 *
 * @example
 * const problem = wholeNumberProblem(options.limit, { min: 1 });
 * if (problem !== undefined) throw new TypeError(`limit ${problem}.`);
 */
export function wholeNumberProblem(value: unknown, range: WholeNumberRange): string | undefined {
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= range.min && value <= max) return undefined;
  const of = range.unit === undefined ? '' : ` of ${range.unit}`;
  const bound = max === Number.MAX_SAFE_INTEGER ? `at least ${String(range.min)}` : `from ${String(range.min)} to ${String(max)}`;
  return `must be a whole number${of}, ${bound}; got ${shownValue(value)}`;
}

function shownValue(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
