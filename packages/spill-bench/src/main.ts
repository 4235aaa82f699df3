#!/usr/bin/env node
/**
 * The benchmark command: `node dist/main.js --quick` or `--full`. Prints the table on
 * stdout, progress on stderr, and writes the JSON report under `bench-results/` at the
 * repository root (the path is printed).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { skipFigure, summarizeFigure, type FigureOutcome, type FigureSamples, type FigureSpec } from './figure.js';
import { formatNotes, formatTable } from './format.js';
import type { FigureGroup } from './group.js';
import { FULL, QUICK, overrideProfile, type Profile } from './profile.js';
import { findRepoRoot, machineInfo, writeReport } from './report.js';

/**
 * Every group, in table order. A group module imports the package it measures only
 * inside `run`, so a package that is missing or broken skips that group's rows only.
 */
const GROUPS: readonly { readonly name: string; readonly load: () => Promise<FigureGroup> }[] = [
  { name: 'policy', load: async () => (await import('./figures/policy.js')).policyGroup },
  { name: 'local', load: async () => (await import('./figures/local-save.js')).localSaveGroup },
  { name: 'memory', load: async () => (await import('./figures/memory-save.js')).memorySaveGroup },
  { name: 'stream', load: async () => (await import('./figures/stream.js')).streamGroup },
  { name: 'cli', load: async () => (await import('./figures/cli.js')).cliGroup },
  { name: 'mcp', load: async () => (await import('./figures/mcp.js')).mcpGroup },
  { name: 'scale', load: async () => (await import('./figures/scale.js')).scaleGroup },
  { name: 'retrieval', load: async () => (await import('./figures/retrieval.js')).retrievalGroup },
  { name: 'search', load: async () => (await import('./figures/search.js')).searchGroup },
  { name: 'retention', load: async () => (await import('./figures/retention.js')).retentionGroup },
  { name: 's3', load: async () => (await import('./figures/s3.js')).s3Group },
  { name: 'adapters', load: async () => (await import('./figures/adapters.js')).adaptersGroup },
  { name: 'hosts', load: async () => (await import('./figures/hosts.js')).hostsGroup },
  { name: 'preview', load: async () => (await import('./figures/preview.js')).previewGroup },
  { name: 'audit', load: async () => (await import('./figures/audit.js')).auditGroup },
];

/**
 * The order the groups run in, which is not the table's: the scale figure measures save
 * latencies over minutes, and the gigabytes that the stream, CLI and retrieval figures
 * write and delete leave the disk busy for a while afterwards (writeback, and discards on
 * a file system mounted with `discard`). Small saves measured right after them
 * ran 2 to 4 times slower, so the latency figures run first (and the CPU-bound retention
 * sweep before the disk-heavy groups too).
 */
const RUN_ORDER: readonly string[] = ['policy', 'adapters', 'preview', 'local', 'memory', 'scale', 'retention', 'stream', 'cli', 'hosts', 'mcp', 'retrieval', 'search', 's3', 'audit'];

const HELP = `Usage: node dist/main.js [--quick | --full] [options]

  --quick            smaller sizes, under a minute (default)
  --full             the full sizes docs/benchmarks.md reports, about seven minutes
  --only a,b         run only these groups: ${GROUPS.map((g) => g.name).join(', ')}
  --set key=value    override a profile value, e.g. --set stream.bytes=512MiB (repeatable)
  --out DIR          where to write the JSON report (default <repo>/bench-results)
  --help             this text

Targets are goals: a miss is printed, and the exit code stays 0.`;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      full: { type: 'boolean', default: false },
      only: { type: 'string' },
      set: { type: 'string', multiple: true, default: [] },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  if (values.quick && values.full) throw new TypeError('Pass --quick or --full, not both.');
  const profile: Profile = overrideProfile(values.full ? FULL : QUICK, values.set);
  const only = values.only?.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const name of only ?? []) {
    if (!GROUPS.some((g) => g.name === name)) throw new TypeError(`Unknown group "${name}"; known: ${GROUPS.map((g) => g.name).join(', ')}.`);
  }

  const started = new Date();
  const t0 = performance.now();
  const log = (text: string): void => {
    process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${text}\n`);
  };
  const machine = machineInfo();
  log(`${profile.name} run on ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}, load ${machine.loadAverage.map((l) => l.toFixed(2)).join(' ')}`);

  const scratch = await mkdtemp(path.join(os.tmpdir(), 'spillway-bench-'));
  const byGroup = new Map<string, FigureOutcome[]>();
  try {
    for (const name of RUN_ORDER) {
      const entry = GROUPS.find((g) => g.name === name);
      if (entry === undefined) continue;
      if (only !== undefined && !only.includes(entry.name)) continue;
      const group = await entry.load();
      const specs = group.specs(profile);
      const recorded = new Map<string, FigureSamples>();
      const groupDir = await mkdtemp(path.join(scratch, `${group.name}-`));
      log(`${group.name}: ${specs.length} figure(s)`);
      let failure: string | undefined;
      try {
        await group.run({
          profile,
          scratch: groupDir,
          log: (text) => {
            log(`${group.name}: ${text}`);
          },
          record: (id, samples) => {
            if (!specs.some((s) => s.id === id)) throw new Error(`Group ${group.name} recorded an unknown figure ${id}.`);
            recorded.set(id, samples);
          },
        });
      } catch (error) {
        failure = message(error);
        log(`${group.name}: failed: ${failure}`);
      } finally {
        await rm(groupDir, { recursive: true, force: true });
      }
      byGroup.set(entry.name, specs.map((spec) => outcome(spec, recorded.get(spec.id), failure)));
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }

  const figures = GROUPS.flatMap((g) => byGroup.get(g.name) ?? []);
  const table = formatTable(figures);
  const durationMs = performance.now() - t0;
  const notes = formatNotes(figures);
  process.stdout.write(`\nspillway benchmarks (${profile.name}), ${(durationMs / 1000).toFixed(1)} s\n\n${table}\n\n`);
  if (notes !== '') process.stdout.write(`Notes:\n${notes}\n\n`);
  const outDir = values.out ?? path.join(findRepoRoot() ?? process.cwd(), 'bench-results');
  const loadAverageAtEnd = os.loadavg();
  const file = await writeReport({ mode: profile.name, startedAt: started.toISOString(), durationMs, machine, loadAverageAtEnd, figures, table }, outDir);
  const misses = figures.filter((f) => f.status === 'measured' && !f.holds).length;
  const skipped = figures.filter((f) => f.status === 'skipped').length;
  const load = (l: readonly number[]): string => l.map((x) => x.toFixed(2)).join(' ');
  process.stdout.write(`Load average at start ${load(machine.loadAverage)}, at end ${load(loadAverageAtEnd)} (${machine.cpus} CPUs).\n`);
  process.stdout.write(`${figures.length - misses - skipped} held, ${misses} missed, ${skipped} skipped. JSON: ${file}\n`);
}

function outcome(spec: FigureSpec, samples: FigureSamples | undefined, failure: string | undefined): FigureOutcome {
  if (samples === undefined) return skipFigure(spec, failure ?? 'not measured');
  try {
    return summarizeFigure(spec, samples);
  } catch (error) {
    return skipFigure(spec, message(error));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof TypeError ? error.message : String(error instanceof Error ? error.stack : error)}\n`);
  process.exitCode = 1;
});
