import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FigureOutcome } from './figure.js';

/** Everything one benchmark run produced, as written to JSON. */
export interface BenchReport {
  /** The profile that ran: `quick` or `full`. */
  readonly mode: string;
  /** When the run started (ISO 8601). */
  readonly startedAt: string;
  /** How long the whole run took, in milliseconds. */
  readonly durationMs: number;
  /** The machine, so that numbers from different runs can be told apart. */
  readonly machine: MachineInfo;
  /** 1, 5 and 15 minute load averages when the run ended. */
  readonly loadAverageAtEnd: readonly number[];
  /** Every figure, measured or skipped, in table order. */
  readonly figures: readonly FigureOutcome[];
  /** The table as printed. */
  readonly table: string;
}

/** What the report records about the machine. */
export interface MachineInfo {
  readonly node: string;
  readonly platform: string;
  readonly arch: string;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly totalMemoryBytes: number;
  /** 1, 5 and 15 minute load averages when the run started: a noisy machine shows here. */
  readonly loadAverage: readonly number[];
}

/** Describes the current machine. */
export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    totalMemoryBytes: os.totalmem(),
    loadAverage: os.loadavg(),
  };
}

/**
 * The report's file name for a run that started at `date`: an ISO timestamp with the
 * characters that some file systems refuse replaced, such as
 * `2025-01-31T12-00-00-000Z-full.json`.
 */
export function reportFileName(date: Date, mode: string): string {
  return `${date.toISOString().replaceAll(':', '-').replace('.', '-')}-${mode}.json`;
}

/**
 * The monorepo root: the nearest directory above `from` holding `pnpm-workspace.yaml`,
 * or `undefined` when there is none.
 */
export function findRepoRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string | undefined {
  let dir = path.resolve(from);
  for (;;) {
    if (existsSync(path.join(dir, 'pnpm-workspace.yaml'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Writes `report` as JSON into `dir` (created if needed) and returns the file's path. */
export async function writeReport(report: BenchReport, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, reportFileName(new Date(report.startedAt), report.mode));
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
