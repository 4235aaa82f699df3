/**
 * The median of `values` (the mean of the two middle values for an even count).
 *
 * @throws RangeError when `values` is empty or holds a non-finite number.
 */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/**
 * The `q`-quantile of `values` (0 ≤ q ≤ 1), interpolating linearly between the two
 * closest ranks, the way spreadsheets and numpy do by default. `quantile(v, 0.99)` is
 * the p99.
 *
 * @throws RangeError when `values` is empty, holds a non-finite number, or `q` is out
 * of range.
 */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new RangeError('Cannot take a quantile of no values.');
  if (!(q >= 0 && q <= 1)) throw new RangeError(`A quantile must be between 0 and 1; got ${q}.`);
  const sorted = values.slice().sort((a, b) => a - b);
  for (const v of sorted) {
    if (!Number.isFinite(v)) throw new RangeError(`Cannot take a quantile of ${v}.`);
  }
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] ?? 0;
  const b = sorted[hi] ?? a;
  return a + (b - a) * (pos - lo);
}

/**
 * Element-wise `spillway[i] / baseline[i]`: one ratio per round, so that a slow moment
 * of the machine, which hits both halves of a round, cancels out.
 *
 * @throws RangeError when the arrays differ in length or are empty, or a baseline is
 * not positive.
 */
export function pairedRatios(spillway: readonly number[], baseline: readonly number[]): number[] {
  if (spillway.length !== baseline.length || spillway.length === 0) {
    throw new RangeError(`Paired ratios need two equally long, non-empty series; got ${spillway.length} and ${baseline.length}.`);
  }
  return spillway.map((s, i) => {
    const b = baseline[i] ?? Number.NaN;
    if (!(b > 0)) throw new RangeError(`A baseline sample must be positive; round ${i} measured ${b}.`);
    return s / b;
  });
}
