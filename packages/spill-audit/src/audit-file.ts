/** One transcript file's audit, apart from the others: what the audit does for each file, on its own thread or a pool's. */
import { SessionAnalyzer, type CallFigures, type CapOutcome, type SessionAnalyzerOptions } from './analyze.js';
import { AuditError, TranscriptFormatError } from './errors.js';
import { addNeeded, MAX_SEARCH_CHECKS, searchQueryFor, type PendingCheck } from './search-check.js';
import { readTranscript, type ReadStats, type TranscriptFormat } from './transcript.js';

/** What one file's audit found: its calls' figures, what its reading counted, and its outputs to search. */
export interface FileAudit {
  /** Its calls' figures, session by session in the order the sessions began. */
  readonly calls: CallFigures[];
  /** Calls whose output the file lacks. */
  readonly callsWithoutOutput: number;
  /** Outputs the host stored in a file of their own. */
  readonly storedOutputs: { read: number; missing: number };
  /** Its lines, skipped lines and the first of them named. */
  readonly stats: ReadStats;
  /**
   * With `search`, the first {@link FileJob.maxChecks} outputs a later call made needed at
   * the audited cap, in the order those calls came, each once; each check's `outcome` is
   * the one in `calls` (a message between threads keeps that identity). The caller keeps
   * the first of all files' checks up to the same limit.
   */
  readonly checks: PendingCheck[];
  /** How many more outputs were made needed after those: never searched. */
  readonly moreNeeded: number;
}

/** What a file is audited for. */
export interface FileJob {
  readonly format: TranscriptFormat;
  /** The caps measured, ascending. */
  readonly caps: readonly number[];
  /** The audited cap, whose needed-later outputs are searched. */
  readonly cap: number;
  readonly mcpServers: readonly string[] | undefined;
  /** Whether to find the outputs to search (see {@link FileAudit.checks}). */
  readonly search: boolean;
  /** The most outputs to search this file may find (default {@link MAX_SEARCH_CHECKS}): the room the files before it left. */
  readonly maxChecks?: number;
}

/**
 * Audits `file` alone: one analyzer per session of the file (sessions never span files),
 * fresh counts, so its figures do not depend on the other files or on the thread.
 *
 * @throws {@link AuditError} `AUDIT_UNREADABLE` when the file cannot be read
 */
export async function auditFile(file: string, job: FileJob, onBytes?: (bytes: number) => void): Promise<FileAudit> {
  const { format, caps, cap, mcpServers, search } = job;
  const maxChecks = Math.min(job.maxChecks ?? MAX_SEARCH_CHECKS, MAX_SEARCH_CHECKS);
  const stats: ReadStats = { lines: 0, skipped: 0, skippedLines: [] };
  const analyzers = new Map<string, { analyzer: SessionAnalyzer; ordinals: number[] }>();
  const storedOutputs = { read: 0, missing: 0 };
  const checks: PendingCheck[] = [];
  let moreNeeded = 0;
  const checkedOutcomes = new Set<CapOutcome>();
  // While a call is pushed: the outputs it makes needed at the audited cap, with the strings it used.
  const needing = new Map<number, { outcome: CapOutcome; strings: string[] }>();
  const analyzerOptions: SessionAnalyzerOptions = !search
    ? {}
    : {
        onNeeded: (output, outcome, s) => {
          if (outcome.cap !== cap) return;
          const n = needing.get(output);
          if (n === undefined) needing.set(output, { outcome, strings: [s] });
          else if (!n.strings.includes(s)) n.strings.push(s);
        },
      };
  let ordinal = 0;
  try {
    for await (const event of readTranscript(file, format, stats, mcpServers, onBytes)) {
      let a = analyzers.get(event.session);
      if (a === undefined) analyzers.set(event.session, (a = { analyzer: new SessionAnalyzer(format, caps, analyzerOptions), ordinals: [] }));
      a.analyzer.push(event);
      if (event.kind === 'result') {
        if (event.stored !== undefined) storedOutputs[event.stored.read ? 'read' : 'missing']++;
        if (search) a.ordinals.push(ordinal);
        ordinal++;
      }
      if (needing.size > 0 && event.kind === 'call') {
        // The first call to need an output is the one whose words are searched with.
        for (const [output, { outcome, strings }] of needing) {
          if (checkedOutcomes.has(outcome)) continue;
          checkedOutcomes.add(outcome);
          // No more than any audit searches: one file's checks alone may reach the limit.
          if (checks.length >= maxChecks) {
            moreNeeded++;
            continue;
          }
          const check: PendingCheck = { ordinal: a.ordinals[output] ?? -1, query: searchQueryFor(event.input, []), blindQuery: searchQueryFor(event.input, strings), needed: [], outcome };
          for (const s of strings) addNeeded(check, s);
          checks.push(check);
        }
        needing.clear();
      }
    }
  } catch (cause) {
    throw unreadable(cause, file, format);
  }
  const calls: CallFigures[] = [];
  let callsWithoutOutput = 0;
  for (const { analyzer } of analyzers.values()) {
    for (const c of analyzer.results) calls.push(c);
    callsWithoutOutput += analyzer.unanswered;
    analyzer.release();
  }
  return { calls, callsWithoutOutput, storedOutputs, stats, checks, moreNeeded };
}

/**
 * The error to throw for a failure while reading `file`. Only a failure of the file itself
 * is the transcript's: anything else is a fault of the audit, answered as what it is rather
 * than as a permission problem.
 */
export function unreadable(cause: unknown, file: string, format: TranscriptFormat): unknown {
  if (cause instanceof AuditError || !(isFileError(cause) || cause instanceof TranscriptFormatError)) return cause;
  const code = isFileError(cause) ? cause.code : '';
  const advice = code === 'EACCES' || code === 'EPERM' ? 'Check its permissions, or leave it out.' : `Check that it is a ${format} transcript, or leave it out.`;
  return new AuditError('AUDIT_UNREADABLE', `Cannot read ${file}: ${cause.message}. ${advice}`, { cause });
}

/** An error of the file system (`EACCES`, `EISDIR`, `EIO`…), as Node raises them. */
function isFileError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && /^E[A-Z]+$/.test((error as NodeJS.ErrnoException).code ?? '');
}
