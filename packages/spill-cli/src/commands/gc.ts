import { createReadStream } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { isSpillErrorCode, type SpillEntry } from '@spillway/core';
import {
  CLOCK_SLACK_MS,
  createRetention,
  DEFAULT_GRACE_MS,
  formatDuration,
  keepReferenced,
  parseByteSize,
  parseDuration,
  type DeleteReason,
  type KeepReason,
  type ReportedEntry,
  type RetentionReport,
  type RetentionOptions,
  type SweepProgress,
  type Tally,
} from '@spillway/retention';
import { CliError, cliMessage, oneLine } from '../cli-error.js';
import { addCommonOptions, type CliContext, type CommonOptions, type OutputStream } from '../context.js';
import { EXIT_CODES, exitCodeForSpillError } from '../exit-codes.js';
import { formatBytes } from '../format.js';
import { jsonLine } from '../json.js';
import { ProgressLine, barAndPercent } from '../progress-line.js';
import { gcSearchIndex, type IndexGcOutcome } from '../search-support.js';

interface GcOptions extends CommonOptions {
  readonly olderThan?: number;
  readonly maxBytes?: number;
  readonly maxSessionBytes?: number;
  /** `--max-bytes` exactly as typed, so the summary echoes the user's own units. */
  readonly maxBytesText?: string;
  /** `--max-session-bytes` exactly as typed. */
  readonly maxSessionBytesText?: string;
  readonly grace: number;
  readonly session?: string;
  readonly keepReferenced?: string[];
  readonly dryRun?: boolean;
}

/** Sweeps with more artifacts than this get a progress bar on a terminal. */
export const PROGRESS_THRESHOLD = 10_000;

const EXAMPLES = `
Examples:
  $ spillway gc --older-than 7d --max-bytes 2GB
  $ spillway gc --max-bytes 500MB --dry-run
  $ spillway gc --session conversation-42 --older-than 1d
  $ spillway gc --older-than 30d --keep-referenced ~/.agent/transcripts/*.jsonl
  $ spillway gc --older-than 7d --json | jq .deleted

Durations: ms, s, m, h, d, w, or sums such as 1h30m. Sizes: a number of bytes, or
KB/MB/GB/TB (powers of 1000), KiB/MiB/GiB/TiB or K/M/G/T (powers of 1024). The summary
repeats a limit as typed (with its exact bytes); measured sizes are shown in KiB/MiB/GiB.
A bare 0 is accepted for a duration or a size. Oldest artifacts go first; nothing younger
than --grace (default 5m; with --grace 0 still nothing under 1s old) is deleted, and
artifacts referenced by a spill notice in a --keep-referenced file are kept.

When a search index exists (see spillway search), what the sweep deleted leaves it too and
the index is compacted; a failure there is a warning, never a failed gc. --dry-run leaves
the index alone.
`;

/** Wraps a strict parser from @spillway/retention as a commander argument parser. */
function argument<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (error) {
      throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
    }
  };
}

/**
 * Parses a duration option: anything {@link parseDuration} takes, and a bare `0`, which
 * needs no unit because zero is zero in every unit (`--grace 0` turns the grace off).
 * Other bare numbers stay refused: `300` could mean milliseconds or seconds.
 */
export function parseDurationOption(text: string): number {
  return /^\s*0+\s*$/.test(text) ? 0 : parseDuration(text);
}

/** Reads a transcript file as UTF-8 chunks, so a large one never sits in memory. */
async function* fileChunks(path: string): AsyncGenerator<string> {
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    yield chunk as string;
  }
}

async function* allFiles(paths: readonly string[]): AsyncGenerator<string> {
  for (const path of paths) {
    try {
      yield* fileChunks(path);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new CliError('USAGE', `--keep-referenced: cannot read ${path}: ${reason}`, undefined, { cause: error });
    }
    // A notice never spans two files.
    yield '\n';
  }
}

/**
 * A one-line progress bar on a terminal, redrawn at most every 100 ms (and whenever a new
 * pass over the catalog starts). It appears only once the sweep has seen more than
 * {@link PROGRESS_THRESHOLD} artifacts.
 */
export class ProgressBar {
  private readonly line: ProgressLine;
  private lastPass = 0;

  constructor(
    stream: OutputStream,
    private readonly dryRun: boolean,
    clock: () => number = () => performance.now(),
  ) {
    this.line = new ProgressLine(stream, clock);
  }

  /** Takes one progress report from the sweep. */
  update(p: SweepProgress): void {
    const size = Math.max(p.seen, p.total ?? 0);
    if (size <= PROGRESS_THRESHOLD) return;
    // A new pass is drawn at once.
    this.line.draw(renderProgress(p, this.dryRun), p.pass !== this.lastPass);
    this.lastPass = p.pass;
  }

  /** Clears the bar, if one was drawn. */
  done(): void {
    this.line.done();
  }
}

/** The text of one progress line, such as `gc pass 2 (sizing quotas) [#####-----] 50% 50000/100000`. */
export function renderProgress(p: SweepProgress, dryRun: boolean): string {
  const what = p.phase === 'scan' ? 'counting' : p.phase === 'select' ? 'sizing quotas' : dryRun ? 'planning' : 'deleting';
  const head = `gc pass ${String(p.pass)} (${what})`;
  const tail = p.deleted > 0 ? `, ${p.deleted.toLocaleString('en-US')} ${dryRun ? 'to delete' : 'deleted'}` : '';
  if (p.total === undefined || p.total === 0) return `${head} ${p.seen.toLocaleString('en-US')} artifacts${tail}`;
  const ratio = Math.min(1, p.seen / p.total);
  return `${head} ${barAndPercent(ratio)} ${p.seen.toLocaleString('en-US')}/${p.total.toLocaleString('en-US')}${tail}`;
}

/**
 * A size limit as the user typed it, and its exact bytes when the unit alone does not say
 * (`100MB (100,000,000 bytes)`); {@link formatBytes} when it was not typed.
 */
export function echoLimit(bytes: number, typed: string | undefined): string {
  if (typed === undefined) return formatBytes(bytes);
  const shown = typed.trim();
  return /^\d+$/.test(shown) ? `${shown} bytes` : `${shown} (${bytes.toLocaleString('en-US')} bytes)`;
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

function sized(t: Tally, noun = 'artifact'): string {
  return `${count(t.count, noun)} (${formatBytes(t.bytes)})`;
}

const DELETE_WORDS: Record<DeleteReason, (o: GcOptions) => string> = {
  age: (o) => `older than ${formatDuration(o.olderThan ?? 0)}`,
  'session-quota': () => 'over --max-session-bytes',
  'total-quota': () => 'over --max-bytes',
  purge: () => 'purged',
};

const KEEP_WORDS: Record<KeepReason, (o: GcOptions) => string> = {
  keep: () => 'referenced',
  // The sweep never deletes anything younger than its clock slack, whatever --grace says.
  grace: (o) => `younger than the ${formatDuration(Math.max(o.grace, CLOCK_SLACK_MS))} grace period`,
};

function breakdown<R extends string>(
  byReason: Readonly<Record<R, Tally>>,
  words: Record<R, (o: GcOptions) => string>,
  options: GcOptions,
): string {
  const parts: string[] = [];
  for (const reason of Object.keys(byReason) as R[]) {
    const t = byReason[reason];
    if (t.count > 0) parts.push(`${t.count.toLocaleString('en-US')} ${words[reason](options)}`);
  }
  return parts.join(', ');
}

/**
 * The summary line of the search index's upkeep, or `undefined` when there is nothing to
 * say (no index, or a failure, which is a warning of its own: see {@link indexWarning}).
 */
export function formatIndexLine(index: IndexGcOutcome | undefined): string | undefined {
  if (index === undefined || 'error' in index) return undefined;
  const dropped = index.removed === 0 ? 'nothing to drop' : `dropped ${count(index.removed, 'deleted artifact')}`;
  return `Search index: ${dropped}; ${formatBytes(index.bytesAfter)} after compaction (was ${formatBytes(index.bytesBefore)}).`;
}

/** The warning for a search index that could not be kept up: it is a cache, so deleting it is always safe. */
export function indexWarning(index: IndexGcOutcome | undefined): string | undefined {
  if (index === undefined || !('error' in index)) return undefined;
  const code = index.error.code === undefined ? '' : ` [${index.error.code}]`;
  return `the search index ${index.location} was not compacted: ${index.error.message}${code}. It is only a cache of the store: delete it (rm ${index.location}) and the next search rebuilds it.`;
}

/** The human summary printed at the end of `spillway gc`. */
export function formatGcSummary(report: RetentionReport, options: GcOptions, index?: IndexGcOutcome): string {
  const lines: string[] = [];
  const dry = report.dryRun;
  if (report.deleted.count === 0) {
    lines.push(dry ? 'Would delete nothing.' : 'Deleted nothing.');
  } else {
    const verb = dry ? 'Would delete' : 'Deleted';
    lines.push(`${verb} ${sized(report.deleted)}: ${breakdown(report.deleted.byReason, DELETE_WORDS, options)}.`);
  }
  if (report.kept.count > 0) {
    lines.push(`Kept ${sized(report.kept)} that a limit would have deleted: ${breakdown(report.kept.byReason, KEEP_WORDS, options)}.`);
  }
  if (report.vanished.count > 0) lines.push(`${count(report.vanished.count, 'artifact was', 'artifacts were')} already gone.`);
  const left = `${dry ? 'Would leave' : 'Left'} ${sized(report.remaining)}`;
  const total = report.limits.total;
  lines.push(
    total === undefined
      ? `${left}.`
      : `${left}; --max-bytes ${echoLimit(total.limit, options.maxBytesText)} ${total.met ? 'is met' : `is NOT met (${total.reason === 'protected' ? 'kept and fresh artifacts alone exceed it' : 'some deletions failed'})`}.`,
  );
  const session = report.limits.session;
  if (session !== undefined && session.overCount > 0) {
    lines.push(`${count(session.overCount, 'session stays', 'sessions stay')} over --max-session-bytes ${echoLimit(session.limit, options.maxSessionBytesText)} (kept, fresh or undeletable artifacts).`);
  }
  if (report.temp !== null && report.temp.removed > 0) {
    lines.push(`Removed ${sized({ count: report.temp.removed, bytes: report.temp.bytes }, 'leftover temp file')}.`);
  }
  if (report.errorCount > 0) {
    const first = report.errors[0];
    const where = first?.locator === undefined ? '' : `${first.locator}: `;
    const message = first === undefined ? '' : isSpillErrorCode(first.code) ? cliMessage(first.code, first.message) : first.message;
    lines.push(`${count(report.errorCount, 'error')}${first === undefined ? '' : `; first: ${where}${message} [${first.code}]`}`);
  }
  if (report.skipped.length > 0) {
    lines.push(`Skipped ${count(report.skipped.length, 'unusable session directory', 'unusable session directories')} (see the warnings); everything else was swept.`);
  }
  if (!report.complete) lines.push('The sweep stopped early; run it again once the problem above is fixed.');
  if (options.olderThan === undefined && options.maxBytes === undefined && options.maxSessionBytes === undefined) {
    lines.push('No limit given (--older-than, --max-bytes, --max-session-bytes): only leftover temp files were cleaned.');
  }
  const indexLine = formatIndexLine(index);
  if (indexLine !== undefined) lines.push(indexLine);
  lines.push(`Done in ${formatDuration(report.durationMs)} (${count(report.passes, 'pass', 'passes')} over the catalog).`);
  return lines.map((l) => `${oneLine(l)}\n`).join('');
}

function entryJson(e: ReportedEntry): Record<string, unknown> {
  return { locator: e.locator, bytes: e.bytes, createdAt: e.createdAt.toISOString(), session: e.session, reason: e.reason };
}

/** The `index` member of `spillway gc --json`: `null` when there is no index or nothing was done. */
function indexJson(index: IndexGcOutcome | undefined): Record<string, unknown> | null {
  if (index === undefined) return null;
  if ('error' in index) return { location: index.location, error: { code: index.error.code ?? null, message: index.error.message } };
  return { location: index.location, removed: index.removed, indexed: index.indexed, bytesBefore: index.bytesBefore, bytesAfter: index.bytesAfter, error: null };
}

/** The `spillway gc --json` document: the report, with dates as ISO strings and `null` for absent values. */
export function gcJson(report: RetentionReport, index?: IndexGcOutcome): Record<string, unknown> {
  const total = report.limits.total;
  const session = report.limits.session;
  return {
    dryRun: report.dryRun,
    complete: report.complete,
    startedAt: report.startedAt.toISOString(),
    durationMs: Math.round(report.durationMs),
    passes: report.passes,
    scanned: report.scanned,
    deleted: report.deleted,
    vanished: report.vanished,
    kept: report.kept,
    remaining: report.remaining,
    limits: {
      total: total === undefined ? null : { limit: total.limit, bytes: total.bytes, met: total.met, reason: total.reason ?? null },
      session: session ?? null,
    },
    temp: report.temp,
    errors: report.errors.map((e) => ({ phase: e.phase, locator: e.locator ?? null, code: e.code, message: e.message })),
    errorCount: report.errorCount,
    skipped: report.skipped.map((p) => ({ where: p.where, code: p.code, message: p.message })),
    entries: {
      deleted: report.entries.deleted.map(entryJson),
      kept: report.entries.kept.map(entryJson),
      omitted: report.entries.omitted,
    },
    index: indexJson(index),
  };
}

/** Registers `spillway gc`: applies age and size limits to the artifacts under the root. */
export function registerGc(program: Command, ctx: CliContext): void {
  // The size limits as typed, for the summary (commander keeps only the parsed value).
  const typed: { maxBytesText?: string; maxSessionBytesText?: string } = {};
  const size = (key: keyof typeof typed) => (text: string): number => {
    const bytes = parseByteSize(text);
    typed[key] = text;
    return bytes;
  };
  const command = program
    .command('gc')
    .description('Delete old artifacts, oldest first, to stay within age and size limits.')
    .option('--older-than <duration>', 'delete artifacts older than this (e.g. 7d, 12h)', argument(parseDurationOption))
    .option('--max-bytes <size>', 'keep the total at or under this size (e.g. 2GB, 500MiB)', argument(size('maxBytesText')))
    .option('--max-session-bytes <size>', 'keep each session at or under this size', argument(size('maxSessionBytesText')))
    .addOption(
      new Option('--grace <duration>', 'never delete anything younger than this (0: only the last second)')
        .argParser(argument(parseDurationOption))
        // Shown as a duration in --help, not as raw milliseconds.
        .default(DEFAULT_GRACE_MS, formatDuration(DEFAULT_GRACE_MS)),
    )
    .option('--session <id>', 'only this session\'s artifacts (the limits apply within it)')
    // Variadic, so that a shell glob expanding to several files works; repeating the
    // option adds to the list (commander concatenates repeated variadic options).
    .option('--keep-referenced <files...>', 'keep artifacts a spill notice in these transcript files points at (repeatable)')
    .option('--dry-run', 'print what would be deleted, and delete nothing');
  addCommonOptions(command, { json: true });
  command.addHelpText('after', EXAMPLES);
  command.action(async (options: GcOptions) => {
    const backend = ctx.backend(options);
    // An unsafe or missing root is a plain failure, before any listing starts.
    if (typeof backend.root === 'function') await backend.root();
    const files = options.keepReferenced ?? [];
    const keep: ((entry: SpillEntry) => boolean) | undefined = files.length > 0 ? await keepReferenced(allFiles(files)) : undefined;
    const retentionOptions: RetentionOptions = {
      catalog: backend.catalog,
      maxAgeMs: options.olderThan,
      maxTotalBytes: options.maxBytes,
      maxSessionBytes: options.maxSessionBytes,
      graceMs: options.grace,
      keep,
      dryRun: options.dryRun === true,
    };
    const retention = createRetention(retentionOptions);
    const bar = options.json !== true && ctx.io.stderr.isTTY === true ? new ProgressBar(ctx.io.stderr, options.dryRun === true) : undefined;
    let report: RetentionReport;
    try {
      report = await retention.sweep({
        sessionId: options.session === undefined ? undefined : ctx.session(options.session),
        onProgress: bar === undefined ? undefined : (p) => {
          bar.update(p);
        },
      });
    } finally {
      bar?.done();
    }
    // The search index is a cache of the store: after a real sweep, what the store no
    // longer holds leaves it too. Only an index that exists is touched; a failure is a warning.
    const index = options.dryRun === true ? undefined : await gcSearchIndex(backend, ctx.searchIndexPlace(options) ?? (await ctx.searchIndexLocation(options, backend)));
    await ctx.print(options.json === true ? jsonLine(gcJson(report, index)) : formatGcSummary(report, { ...options, ...typed }, index));
    const warning = indexWarning(index);
    if (warning !== undefined) await ctx.warn(warning);
    if (options.json !== true) {
      for (const part of report.skipped) {
        const message = isSpillErrorCode(part.code) ? cliMessage(part.code, part.message) : part.message;
        await ctx.warn(`skipped ${part.where}: ${message} [${part.code}]`);
      }
    }
    // A failure outranks a skipped directory: both say "look", the failure says more.
    const first = report.errors.find((e) => e.phase === 'list') ?? report.errors[0];
    if (first !== undefined && isSpillErrorCode(first.code)) ctx.exitCode = exitCodeForSpillError(first.code);
    else if (report.skipped.length > 0) ctx.exitCode = EXIT_CODES.PARTIAL;
  });
}
