/**
 * `@spillway/audit`: what spilling would do for an agent's sessions, measured on the
 * transcripts its host already keeps on disk. Reads only; never writes the host's files.
 *
 * @packageDocumentation
 */
export { runAudit, recommendCap, setupCapFor } from './audit.js';
export type { AuditOptions, AuditProgress, AuditReport, AuditTotals, AuditGroup, CapFigures, Recommendation, NeededExample, SearchFigures } from './audit.js';
export { MAX_SEARCH_CHECKS, MAX_SEARCH_QUERY_LENGTH, searchQueryFor } from './search-check.js';
export type { SearchOutput } from './search-check.js';
export { CANDIDATE_CAPS, MAX_CAPS, SessionAnalyzer, overHostLimit, MAX_STRINGS_PER_OUTPUT, MAX_SESSION_STRINGS } from './analyze.js';
export type { CallFigures, CapOutcome, SessionAnalyzerOptions } from './analyze.js';
export { readTranscript, splitMcpName, MAX_NAMED_SKIPS } from './transcript.js';
export type { TranscriptEvent, TranscriptFormat, ReadStats, SkippedLine } from './transcript.js';
export { findTranscripts, transcriptRoot } from './discover.js';
export type { DiscoverOptions } from './discover.js';
export { distinctiveStrings, estimateTokens, utf8Bytes, MIN_DISTINCTIVE_LENGTH } from './estimate.js';
export { AuditError, isAuditError } from './errors.js';
export { renderAuditHtml } from './html.js';
export { escapeHtml, shortCount, htmlPage, figure, barChart, columnChart, timelineChart } from './page.js';
export type { ChartBar, TimelineLane } from './page.js';
export type { AuditErrorCode } from './errors.js';
