/** Which half of a comparison a run belongs to. */
export type Side = 'spillway' | 'baseline';

/** One scheduled run of an interleaved comparison. */
export interface ScheduledRun {
  /** 0-based round number; a warm-up round is -1. */
  readonly round: number;
  /** What runs. */
  readonly side: Side;
}

/**
 * The order in which an interleaved comparison runs: an optional unmeasured warm-up of
 * each side, then `spillway, baseline` once per round (A B A B …). Interleaving spreads
 * the machine's slow and fast moments over both sides instead of handing them to
 * whichever side happened to run at that time.
 *
 * @throws RangeError when `rounds` is not a positive integer.
 */
export function interleavedOrder(rounds: number, warmup = false): ScheduledRun[] {
  if (!Number.isInteger(rounds) || rounds < 1) {
    throw new RangeError(`An interleaved comparison needs at least one round; got ${rounds}.`);
  }
  const order: ScheduledRun[] = [];
  if (warmup) order.push({ round: -1, side: 'spillway' }, { round: -1, side: 'baseline' });
  for (let round = 0; round < rounds; round++) {
    order.push({ round, side: 'spillway' }, { round, side: 'baseline' });
  }
  return order;
}

/** The measured samples of both sides, one per round, in round order. */
export interface InterleavedSamples<T> {
  /** The spillway side's samples. */
  readonly spillway: T[];
  /** The baseline side's samples. */
  readonly baseline: T[];
}

/**
 * Runs both sides of a comparison in {@link interleavedOrder} and collects one sample
 * per side and round. Warm-up results are discarded.
 */
export async function runInterleaved<T>(
  rounds: number,
  runners: Readonly<Record<Side, (round: number) => T | Promise<T>>>,
  options: { readonly warmup?: boolean } = {},
): Promise<InterleavedSamples<T>> {
  const samples: InterleavedSamples<T> = { spillway: [], baseline: [] };
  for (const { round, side } of interleavedOrder(rounds, options.warmup ?? false)) {
    const value = await runners[side](round);
    if (round >= 0) samples[side].push(value);
  }
  return samples;
}
