import { readFileSync } from 'node:fs';

/**
 * Reads the `VmHWM` line (the peak resident set of the current address space) from the
 * text of `/proc/<pid>/status`, in bytes, or `undefined` when there is none.
 */
export function parseVmHwm(status: string): number | undefined {
  const match = /^VmHWM:\s*(\d+)\s*kB\s*$/m.exec(status);
  return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
}

/**
 * This process's peak resident set size in bytes.
 *
 * On Linux it is `VmHWM` from `/proc/self/status`. `getrusage`'s `ru_maxrss` (what
 * `process.resourceUsage().maxRSS` reports) is not used there because it is wrong for a
 * freshly started child: the kernel carries the parent's peak at `fork` over the `exec`,
 * so a 40 MiB child of a 300 MiB parent reports 300 MiB. Elsewhere `maxRSS` is the only
 * figure there is.
 */
export function peakRssBytes(): number {
  try {
    const hwm = parseVmHwm(readFileSync('/proc/self/status', 'utf8'));
    if (hwm !== undefined) return hwm;
  } catch {
    // no procfs: fall through
  }
  return process.resourceUsage().maxRSS * 1024;
}

/** What {@link measuredRun} measured around one run, with the run's answer. */
export interface MeasuredRun<T> {
  readonly result: T;
  /** Wall-clock time of the run. */
  readonly ms: number;
  /** This process's resident set just before the run. */
  readonly rssBefore: number;
  /** This process's peak resident set once the run is done ({@link peakRssBytes}). */
  readonly maxRss: number;
}

/** Runs `run` once, taking the resident set before it, the elapsed time and the peak resident set after it. */
export async function measuredRun<T>(run: () => Promise<T>): Promise<MeasuredRun<T>> {
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const result = await run();
  const ms = performance.now() - started;
  return { result, ms, rssBefore, maxRss: peakRssBytes() };
}
