/**
 * Values that nest too deeply. Turning a value into JSON text recurses, and a worker
 * thread's stack is larger than the main thread's: a value that one thread could turn into
 * text and another could not would make a pooled audit report differently. So a depth far
 * below either stack's reach is the limit on every thread, and a line (or an OpenCode part)
 * past it is skipped.
 */

/** The reason a line (or an OpenCode part) whose value nests too deeply is skipped. */
export const TOO_DEEP = 'nested too deeply';

/** The deepest value turned into text: far below what a thread's stack allows (thousands). */
export const MAX_JSON_DEPTH = 512;

/** Thrown by {@link jsonText} past {@link MAX_JSON_DEPTH}. */
class TooDeepError extends RangeError {}

/**
 * `JSON.stringify(value)`, after checking without recursion that `value` nests no deeper
 * than {@link MAX_JSON_DEPTH}.
 *
 * @throws RangeError when it nests deeper (see {@link isTooDeep})
 */
export function jsonText(value: unknown): string {
  if (typeof value === 'object' && value !== null && nestsDeeper(value, MAX_JSON_DEPTH)) throw new TooDeepError(TOO_DEEP);
  return JSON.stringify(value);
}

/**
 * Whether `error` is {@link jsonText}'s refusal of a value nesting too deeply: a line to
 * skip, not a fault to report. Any other error (a string too long, say) still fails the audit.
 */
export function isTooDeep(error: unknown): boolean {
  return error instanceof TooDeepError;
}

/** Whether `value` has more than `max` levels of arrays and objects, found with a stack of our own. */
function nestsDeeper(value: object, max: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop() ?? 0;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as object)) {
      if (typeof child === 'object' && child !== null) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
