import { median, pairedRatios } from './stats.js';

/**
 * The unit of a measured value: a duration in milliseconds, a size in bytes, a
 * throughput in bytes per second, or a count of cases.
 */
export type Unit = 'ms' | 'bytes' | 'bytes/s' | 'count';

/** What a target constrains: the spillway/baseline ratio, or spillway's own value. */
export type TargetSubject = 'ratio' | 'spillway';

/**
 * A goal for one figure, such as "ratio ≤ 3" or "spillway ≤ 64 MiB". Targets are goals,
 * not tests: a miss is reported in the table and never fails a run.
 */
export interface Target {
  /** What the limit applies to. */
  readonly subject: TargetSubject;
  /** `<=` for costs (time, memory), `>=` for throughput. */
  readonly op: '<=' | '>=';
  /** The limit, in the subject's unit (a plain number for a ratio). */
  readonly limit: number;
}

/** Shorthand for a target on the ratio. */
export function ratioAtMost(limit: number): Target {
  return { subject: 'ratio', op: '<=', limit };
}

/** Shorthand for a target on the ratio, for throughput. */
export function ratioAtLeast(limit: number): Target {
  return { subject: 'ratio', op: '>=', limit };
}

/** Shorthand for an absolute ceiling on spillway's own value (in the figure's unit). */
export function valueAtMost(limit: number): Target {
  return { subject: 'spillway', op: '<=', limit };
}

/** Tells whether `value` meets a limit under `op`. */
function meets(op: Target['op'], value: number, limit: number): boolean {
  return op === '<=' ? value <= limit : value >= limit;
}

/**
 * Whether a figure holds: the target's subject (the ratio, or spillway's median value)
 * compared with its limit. A non-finite subject never holds.
 */
export function evaluateTarget(target: Target, ratio: number, spillway: number): boolean {
  const subject = target.subject === 'ratio' ? ratio : spillway;
  return Number.isFinite(subject) && meets(target.op, subject, target.limit);
}

/** The static description of one figure, known before anything runs. */
export interface FigureSpec {
  /** Stable id, such as `local.save.4KiB`. */
  readonly id: string;
  /** What is measured, for the table. */
  readonly title: string;
  /** What the baseline is, in a few words. */
  readonly baseline: string;
  /** The unit of both sides' values. */
  readonly unit: Unit;
  /** The goal. */
  readonly target: Target;
}

/** Raw samples for one figure: one value per side and round (same length). */
export interface FigureSamples {
  /** spillway's samples. */
  readonly spillway: readonly number[];
  /** The baseline's samples. */
  readonly baseline: readonly number[];
  /** Anything a reader of the table should know (a correctness check, an outcome). */
  readonly notes?: readonly string[];
}

/** A measured figure. */
export interface FigureResult extends FigureSpec {
  readonly status: 'measured';
  /** Median of spillway's samples. */
  readonly spillwayValue: number;
  /** Median of the baseline's samples. */
  readonly baselineValue: number;
  /** Median of the per-round ratios spillway / baseline. */
  readonly ratio: number;
  /** Whether the target holds. */
  readonly holds: boolean;
  /** The raw samples, for the JSON report. */
  readonly samples: { readonly spillway: readonly number[]; readonly baseline: readonly number[] };
  /** Notes. */
  readonly notes: readonly string[];
}

/** A figure that could not be measured (a package missing, a setup failure). */
export interface SkippedFigure extends FigureSpec {
  readonly status: 'skipped';
  /** Why. */
  readonly reason: string;
}

/** A row of the table. */
export type FigureOutcome = FigureResult | SkippedFigure;

/**
 * Turns samples into a figure: medians of each side, the median of the per-round
 * ratios (each round pairs runs made close together, so machine noise that hits both
 * cancels), and the target check.
 */
export function summarizeFigure(spec: FigureSpec, samples: FigureSamples): FigureResult {
  const ratio = median(pairedRatios(samples.spillway, samples.baseline));
  const spillwayValue = median(samples.spillway);
  return {
    ...spec,
    status: 'measured',
    spillwayValue,
    baselineValue: median(samples.baseline),
    ratio,
    holds: evaluateTarget(spec.target, ratio, spillwayValue),
    samples: { spillway: [...samples.spillway], baseline: [...samples.baseline] },
    notes: [...(samples.notes ?? [])],
  };
}

/** Marks a figure as not measured, with the reason. */
export function skipFigure(spec: FigureSpec, reason: string): SkippedFigure {
  return { ...spec, status: 'skipped', reason };
}
