import { Bench } from 'tinybench';
import { runInterleaved, type InterleavedSamples } from './interleave.js';

/** One side of a micro-benchmark. */
export interface MicroTask {
  /** The operation to time. Its result is kept alive so the engine cannot drop the work. */
  readonly run: () => unknown;
  /** Untimed clean-up after each timed call (deleting the files a save created, say). */
  readonly afterEach?: () => void | Promise<void>;
}

/** How long and how finely one side of one round is sampled. */
export interface MicroOptions {
  /** Time budget per side and round, in milliseconds. */
  readonly timeMs: number;
  /** Minimum timed calls per side and round. Default 8. */
  readonly minIterations?: number;
  /**
   * Operations per timed call. Operations far below a microsecond are run in batches
   * so that the timer's own cost and resolution do not dominate. Default 1.
   */
  readonly batch?: number;
  /** Untimed warm-up per side and round, in milliseconds. Default `timeMs / 4`. */
  readonly warmupMs?: number;
  /** Whether to warm up at all (two calls at least). Default true; off for heavy calls. */
  readonly warmup?: boolean;
  /** The clock, in milliseconds. Default `performance.now`; a test passes one it controls. */
  readonly now?: () => number;
}

/** Where results go, so the engine cannot prove them unused and drop the work. */
const blackhole: { last: unknown } = { last: undefined };

/**
 * Times `task` with tinybench and returns the median latency of one operation, in
 * milliseconds.
 */
export async function measureMicro(task: MicroTask, options: MicroOptions): Promise<number> {
  const batch = options.batch ?? 1;
  const bench = new Bench({
    time: options.timeMs,
    iterations: options.minIterations ?? 8,
    warmup: options.warmup ?? true,
    warmupTime: options.warmupMs ?? options.timeMs / 4,
    warmupIterations: 2,
    throws: true,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const fn = async (): Promise<void> => {
    for (let i = 0; i < batch; i++) blackhole.last = await task.run();
  };
  bench.add('task', fn, {
    async: true,
    ...(task.afterEach === undefined ? {} : { afterEach: task.afterEach }),
  });
  await bench.run();
  const result = bench.tasks[0]?.result;
  if (result?.state !== 'completed') {
    const detail = result?.state === 'errored' ? `: ${result.error.message}` : '';
    throw new Error(`tinybench did not complete the task (state ${result?.state ?? 'missing'})${detail}.`);
  }
  return result.latency.p50 / batch;
}

/**
 * Times two tasks in interleaved rounds (spillway, baseline, spillway, baseline …), one
 * tinybench run per side and round, and returns the per-round median latencies.
 */
export function microPair(
  rounds: number,
  tasks: { readonly spillway: MicroTask; readonly baseline: MicroTask },
  options: MicroOptions,
): Promise<InterleavedSamples<number>> {
  return runInterleaved(rounds, {
    spillway: () => measureMicro(tasks.spillway, options),
    baseline: () => measureMicro(tasks.baseline, options),
  });
}
