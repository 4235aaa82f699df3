import { usageDigest, type StoredUsageEvent, type UsageKind } from './log.js';
import { BYTES_PER_TOKEN } from './stats.js';

/** Upper bounds (exclusive, bytes) of the size buckets; the last bucket has none. */
export const USAGE_SIZE_BOUNDS: readonly number[] = [1024, 4096, 16_384, 65_536, 262_144, 1_048_576];

/** Results whose size falls in one bucket. */
export interface UsageSizeBucket {
  /** Sizes from this many bytes… */
  readonly from: number;
  /** …up to (not including) this many; `null` for the last bucket. */
  readonly upTo: number | null;
  /** Results of that size (passed, spilled and kept). */
  readonly results: number;
  /** Of those, the results spilled. */
  readonly spilled: number;
}

/** The numbers for one tool or one MCP server. */
export interface UsageGroup {
  /** The tool's or the server's name. */
  readonly name: string;
  /** Results seen (passed, spilled and kept). */
  readonly results: number;
  /** Results spilled. */
  readonly spilled: number;
  /** UTF-8 bytes kept out of context: each spilled result's size minus what was shown. */
  readonly bytesKeptOut: number;
  /** {@link UsageGroup.bytesKeptOut} over {@link BYTES_PER_TOKEN}, rounded. */
  readonly tokensKeptOut: number;
}

/** One event on a session's timeline. */
export interface UsagePoint {
  /** Epoch milliseconds. */
  readonly t: number;
  readonly kind: UsageKind;
  /** The tool (`-` when unknown, empty for a read). */
  readonly tool: string;
  /** Size of the result; 0 for a read. */
  readonly bytes: number;
  /** Tokens this result kept out of context (0 unless spilled). */
  readonly tokensKeptOut: number;
}

/** One session's events in time. */
export interface UsageSessionTimeline {
  /** The digest of the session id, as stored. */
  readonly session: string;
  /** Epoch milliseconds of its first and last event. */
  readonly from: number;
  readonly to: number;
  /** Results seen, spilled, reads of its spills, and tokens kept out, as in {@link UsageGroup}. */
  readonly results: number;
  readonly spilled: number;
  readonly reads: number;
  readonly tokensKeptOut: number;
  /** The events, oldest first; only the last {@link UsageBreakdownOptions.maxPoints} when there are more. */
  readonly points: readonly UsagePoint[];
}

/** What {@link usageBreakdown} answers: what a chart of the log needs. */
export interface UsageBreakdown {
  /** Results by size, {@link USAGE_SIZE_BOUNDS} apart. */
  readonly sizes: readonly UsageSizeBucket[];
  /** Per tool, most tokens kept out first. */
  readonly tools: readonly UsageGroup[];
  /** Per MCP server (as `serverOf` names them), most tokens kept out first. */
  readonly servers: readonly UsageGroup[];
  /** Sessions, the most recently active first; only the first {@link UsageBreakdownOptions.maxSessions}. */
  readonly sessions: readonly UsageSessionTimeline[];
  /** Sessions left out by `maxSessions`. */
  readonly sessionsLeftOut: number;
}

/** Options of {@link usageBreakdown}. */
export interface UsageBreakdownOptions {
  /** Only this session's events (the id as the surface knew it), and the reads of its artifacts. */
  readonly session?: string | undefined;
  /** The MCP server a tool name belongs to, if any (e.g. Claude Code's `mcp__github__create_issue`). */
  readonly serverOf?: ((tool: string) => string | undefined) | undefined;
  /** Sessions kept (default 20, the most recently active). */
  readonly maxSessions?: number;
  /** Events kept per session (default 500, the newest). */
  readonly maxPoints?: number;
}

interface GroupAcc {
  name: string;
  results: number;
  spilled: number;
  bytesKeptOut: number;
}

interface SessionAcc {
  session: string;
  from: number;
  to: number;
  results: number;
  spilled: number;
  reads: number;
  bytesKeptOut: number;
  points: UsagePoint[];
}

function group(a: GroupAcc): UsageGroup {
  return { ...a, tokensKeptOut: Math.round(a.bytesKeptOut / BYTES_PER_TOKEN) };
}

function byKeptOut(groups: Iterable<GroupAcc>): UsageGroup[] {
  return [...groups].map(group).sort((x, y) => y.bytesKeptOut - x.bytesKeptOut || y.results - x.results || (x.name < y.name ? -1 : 1));
}

/**
 * Groups usage events for charts: results by size, tokens kept out per tool and per MCP
 * server, and each session's events in time (reads join the session of the artifact they
 * read). Events without a session appear in every figure but the timelines.
 */
export function usageBreakdown(events: Iterable<StoredUsageEvent>, options: UsageBreakdownOptions = {}): UsageBreakdown {
  const only = options.session === undefined ? null : usageDigest(options.session);
  const maxSessions = options.maxSessions ?? 20;
  const maxPoints = options.maxPoints ?? 500;
  const sizes: { from: number; upTo: number | null; results: number; spilled: number }[] = USAGE_SIZE_BOUNDS.map((upTo, i) => ({ from: USAGE_SIZE_BOUNDS[i - 1] ?? 0, upTo, results: 0, spilled: 0 }));
  sizes.push({ from: USAGE_SIZE_BOUNDS[USAGE_SIZE_BOUNDS.length - 1] ?? 0, upTo: null, results: 0, spilled: 0 });
  const tools = new Map<string, GroupAcc>();
  const servers = new Map<string, GroupAcc>();
  const sessions = new Map<string, SessionAcc>();
  const spillSession = new Map<string, string>();
  const lane = (session: string, t: number): SessionAcc => {
    let s = sessions.get(session);
    if (s === undefined) sessions.set(session, (s = { session, from: t, to: t, results: 0, spilled: 0, reads: 0, bytesKeptOut: 0, points: [] }));
    s.from = Math.min(s.from, t);
    s.to = Math.max(s.to, t);
    return s;
  };
  for (const event of events) {
    if (event.kind === 'read') {
      const session = event.artifact === undefined ? undefined : spillSession.get(event.artifact);
      if (session === undefined) continue;
      const s = lane(session, event.t);
      s.reads++;
      s.points.push({ t: event.t, kind: 'read', tool: '', bytes: 0, tokensKeptOut: 0 });
      continue;
    }
    if (only !== null && event.session !== only) continue;
    const bytes = event.bytes ?? 0;
    const spilled = event.kind === 'spilled';
    const keptOut = spilled ? Math.max(0, bytes - (event.shownBytes ?? 0)) : 0;
    const bucket = sizes.find((b) => b.upTo === null || bytes < b.upTo);
    if (bucket !== undefined) {
      bucket.results++;
      if (spilled) bucket.spilled++;
    }
    const tool = event.tool ?? '-';
    const server = event.tool === undefined ? undefined : options.serverOf?.(event.tool);
    for (const [map, name] of [[tools, tool], [servers, server]] as const) {
      if (name === undefined) continue;
      let g = map.get(name);
      if (g === undefined) map.set(name, (g = { name, results: 0, spilled: 0, bytesKeptOut: 0 }));
      g.results++;
      if (spilled) g.spilled++;
      g.bytesKeptOut += keptOut;
    }
    if (event.session === undefined) continue;
    if (spilled && event.artifact !== undefined && !spillSession.has(event.artifact)) spillSession.set(event.artifact, event.session);
    const s = lane(event.session, event.t);
    s.results++;
    if (spilled) s.spilled++;
    s.bytesKeptOut += keptOut;
    s.points.push({ t: event.t, kind: event.kind, tool, bytes, tokensKeptOut: Math.round(keptOut / BYTES_PER_TOKEN) });
  }
  const recent = [...sessions.values()].sort((a, b) => b.to - a.to || (a.session < b.session ? -1 : 1));
  const kept = recent.slice(0, maxSessions).map((s) => {
    const points = [...s.points].sort((a, b) => a.t - b.t).slice(-maxPoints);
    return { session: s.session, from: s.from, to: s.to, results: s.results, spilled: s.spilled, reads: s.reads, tokensKeptOut: Math.round(s.bytesKeptOut / BYTES_PER_TOKEN), points };
  });
  return { sizes, tools: byKeptOut(tools.values()), servers: byKeptOut(servers.values()), sessions: kept, sessionsLeftOut: recent.length - kept.length };
}
