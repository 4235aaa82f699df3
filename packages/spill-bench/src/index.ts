/**
 * The spillway benchmark harness (private). `node dist/main.js --quick | --full` runs
 * the figures; these exports are the pieces the harness is built from, tested on
 * their own.
 *
 * @packageDocumentation
 */
export type { FigureOutcome, FigureResult, FigureSamples, FigureSpec, SkippedFigure, Target, TargetSubject, Unit } from './figure.js';
export { evaluateTarget, ratioAtLeast, ratioAtMost, skipFigure, summarizeFigure, valueAtMost } from './figure.js';
export { TABLE_HEADER, formatDuration, formatNotes, formatRatio, formatTable, formatTarget, formatValue, tableRow } from './format.js';
export type { BenchContext, FigureGroup } from './group.js';
export type { InterleavedSamples, ScheduledRun, Side } from './interleave.js';
export { interleavedOrder, runInterleaved } from './interleave.js';
export type { MicroOptions, MicroTask } from './micro.js';
export { measureMicro, microPair } from './micro.js';
export type { ProcessOptions, ProcessRun } from './process.js';
export { MAXRSS_FILE_ENV, assertSucceeded, childScript, runNodeWithMaxRss, runProcess } from './process.js';
export type { Profile } from './profile.js';
export { FULL, QUICK, overrideProfile } from './profile.js';
export type { BenchReport, MachineInfo } from './report.js';
export { findRepoRoot, machineInfo, reportFileName, writeReport } from './report.js';
export { formatBytes, parseSize, trimNumber } from './sizes.js';
export { median, pairedRatios, quantile } from './stats.js';
export { parseVmHwm, peakRssBytes } from './peak-rss.js';
