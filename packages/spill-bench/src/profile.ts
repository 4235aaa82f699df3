import { parseSize } from './sizes.js';

/**
 * Sizes, counts and round numbers for one benchmark run. `full` holds the sizes
 * docs/benchmarks.md reports; `quick` is the same table with smaller sizes, to finish in under a minute.
 */
export interface Profile {
  readonly name: 'quick' | 'full';
  /** Rounds for micro-benchmarks (policy, small saves, memory). */
  readonly microRounds: number;
  /** tinybench time budget per side and round, in ms. */
  readonly microTimeMs: number;
  /** Result size and cap for the small policy pass-through. */
  readonly policySmall: { readonly bytes: number; readonly cap: number };
  /** Result size and cap for the large policy pass-through. */
  readonly policyLarge: { readonly bytes: number; readonly cap: number };
  /** Local saveText sizes. */
  readonly localSizes: { readonly small: number; readonly medium: number; readonly large: number };
  /** Rounds and saves per round for the large local save. */
  readonly localLarge: { readonly rounds: number; readonly savesPerRound: number };
  /** Size of the memory-backend save. */
  readonly memoryBytes: number;
  /** Streaming figure: total bytes, chunk size, rounds. */
  readonly stream: { readonly bytes: number; readonly chunk: number; readonly rounds: number };
  /** CLI figure: bytes the generator prints, rounds, and bytes of log text (the preview corpus repeated) for the figure whose output is scanned. */
  readonly cli: { readonly bytes: number; readonly rounds: number; readonly logBytes: number };
  /** `spillway mcp`: sequential small calls per round, rounds, and the large result's size and rounds. */
  readonly mcp: { readonly calls: number; readonly rounds: number; readonly bigBytes: number; readonly bigRounds: number };
  /** Scale figure: saves per run, window size, content size, memory cap, runs, time budget per run. */
  readonly scale: {
    readonly saves: number;
    readonly window: number;
    readonly contentBytes: number;
    readonly memoryMaxBytes: number;
    readonly runs: number;
    /** A run that takes longer stops early and says so (a busy machine must not stall the benchmark). */
    readonly budgetMs: number;
  };
  /** Retention figure: artifacts in the generated catalog, timed rounds, memory rounds (one child per side and round). */
  readonly retention: { readonly entries: number; readonly rounds: number; readonly rssRounds: number };
  /** S3 figures, against an s3rver the group starts. */
  readonly s3: {
    /** saveText sizes. */
    readonly sizes: { readonly small: number; readonly medium: number; readonly large: number };
    /** Rounds of each save figure; saves per round for the large size. */
    readonly saveRounds: number;
    readonly largeSavesPerRound: number;
    /** Streaming figure: total bytes, chunk size, rounds (one child per side and round). */
    readonly stream: { readonly bytes: number; readonly chunk: number; readonly rounds: number };
    /** Lines (100 bytes each) of the read artifact, the 1-based line the read starts at, rounds. */
    readonly readLines: number;
    readonly readAt: number;
    readonly readRounds: number;
  };
  /** Preview cost figure: the size of the log, and rounds. */
  readonly previewCostBytes: number;
  readonly previewCostRounds: number;
  /** Retrieval figures. */
  /** The search index: text indexed (real outputs, repeated), over how many spills, queries timed. */
  readonly search: { readonly bytes: number; readonly artifacts: number; readonly queries: number; readonly rounds: number };
  /** `spillway audit`: bytes of generated Claude Code transcripts, and rounds. */
  readonly audit: { readonly bytes: number; readonly rounds: number };
  readonly retrieval: {
    /** Lines in the read artifact (100 bytes each). */
    readonly readLines: number;
    /** 1-based line where the read starts. */
    readonly readAt: number;
    /** Size of the grep artifact. */
    readonly grepBytes: number;
    readonly rounds: number;
    /** Length of the long line the pathological pattern runs against. */
    readonly regexLineBytes: number;
    /** grep's time budget for the pathological pattern. */
    readonly regexTimeoutMs: number;
    readonly regexRounds: number;
  };
}

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** The full run: every size docs/benchmarks.md reports. */
export const FULL: Profile = {
  name: 'full',
  microRounds: 7,
  microTimeMs: 150,
  policySmall: { bytes: 4 * KiB, cap: 32 * KiB },
  policyLarge: { bytes: 4 * MiB, cap: 16 * MiB },
  localSizes: { small: 4 * KiB, medium: 1 * MiB, large: 64 * MiB },
  localLarge: { rounds: 7, savesPerRound: 3 },
  previewCostBytes: 64 * MiB,
  previewCostRounds: 9,
  memoryBytes: 4 * KiB,
  stream: { bytes: 2 * GiB, chunk: 64 * KiB, rounds: 3 },
  cli: { bytes: 1 * GiB, rounds: 5, logBytes: 1 * GiB },
  mcp: { calls: 200, rounds: 7, bigBytes: 100 * MiB, bigRounds: 3 },
  scale: { saves: 100_000, window: 1000, contentBytes: 4 * KiB, memoryMaxBytes: 1 * MiB, runs: 1, budgetMs: 120_000 },
  retention: { entries: 100_000, rounds: 5, rssRounds: 3 },
  s3: {
    sizes: { small: 4 * KiB, medium: 1 * MiB, large: 64 * MiB },
    saveRounds: 5,
    largeSavesPerRound: 2,
    // 256 MiB rather than 1 GiB: the store runs on the same (shared) machine and disk.
    stream: { bytes: 256 * MiB, chunk: 64 * KiB, rounds: 3 },
    readLines: 5_000_000,
    readAt: 4_000_000,
    readRounds: 3,
  },
  search: { bytes: 1024 * MiB, artifacts: 64, queries: 200, rounds: 1 },
  audit: { bytes: 64 * MiB, rounds: 3 },
  retrieval: {
    readLines: 5_000_000,
    readAt: 4_000_000,
    grepBytes: 256 * MiB,
    rounds: 5,
    regexLineBytes: 100_000,
    regexTimeoutMs: 2000,
    regexRounds: 3,
  },
};

/** The quick run: the same table with smaller sizes and fewer rounds. */
export const QUICK: Profile = {
  name: 'quick',
  microRounds: 5,
  microTimeMs: 60,
  policySmall: { bytes: 4 * KiB, cap: 32 * KiB },
  policyLarge: { bytes: 4 * MiB, cap: 16 * MiB },
  localSizes: { small: 4 * KiB, medium: 1 * MiB, large: 8 * MiB },
  localLarge: { rounds: 5, savesPerRound: 2 },
  previewCostBytes: 32 * MiB,
  previewCostRounds: 7,
  memoryBytes: 4 * KiB,
  stream: { bytes: 128 * MiB, chunk: 64 * KiB, rounds: 3 },
  cli: { bytes: 64 * MiB, rounds: 3, logBytes: 64 * MiB },
  mcp: { calls: 100, rounds: 5, bigBytes: 16 * MiB, bigRounds: 2 },
  scale: { saves: 5_000, window: 1000, contentBytes: 4 * KiB, memoryMaxBytes: 1 * MiB, runs: 1, budgetMs: 15_000 },
  retention: { entries: 10_000, rounds: 3, rssRounds: 2 },
  s3: {
    sizes: { small: 4 * KiB, medium: 1 * MiB, large: 8 * MiB },
    saveRounds: 3,
    largeSavesPerRound: 2,
    stream: { bytes: 32 * MiB, chunk: 64 * KiB, rounds: 2 },
    readLines: 320_000,
    readAt: 256_000,
    readRounds: 2,
  },
  search: { bytes: 32 * MiB, artifacts: 16, queries: 100, rounds: 1 },
  audit: { bytes: 8 * MiB, rounds: 3 },
  retrieval: {
    readLines: 320_000,
    readAt: 256_000,
    grepBytes: 16 * MiB,
    rounds: 3,
    regexLineBytes: 20_000,
    regexTimeoutMs: 1000,
    regexRounds: 2,
  },
};

/**
 * Applies `key=value` overrides such as `stream.bytes=512MiB` or `cli.rounds=5` to a
 * profile, for investigating one figure. Size-like keys accept units.
 *
 * @throws TypeError on an unknown key or a bad value.
 */
export function overrideProfile(base: Profile, assignments: readonly string[]): Profile {
  const copy = structuredClone(base) as unknown as Record<string, unknown>;
  for (const assignment of assignments) {
    const eq = assignment.indexOf('=');
    if (eq <= 0) throw new TypeError(`"${assignment}" is not key=value, such as stream.bytes=512MiB.`);
    const keys = assignment.slice(0, eq).split('.');
    const last = keys.pop() ?? '';
    let node: Record<string, unknown> = copy;
    for (const key of keys) {
      const next = node[key];
      if (typeof next !== 'object' || next === null) throw new TypeError(`Unknown profile key "${assignment.slice(0, eq)}".`);
      node = next as Record<string, unknown>;
    }
    if (typeof node[last] !== 'number') throw new TypeError(`Unknown profile key "${assignment.slice(0, eq)}".`);
    node[last] = parseSize(assignment.slice(eq + 1));
  }
  return copy as unknown as Profile;
}
