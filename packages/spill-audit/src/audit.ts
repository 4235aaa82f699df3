/** The audit: read transcripts, add the figures up, recommend a cap. */
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { wholeNumberProblem } from '@spillway/core';
import { HOSTS } from '@spillway/hosts';
import { CANDIDATE_CAPS, dropSpareStrings, type CallFigures } from './analyze.js';
import { auditFile, unreadable, type FileAudit, type FileJob } from './audit-file.js';
import { AUDIT_WORKER_URL, auditInPool } from './audit-pool.js';
import { findTranscripts } from './discover.js';
import { AuditError } from './errors.js';
import { MAX_SEARCH_CHECKS, runCheck, type PendingCheck, type SearchOutput } from './search-check.js';
import { MAX_NAMED_SKIPS, readTranscript, type ReadStats, type SkippedLine, type TranscriptFormat } from './transcript.js';

/** A harness's transcripts have no setup cap; 24 KiB lies between the hosts' caps. */
const GENERIC_CAP = 24576;

/** The cap an audit of `format` measures unless told another: the one `spillway setup` gives the host. */
export function setupCapFor(format: TranscriptFormat): number {
  return format === 'generic' ? GENERIC_CAP : HOSTS[format].cap;
}

/** Options of {@link runAudit}. */
export interface AuditOptions {
  /** The transcripts' format (the host that wrote them). */
  readonly format: TranscriptFormat;
  /** Files or directories to read; empty: the host's own directory. */
  readonly paths?: readonly string[];
  /** The cap to report on, bytes. Default: the host's setup cap ({@link setupCapFor}). */
  readonly cap?: number;
  /** The highest share of spilled outputs whose omitted part may be needed later, 0–1. Default 0.1. */
  readonly maxNeeded?: number;
  /** Environment, for `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `GEMINI_CLI_HOME` and `XDG_DATA_HOME`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The home directory. */
  readonly home: string;
  /**
   * The host's MCP server names, for a format whose tool names do not set the server apart:
   * OpenCode names a server's tool `<server>_<tool>` (each with characters other than
   * letters, digits, `_` and `-` made `_`), which only a known server name can split.
   */
  readonly mcpServers?: readonly string[] | undefined;
  /**
   * Also asks, of each output needed later with spillway's preview at the audited cap (the
   * first {@link MAX_SEARCH_CHECKS} needed), whether `spill_search`, given the words of the
   * first later call that needed it (see `searchQueryFor`), answers a snippet holding a
   * string that call needed, with and without those strings in the query: the report then
   * has {@link AuditReport.search} and each group's `foundBySearch`. The files holding such
   * outputs are read a second time, for the outputs' text. Without it, or when it answers
   * that the search cannot run, the report has neither and is as it would be without it.
   */
  readonly searchOutput?: SearchOutput | undefined;
  /**
   * Told how far the reading is, as it goes (for a progress bar): after the files are found,
   * then as each file's bytes are read.
   */
  readonly onProgress?: ((progress: AuditProgress) => void) | undefined;
  /**
   * Most threads to read files on at once (at most 16). Default the machine's cores
   * (`os.availableParallelism()`), at most 2: each thread has a heap of its own, and two keep
   * an audit of a gigabyte under 256 MiB. Never more than there are files. Above 1, an audit
   * of 32 MiB or more spreads its files over that many worker threads, and the report is the
   * same; 1 reads them on the calling thread, as does a smaller audit or one whose workers
   * cannot start.
   */
  readonly threads?: number | undefined;
}

/** How far an audit's reading is: what {@link AuditOptions.onProgress} is told. */
export interface AuditProgress {
  /** Transcript files to read. */
  readonly files: number;
  /** Of them, those read whole. */
  readonly filesDone: number;
  /** Their bytes, as found before reading (a file that grows meanwhile may pass it). */
  readonly bytes: number;
  /** Bytes read so far. */
  readonly bytesDone: number;
}

/** Sums over a group of tool calls, at the audited cap. */
export interface AuditTotals {
  /** Tool calls with an output. */
  calls: number;
  /** Estimated tokens of all outputs. */
  tokens: number;
  /** Outputs over the cap (spillway would spill them). */
  spilled: number;
  /** Estimated tokens spilling keeps out of context. */
  tokensKeptOut: number;
  /** Outputs the host itself would cut or refuse. */
  overHostLimit: number;
  /** Spilled outputs whose omitted part a later call used, with spillway's preview. */
  neededLater: number;
  /** The same with a plain head+tail preview. */
  neededLaterHeadTail: number;
  /**
   * Outputs the host itself cut, storing the whole in a file that the audit read, so that
   * what it showed the model is known (the note in the transcript); whatever the cap.
   */
  hostCut: number;
  /** Of `hostCut`, those whose part the host did not show a later call used. */
  neededLaterHost: number;
  /** Of `neededLater`, those `spill_search` given the later call's words recovers; only when the audit searched (see {@link AuditOptions.searchOutput}). */
  foundBySearch?: number;
}

/** A group's totals, named. */
export interface AuditGroup extends AuditTotals {
  /** The session id, tool name (`server/tool` for MCP tools) or server name. */
  readonly name: string;
}

/** What one candidate cap would do over all calls (or one tool's). */
export interface CapFigures {
  /** The cap, bytes. */
  readonly cap: number;
  /** Outputs over it. */
  spilled: number;
  /** Estimated tokens kept out. */
  tokensKeptOut: number;
  /** Of the spilled, those needed later (spillway's preview). */
  neededLater: number;
  /** `neededLater / spilled`, 0 when nothing spills. */
  neededRate: number;
  /**
   * How high the needed-later rate may really be, given how few outputs spilled: the upper
   * end of its one-sided 95 % Wilson interval (0 when nothing spills). With none of 3
   * spilled outputs needed it is 0.47; with none of 30, 0.08.
   */
  neededRateUpper: number;
}

/** The recommended cap for a host or a tool. */
export interface Recommendation {
  /** `host` for the whole host, the tool (`server/tool` for MCP tools), or every tool of an MCP server that has more than one tool spilling (`server/*`). */
  readonly scope: string;
  /** The cap that keeps the most tokens out with a needed-later rate at most `maxNeeded`; `null` when none does, or no output is over any cap. */
  readonly cap: number | null;
  /** Its figures. */
  readonly figures: CapFigures | null;
  /** Every candidate's figures, smallest cap first. */
  readonly candidates: CapFigures[];
  /**
   * The cap that keeps more out by the measured rate alone, when too few outputs spilled
   * there to be sure its rate stays under the limit; `null` when the recommendation is that cap.
   */
  readonly unproven: CapFigures | null;
}

/**
 * An output whose part spillway's preview omitted was used later: only its size and the string
 * (printed only with `--examples`). Outputs needed later only with a plain head+tail are not
 * examples: spillway's preview held their string.
 */
export interface NeededExample {
  /** The session. */
  readonly session: string;
  /** The tool (`server/tool` for MCP tools). */
  readonly tool: string;
  /** The output's size, bytes. */
  readonly bytes: number;
  /** The distinctive string a later call used. */
  readonly string: string;
}

/** Everything an audit found, as numbers and names; no transcript content but {@link NeededExample}s. */
export interface AuditReport {
  /** The format read. */
  readonly format: TranscriptFormat;
  /** The audited cap. */
  readonly cap: number;
  /** The needed-later rate the recommendation stays within. */
  readonly maxNeeded: number;
  /** Transcript files read. */
  readonly files: number;
  /** Lines read. */
  readonly lines: number;
  /** Lines skipped (not JSON, not the expected shape, or nested too deeply). */
  readonly skippedLines: number;
  /** The first skipped lines: file, line number, reason. */
  readonly skipped: readonly SkippedLine[];
  /** Tool calls whose output the transcript lacks. */
  readonly callsWithoutOutput: number;
  /**
   * Outputs the host stored in a file itself, leaving a note in the transcript: `read`, judged
   * from the file; `missing`, whose file is gone, too large or unreadable, judged by the note.
   */
  readonly storedOutputs: { readonly read: number; readonly missing: number };
  /** All calls. */
  readonly total: AuditTotals;
  /** Per session, most tokens kept out first. */
  readonly sessions: AuditGroup[];
  /** Per tool, most tokens kept out first. */
  readonly tools: AuditGroup[];
  /** Per MCP server, most tokens kept out first. */
  readonly servers: AuditGroup[];
  /** For the host, then for each tool with a spilled output. */
  readonly recommendations: Recommendation[];
  /** Every tool call's figures, in the order their outputs were read; their `example`s are transcript content. */
  readonly calls: readonly CallFigures[];
  /** Outputs needed later with spillway's preview at the audited cap (at most 20), in the order read. */
  readonly examples: NeededExample[];
  /** What searching the needed-later outputs found; only when the audit searched (see {@link AuditOptions.searchOutput}). */
  readonly search?: SearchFigures;
}

/** What asking `spill_search` for the needed-later outputs found, at the audited cap. */
export interface SearchFigures {
  /** Needed-later outputs searched (at most {@link MAX_SEARCH_CHECKS}). */
  readonly checked: number;
  /** Of those, the outputs where a snippet of the answer to the later call's own words held a needed string. */
  readonly found: number;
  /**
   * The same with the needed strings left out of the query: what an agent that saw only
   * the preview, and so could not yet write them, would have found.
   */
  readonly foundWithoutNeeded: number;
  /** Outputs a later call's strings made needed past the limit, not searched (a need by a line range alone is never searched). */
  readonly unchecked: number;
}

function emptyTotals(searched: boolean): AuditTotals {
  const t: AuditTotals = { calls: 0, tokens: 0, spilled: 0, tokensKeptOut: 0, overHostLimit: 0, neededLater: 0, neededLaterHeadTail: 0, hostCut: 0, neededLaterHost: 0 };
  if (searched) t.foundBySearch = 0;
  return t;
}

function toolName(c: CallFigures): string {
  return c.server === undefined ? c.tool : `${c.server}/${c.tool}`;
}

function add(t: AuditTotals, c: CallFigures, cap: number): void {
  t.calls++;
  t.tokens += c.tokens;
  if (c.overHostLimit === true) t.overHostLimit++;
  if (c.hostView === 'cut') {
    t.hostCut++;
    if (c.neededHost === true) t.neededLaterHost++;
  }
  const at = c.caps.find((o) => o.cap === cap);
  if (at === undefined) return;
  t.spilled++;
  t.tokensKeptOut += at.tokensKeptOut;
  if (at.neededSpillway) t.neededLater++;
  if (at.neededHeadTail) t.neededLaterHeadTail++;
  if (at.foundBySearch === true && t.foundBySearch !== undefined) t.foundBySearch++;
}

class Groups {
  private readonly map = new Map<string, AuditTotals>();
  constructor(private readonly searched: boolean) {}
  add(name: string, c: CallFigures, cap: number): void {
    let t = this.map.get(name);
    if (t === undefined) this.map.set(name, (t = emptyTotals(this.searched)));
    add(t, c, cap);
  }
  list(): AuditGroup[] {
    return [...this.map].map(([name, t]) => ({ name, ...t })).sort((a, b) => b.tokensKeptOut - a.tokensKeptOut || (a.name < b.name ? -1 : 1));
  }
}

/** z of a one-sided 95 % interval. */
const Z = 1.6449;

/** The upper end of the one-sided 95 % Wilson score interval of `k` successes in `n` trials. */
export function wilsonUpper(k: number, n: number): number {
  if (n === 0) return 0;
  const p = k / n;
  const z2 = Z * Z;
  // Never below the rate itself: at k = n the formula is 1, but rounds to just under it
  // (6 of 6: 0.9999999999999999), which let a cap whose every output was needed qualify.
  return Math.min(1, Math.max(p, (p + z2 / (2 * n) + Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n)));
}

/**
 * Picks, among `caps`, the one that keeps the most tokens out while the share of spilled
 * outputs needed later stays at most `maxNeeded`, with 95 % confidence: a cap qualifies when
 * the upper end of its rate's interval ({@link CapFigures.neededRateUpper}) is within the
 * limit, so a few spilled outputs that happened not to be needed do not make a small cap
 * look safe. Ties go to the larger cap (less spilled for the same gain). A cap that no output
 * is over is never picked: it keeps nothing out. The cap the measured rate alone would pick,
 * when it differs, is reported as `unproven`.
 */
export function recommendCap(scope: string, calls: readonly CallFigures[], caps: readonly number[], maxNeeded: number): Recommendation {
  const candidates: CapFigures[] = caps.map((cap) => {
    const f = { cap, spilled: 0, tokensKeptOut: 0, neededLater: 0, neededRate: 0 };
    for (const c of calls) {
      const at = c.caps.find((o) => o.cap === cap);
      if (at === undefined) continue;
      f.spilled++;
      f.tokensKeptOut += at.tokensKeptOut;
      if (at.neededSpillway) f.neededLater++;
    }
    f.neededRate = f.spilled === 0 ? 0 : f.neededLater / f.spilled;
    return { ...f, neededRateUpper: wilsonUpper(f.neededLater, f.spilled) };
  });
  const pick = (rate: (f: CapFigures) => number): CapFigures | null => {
    let best: CapFigures | null = null;
    for (const f of candidates) {
      // A cap nothing is over keeps nothing out: it is no advice to spill at it.
      if (f.spilled === 0 || rate(f) > maxNeeded) continue;
      if (best === null || f.tokensKeptOut > best.tokensKeptOut || (f.tokensKeptOut === best.tokensKeptOut && f.cap > best.cap)) best = f;
    }
    return best;
  };
  const best = pick((f) => f.neededRateUpper);
  const measured = pick((f) => f.neededRate);
  return { scope, cap: best?.cap ?? null, figures: best, candidates, unproven: measured !== null && measured.cap !== best?.cap ? measured : null };
}

/**
 * Reads the transcripts of one host and measures, per tool call, what spilling at the cap
 * (and at each of {@link CANDIDATE_CAPS}) would keep out of context and whether the part
 * left out was needed later. Never writes anything.
 *
 * @throws {@link AuditError} `AUDIT_INVALID_OPTION` for a bad cap or rate,
 * `AUDIT_NOT_FOUND` / `AUDIT_UNREADABLE` when the transcripts cannot be found or read.
 */
export async function runAudit(options: AuditOptions): Promise<AuditReport> {
  return auditWith(options, { url: AUDIT_WORKER_URL, minBytes: POOL_MIN_BYTES });
}

/**
 * Files of fewer bytes in all are read on the calling thread: a new worker compiles the
 * audit's code afresh, which costs about what auditing 4 to 5 MiB on a warm thread does, so
 * on two threads the pool gains only from some 32 MiB (docs/benchmarks.md, *`spillway
 * audit` on two threads*).
 */
const POOL_MIN_BYTES = 32 * 1024 * 1024;
/**
 * Threads by default, however many cores there are: each has a heap of its own, and two
 * kept an audit of a gigabyte at 206 to 240 MiB (see {@link AuditOptions.threads}).
 */
const DEFAULT_MAX_THREADS = 2;
/** Most threads whatever is asked: each is a heap of its own. */
const MAX_THREADS = 16;

/** Where a pool's workers are loaded from, from how many bytes it is used, and who is told how many workers started. */
export interface PoolSettings {
  /** The worker entry. */
  readonly url: URL;
  /** Files of fewer bytes in all are read on the calling thread. */
  readonly minBytes: number;
  /** Told how many workers started, when a pool did. */
  readonly onStart?: (workers: number) => void;
  /** Told of each file's job as it is handed out, on any thread. */
  readonly onJob?: (job: FileJob) => void;
  /** Told of each file's audit as it is added to the report, files in order. */
  readonly onTake?: (audit: FileAudit) => void;
}

/** {@link runAudit} with the pool set as `pool` says. */
export async function auditWith(options: AuditOptions, pool: PoolSettings): Promise<AuditReport> {
  const { format } = options;
  const cap = options.cap ?? setupCapFor(format);
  const maxNeeded = options.maxNeeded ?? 0.1;
  const capProblem = wholeNumberProblem(cap, { min: 1, unit: 'bytes' });
  if (capProblem !== undefined) throw new AuditError('AUDIT_INVALID_OPTION', `The cap ${capProblem}.`);
  if (!(maxNeeded >= 0 && maxNeeded <= 1)) throw new AuditError('AUDIT_INVALID_OPTION', `The needed-later rate must be between 0 and 1 (e.g. 0.1 for 10 %); got ${String(maxNeeded)}.`);
  const threadsProblem = options.threads === undefined ? undefined : wholeNumberProblem(options.threads, { min: 1, unit: 'threads' });
  if (threadsProblem !== undefined) throw new AuditError('AUDIT_INVALID_OPTION', `The thread count ${threadsProblem}.`);
  const caps = [...new Set([...CANDIDATE_CAPS, cap])].sort((a, b) => a - b);
  const files = await findTranscripts(format, options.paths ?? [], { env: options.env, home: options.home });
  const progress = await progressOf(files, options.onProgress);
  const stats: ReadStats = { lines: 0, skipped: 0, skippedLines: [] };
  const calls: CallFigures[] = [];
  let callsWithoutOutput = 0;
  const storedOutputs = { read: 0, missing: 0 };
  const { searchOutput } = options;
  const job: FileJob = { format, caps, cap, mcpServers: options.mcpServers, search: searchOutput !== undefined };
  // The outputs to search, by file; only what a search needs is kept, never an output's text.
  const checks = new Map<string, PendingCheck[]>();
  let checked = 0;
  /** Outputs a string made needed after the limit of checks: not searched. (A need by a line range alone has no string to search for.) */
  let unchecked = 0;
  /** Adds one file's figures, files taken in order; its checks count against the limit in that order. */
  const merge = (file: string, audit: FileAudit): void => {
    stats.lines += audit.stats.lines;
    stats.skipped += audit.stats.skipped;
    for (const s of audit.stats.skippedLines) if (stats.skippedLines.length < MAX_NAMED_SKIPS) stats.skippedLines.push(s);
    for (const c of audit.calls) calls.push(c);
    callsWithoutOutput += audit.callsWithoutOutput;
    storedOutputs.read += audit.storedOutputs.read;
    storedOutputs.missing += audit.storedOutputs.missing;
    // An outcome is needed in one file only, and each file names each once.
    unchecked += audit.moreNeeded;
    for (const check of audit.checks) {
      if (checked >= MAX_SEARCH_CHECKS) {
        unchecked++;
        continue;
      }
      check.outcome.foundBySearch = false;
      checked++;
      const list = checks.get(file) ?? [];
      list.push(check);
      checks.set(file, list);
    }
  };
  const threads = Math.min(options.threads ?? Math.min(availableParallelism(), DEFAULT_MAX_THREADS), MAX_THREADS, files.length);
  // Each file finds no more outputs to search than the files before it left room for.
  const jobFor = (): FileJob => {
    const next = { ...job, maxChecks: Math.max(0, MAX_SEARCH_CHECKS - checked) };
    pool.onJob?.(next);
    return next;
  };
  const take = (file: string, audit: FileAudit): void => {
    pool.onTake?.(audit);
    merge(file, audit);
  };
  const pooled = threads > 1 && (await bytesOf(files)) >= pool.minBytes && (await auditInPool(files, threads, progress, { take: (i, audit) => { take(files[i] ?? '', audit); }, jobFor, onStart: pool.onStart }, pool.url));
  if (!pooled) {
    try {
      for (const file of files) {
        take(file, await auditFile(file, jobFor(), progress?.read));
        progress?.fileDone();
      }
    } finally {
      // The thread may live on long after the audit: it keeps no session's tables.
      dropSpareStrings();
    }
  }
  const foundBlind = searchOutput === undefined ? undefined : await searchChecks(checks, searchOutput, format, options.mcpServers);
  const searched = foundBlind !== undefined;
  const total = emptyTotals(searched);
  const sessions = new Groups(searched);
  const tools = new Groups(searched);
  const servers = new Groups(searched);
  const examples: NeededExample[] = [];
  for (const c of calls) {
    add(total, c, cap);
    sessions.add(c.session, c, cap);
    tools.add(toolName(c), c, cap);
    if (c.server !== undefined) servers.add(c.server, c, cap);
    const at = c.caps.find((o) => o.cap === cap);
    // Only what spillway's preview left out: an output needed only with a plain head+tail had
    // its needed string in spillway's preview, so it is no example of what spilling would hide.
    // (Its string is still the `example` of its cap in `calls`.)
    if (at?.neededSpillway === true && examples.length < 20 && at.example !== undefined) examples.push({ session: c.session, tool: toolName(c), bytes: c.bytes, string: at.example });
  }
  const byTool = new Map<string, CallFigures[]>();
  for (const c of calls) {
    if (c.caps.length === 0) continue;
    const list = byTool.get(toolName(c)) ?? [];
    list.push(c);
    byTool.set(toolName(c), list);
  }
  const byServer = new Map<string, CallFigures[]>();
  for (const c of calls) {
    if (c.caps.length === 0 || c.server === undefined) continue;
    const name = `${c.server}/*`;
    const list = byServer.get(name) ?? [];
    list.push(c);
    byServer.set(name, list);
  }
  // A server whose spilled outputs all come from one tool is that tool's recommendation again.
  for (const [name, list] of byServer) if (new Set(list.map((c) => c.tool)).size < 2) byServer.delete(name);
  const scoped = (groups: Map<string, CallFigures[]>): Recommendation[] => [...groups].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, list]) => recommendCap(name, list, caps, maxNeeded));
  const recommendations = [recommendCap('host', calls, caps, maxNeeded), ...scoped(byTool), ...scoped(byServer)];
  return {
    format,
    cap,
    maxNeeded,
    files: files.length,
    lines: stats.lines,
    skippedLines: stats.skipped,
    skipped: stats.skippedLines,
    callsWithoutOutput,
    storedOutputs,
    total,
    sessions: sessions.list(),
    tools: tools.list(),
    servers: servers.list(),
    recommendations,
    calls,
    examples,
    ...(searched ? { search: { checked, found: total.foundBySearch ?? 0, foundWithoutNeeded: foundBlind, unchecked } } : {}),
  };
}

/**
 * Reads each file with outputs to check a second time, in the same order, and searches
 * each such output as its check says, one at a time, so only one output's text is held.
 * Sets each check's outcome; answers how many the query less the needed strings found, or
 * `undefined`, with every outcome as it was, when the search cannot run.
 */
async function searchChecks(checks: ReadonlyMap<string, readonly PendingCheck[]>, search: SearchOutput, format: TranscriptFormat, mcpServers: readonly string[] | undefined): Promise<number | undefined> {
  let blind = 0;
  for (const [file, list] of checks) {
    const byOrdinal = new Map(list.map((c) => [c.ordinal, c]));
    let ordinal = 0;
    try {
      for await (const event of readTranscript(file, format, { lines: 0, skipped: 0, skippedLines: [] }, mcpServers)) {
        if (event.kind !== 'result') continue;
        const check = byOrdinal.get(ordinal++);
        if (check === undefined) continue;
        const found = await runCheck(search, event.output, check);
        if (found === undefined) {
          for (const c of [...checks.values()].flat()) delete c.outcome.foundBySearch;
          return undefined;
        }
        check.outcome.foundBySearch = found.found;
        if (found.blind) blind++;
      }
    } catch (cause) {
      throw unreadable(cause, file, format);
    }
  }
  return blind;
}

/** Reports {@link AuditProgress} to `onProgress`, from the files' sizes found first; `undefined` without it. */
async function progressOf(files: readonly string[], onProgress: AuditOptions['onProgress']): Promise<{ read: (bytes: number) => void; fileDone: () => void } | undefined> {
  if (onProgress === undefined) return undefined;
  const bytes = await bytesOf(files);
  let filesDone = 0;
  let bytesDone = 0;
  const tell = (): void => { onProgress({ files: files.length, filesDone, bytes, bytesDone }); };
  tell();
  return {
    read: (n) => {
      bytesDone += n;
      tell();
    },
    fileDone: () => {
      filesDone++;
      tell();
    },
  };
}

/** The files' bytes in all; a file that cannot be stat'ed counts as empty here (reading it reports the real fault). */
async function bytesOf(files: readonly string[]): Promise<number> {
  const sizes = await Promise.all(files.map((f) => stat(f).then((s) => s.size, () => 0)));
  return sizes.reduce((a, b) => a + b, 0);
}
