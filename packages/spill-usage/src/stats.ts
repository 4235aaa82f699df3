import { usageDigest, type StoredUsageEvent } from './log.js';

/** Bytes per token for the estimate: about four for English text and code. */
export const BYTES_PER_TOKEN = 4;

/** How soon spilled artifacts were read back. */
export interface ReadBackStats {
  /** Spilled artifacts read back at least once. */
  readonly artifacts: number;
  /** Reads of those artifacts (read, grep, cat, search hits followed…). */
  readonly reads: number;
  /** Median seconds from the spill to the first read; `null` with no read. */
  readonly medianSecondsToFirstRead: number | null;
  /** Longest seconds from the spill to the first read; `null` with no read. */
  readonly maxSecondsToFirstRead: number | null;
}

/** The numbers for one host and tool, or for everything. */
export interface UsageRow {
  /** The host (`-` for a surface outside any host, such as `spillway run` in a terminal). */
  readonly host: string;
  /** The tool (`*` in the totals). */
  readonly tool: string;
  /** Results seen (passed, spilled and kept). */
  readonly results: number;
  /** Results spilled. */
  readonly spilled: number;
  /** Results over the cap that were shown whole (the spill failed or did not fit). */
  readonly kept: number;
  /** UTF-8 bytes of every result seen. */
  readonly bytesSeen: number;
  /** UTF-8 bytes kept out of the context: each spilled result's size minus what the model was shown. */
  readonly bytesKeptOut: number;
  /** {@link UsageRow.bytesKeptOut} over {@link BYTES_PER_TOKEN}, rounded. */
  readonly tokensKeptOut: number;
  /** Read-backs of the artifacts spilled here. */
  readonly readBack: ReadBackStats;
}

/** What `spillway stats` answers. */
export interface UsageStats {
  /** The session digest filtered on, if any. */
  readonly session: string | null;
  /** Events counted. */
  readonly events: number;
  /** Epoch ms of the first and last event counted; `null` with none. */
  readonly from: number | null;
  readonly to: number | null;
  /** Everything together. */
  readonly total: UsageRow;
  /** One row per host and tool, most bytes kept out first. */
  readonly rows: readonly UsageRow[];
  /** Reads of artifacts whose spill is not in the log (older than it, or from elsewhere). */
  readonly unmatchedReads: number;
}

interface Acc {
  host: string;
  tool: string;
  results: number;
  spilled: number;
  kept: number;
  bytesSeen: number;
  bytesKeptOut: number;
  firstReads: number[];
  reads: number;
  artifactsRead: number;
}

function acc(host: string, tool: string): Acc {
  return { host, tool, results: 0, spilled: 0, kept: 0, bytesSeen: 0, bytesKeptOut: 0, firstReads: [], reads: 0, artifactsRead: 0 };
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const value = sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return Math.round(value * 10) / 10;
}

function row(a: Acc): UsageRow {
  const max = a.firstReads.length === 0 ? null : Math.round(Math.max(...a.firstReads) * 10) / 10;
  return {
    host: a.host,
    tool: a.tool,
    results: a.results,
    spilled: a.spilled,
    kept: a.kept,
    bytesSeen: a.bytesSeen,
    bytesKeptOut: a.bytesKeptOut,
    tokensKeptOut: Math.round(a.bytesKeptOut / BYTES_PER_TOKEN),
    readBack: { artifacts: a.artifactsRead, reads: a.reads, medianSecondsToFirstRead: median(a.firstReads), maxSecondsToFirstRead: max },
  };
}

/**
 * Sums usage events: per host and tool, results seen, spilled and kept, bytes and
 * estimated tokens kept out of context, and how many spilled artifacts were read back, how
 * often and how soon. `session` (the id as the surface knew it) keeps that session's events.
 */
export function summarizeUsage(events: Iterable<StoredUsageEvent>, options: { readonly session?: string | undefined } = {}): UsageStats {
  const session = options.session === undefined ? null : usageDigest(options.session);
  const rows = new Map<string, Acc>();
  const total = acc('*', '*');
  const spills = new Map<string, { at: number; acc: Acc; read: boolean }>();
  let counted = 0;
  let from: number | null = null;
  let to: number | null = null;
  let unmatchedReads = 0;
  const count = (t: number): void => {
    counted++;
    from = from === null ? t : Math.min(from, t);
    to = to === null ? t : Math.max(to, t);
  };
  for (const event of events) {
    // A read belongs to the session of the artifact it reads (a reader such as
    // `spillway read` may not know the session), so reads are joined, not filtered.
    if (session !== null && event.kind !== 'read' && event.session !== session) continue;
    if (event.kind === 'read') {
      const spill = event.artifact === undefined ? undefined : spills.get(event.artifact);
      if (spill === undefined) {
        if (session === null) {
          count(event.t);
          unmatchedReads++;
        }
        continue;
      }
      count(event.t);
      spill.acc.reads++;
      total.reads++;
      if (!spill.read) {
        spill.read = true;
        const seconds = Math.max(0, (event.t - spill.at) / 1000);
        spill.acc.firstReads.push(seconds);
        spill.acc.artifactsRead++;
        total.firstReads.push(seconds);
        total.artifactsRead++;
      }
      continue;
    }
    count(event.t);
    const host = event.host ?? '-';
    const tool = event.tool ?? '-';
    const key = `${host}\u0000${tool}`;
    let a = rows.get(key);
    if (a === undefined) rows.set(key, (a = acc(host, tool)));
    const bytes = event.bytes ?? 0;
    for (const target of [a, total]) {
      target.results++;
      target.bytesSeen += bytes;
      if (event.kind === 'spilled') {
        target.spilled++;
        target.bytesKeptOut += Math.max(0, bytes - (event.shownBytes ?? 0));
      } else if (event.kind === 'kept') {
        target.kept++;
      }
    }
    if (event.kind === 'spilled' && event.artifact !== undefined && !spills.has(event.artifact)) {
      spills.set(event.artifact, { at: event.t, acc: a, read: false });
    }
  }
  const sorted = [...rows.values()].map(row).sort((x, y) => y.bytesKeptOut - x.bytesKeptOut || y.results - x.results);
  return { session, events: counted, from, to, total: row(total), rows: sorted, unmatchedReads };
}
