import { ratioAtMost, valueAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { runInterleaved } from '../interleave.js';
import { assertSucceeded, childScript, runProcess } from '../process.js';
import type { Profile } from '../profile.js';
import { GeneratedCatalog, retentionQuota, sweepGenerated, type RetentionRun } from '../retention-catalog.js';
import { formatBytes } from '../sizes.js';

const BASELINE = 'list all into an array, sort, delete oldest';

function what(profile: Profile): string {
  return `retention sweep of ${profile.retention.entries.toLocaleString('en-US')} artifacts to a total quota`;
}

function specs(profile: Profile): FigureSpec[] {
  return [
    { id: 'retention.time', title: `${what(profile)}: wall time`, baseline: BASELINE, unit: 'ms', target: ratioAtMost(3) },
    { id: 'retention.rss', title: `${what(profile)}: peak RSS growth`, baseline: BASELINE, unit: 'bytes', target: valueAtMost(64 * 1024 * 1024) },
  ];
}

interface ChildRun extends RetentionRun {
  readonly rssBefore: number;
  readonly maxRss: number;
}

/**
 * Figure 8: a retention sweep over a large catalog. The catalog is generated in memory
 * (entries made as they are listed, out of age order, 1 to 9 KiB each, 100 sessions),
 * so the figure is the sweep's own cost; the quota is half the catalog's bytes, which
 * makes `createRetention` list the catalog several times (it keeps histograms, not
 * entries). The baseline is the obvious sweep that holds every entry. Time is measured
 * in this process, interleaved; memory in a fresh child process per run (`VmHWM` minus
 * the RSS just before the sweep).
 */
export const retentionGroup: FigureGroup = {
  name: 'retention',
  specs,
  async run(ctx) {
    const { createRetention } = await import('@spillway/retention');
    const { entries, rounds, rssRounds } = ctx.profile.retention;
    const quota = retentionQuota(entries);
    const problems = new Set<string>();
    const check = (side: string, run: RetentionRun): void => {
      if (run.remainingBytes > quota) problems.add(`${side} left ${run.remainingBytes} bytes, over the quota of ${quota}`);
    };
    const counts = { spillway: new Set<number>(), baseline: new Set<number>() };
    const passes = new Set<number>();

    const timed = await runInterleaved(
      rounds,
      {
        spillway: async (round) => {
          const run = await sweepGenerated('spillway', entries, createRetention);
          check('spillway', run);
          counts.spillway.add(run.deleted);
          passes.add(run.passes);
          ctx.log(`round ${round} spillway: ${run.ms.toFixed(0)} ms, ${run.passes} passes, ${run.deleted} deleted`);
          return run.ms;
        },
        baseline: async (round) => {
          const run = await sweepGenerated('baseline', entries, createRetention);
          check('baseline', run);
          counts.baseline.add(run.deleted);
          ctx.log(`round ${round} baseline: ${run.ms.toFixed(0)} ms, ${run.deleted} deleted`);
          return run.ms;
        },
      },
      { warmup: true },
    );
    const same = counts.spillway.size === 1 && counts.baseline.size === 1 && [...counts.spillway][0] === [...counts.baseline][0];
    if (!same) problems.add(`deleted counts differ: spillway ${[...counts.spillway].join('/')}, baseline ${[...counts.baseline].join('/')}`);
    const total = GeneratedCatalog.totalBytes(entries);
    const notes =
      problems.size === 0
        ? [
            `both deleted the same ${[...counts.spillway].join('')} oldest artifacts every round, from ${formatBytes(total)} to under ${formatBytes(quota)}; spillway listed the catalog ${[...passes].join('/')} times`,
          ]
        : [...problems];
    ctx.record('retention.time', { spillway: timed.spillway, baseline: timed.baseline, notes });

    const child = childScript('retention-child.js');
    const once = async (mode: 'spillway' | 'baseline', round: number): Promise<ChildRun> => {
      const run = await runProcess(process.execPath, [child, mode, String(entries)], { captureStdout: true, deadlineMs: 120_000 });
      assertSucceeded(run, `The ${mode} retention child`);
      const result = JSON.parse(run.stdout) as ChildRun;
      check(mode, result);
      ctx.log(`memory round ${round} ${mode}: RSS +${formatBytes(result.maxRss - result.rssBefore)}`);
      return result;
    };
    const memory = await runInterleaved(rssRounds, {
      spillway: (round) => once('spillway', round),
      baseline: (round) => once('baseline', round),
    });
    const growth = (r: ChildRun): number => r.maxRss - r.rssBefore;
    ctx.record('retention.rss', {
      spillway: memory.spillway.map(growth),
      baseline: memory.baseline.map(growth),
      notes: [
        `peak RSS (VmHWM) minus the RSS just before the sweep, in a fresh process per run; before: ${formatBytes(memory.spillway[0]?.rssBefore ?? 0)}`,
        ...(problems.size === 0 ? [] : [...problems]),
      ],
    });
  },
};
