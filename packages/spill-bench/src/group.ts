import type { FigureSamples, FigureSpec } from './figure.js';
import type { Profile } from './profile.js';

/** What a figure group gets to work with. */
export interface BenchContext {
  /** Sizes and rounds of this run. */
  readonly profile: Profile;
  /**
   * A private (0700) scratch directory under the OS temp dir, removed after the run.
   * Groups make their own sub-directories here and delete big files as soon as they
   * are done with them.
   */
  readonly scratch: string;
  /** Progress messages (to stderr, so the table on stdout stays clean). */
  readonly log: (message: string) => void;
  /** Records the samples of one figure, by its spec id. */
  readonly record: (id: string, samples: FigureSamples) => void;
}

/**
 * A set of figures that share a setup (a backend, a big artifact). `specs` is known
 * before anything runs, so a group that fails still shows its rows, marked skipped.
 */
export interface FigureGroup {
  /** Short name, used by `--only`. */
  readonly name: string;
  /** The figures this group measures under `profile`, in table order. */
  specs(profile: Profile): FigureSpec[];
  /** Measures them, calling `ctx.record` once per figure. */
  run(ctx: BenchContext): Promise<void>;
}
