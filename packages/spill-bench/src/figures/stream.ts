import { ratioAtLeast, valueAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { runInterleaved } from '../interleave.js';
import { assertSucceeded, childScript, runProcess } from '../process.js';
import type { Profile } from '../profile.js';
import { formatBytes } from '../sizes.js';
import { privateDir } from './common.js';

const BASELINE = 'fs.createWriteStream, same chunks';

function specs(profile: Profile): FigureSpec[] {
  const size = `${formatBytes(profile.stream.bytes)} in ${formatBytes(profile.stream.chunk)} chunks`;
  return [
    { id: 'stream.throughput', title: `local saveTextStream ${size}: throughput`, baseline: BASELINE, unit: 'bytes/s', target: ratioAtLeast(0.8) },
    {
      id: 'stream.rss',
      title: `local saveTextStream ${size}: peak RSS growth`,
      baseline: BASELINE,
      unit: 'bytes',
      target: valueAtMost(64 * 1024 * 1024),
    },
  ];
}

interface StreamRun {
  readonly ms: number;
  readonly bytes: number;
  readonly onDisk: number;
  readonly rssBefore: number;
  readonly maxRss: number;
}

/**
 * Figure 4: streaming a large output to disk. Each run is a fresh child process, so the
 * peak RSS growth (`VmHWM` minus the RSS just before the stream) belongs
 * to that stream alone. The baseline is Node's own file stream fed the same chunks with
 * backpressure: what any streaming writer in Node costs.
 */
export const streamGroup: FigureGroup = {
  name: 'stream',
  specs,
  async run(ctx) {
    const { bytes, chunk, rounds } = ctx.profile.stream;
    const root = await privateDir(ctx.scratch, 'root');
    const child = childScript('stream-child.js');
    const problems = new Set<string>();
    const once = async (mode: 'spillway' | 'baseline', round: number): Promise<StreamRun> => {
      const run = await runProcess(process.execPath, [child, mode, String(bytes), String(chunk), root], { captureStdout: true });
      assertSucceeded(run, `The ${mode} stream child`);
      const result = JSON.parse(run.stdout) as StreamRun;
      if (result.bytes !== bytes || result.onDisk !== bytes) {
        problems.add(`${mode} stored ${result.onDisk} bytes (reported ${result.bytes}), expected ${bytes}`);
      }
      ctx.log(`round ${round} ${mode}: ${(result.ms / 1000).toFixed(2)} s, RSS +${formatBytes(result.maxRss - result.rssBefore)}`);
      return result;
    };
    const samples = await runInterleaved(rounds, {
      spillway: (round) => once('spillway', round),
      baseline: (round) => once('baseline', round),
    });
    const notes = problems.size === 0 ? [`every run stored exactly ${bytes} bytes`] : [...problems];
    const throughput = (r: StreamRun): number => (r.bytes / r.ms) * 1000;
    const growth = (r: StreamRun): number => r.maxRss - r.rssBefore;
    ctx.record('stream.throughput', { spillway: samples.spillway.map(throughput), baseline: samples.baseline.map(throughput), notes });
    ctx.record('stream.rss', {
      spillway: samples.spillway.map(growth),
      baseline: samples.baseline.map(growth),
      notes: [`peak RSS (VmHWM) minus the RSS just before the stream; before: ${formatBytes(samples.spillway[0]?.rssBefore ?? 0)}`],
    });
  },
};
