/**
 * Retention for spilled artifacts: age and size limits applied oldest first over any
 * backend's `SpillCatalog`, with reference-aware keeps and a grace period, streaming the
 * catalog so memory stays bounded however many artifacts there are.
 *
 * @packageDocumentation
 */
export { createRetention } from './retention.js';
export type { Retention } from './retention.js';
export {
  CLOCK_SLACK_MS,
  DEFAULT_DELETE_CONCURRENCY,
  DEFAULT_GRACE_MS,
  DEFAULT_MAX_REPORTED_ENTRIES,
  DEFAULT_TEMP_GRACE_MS,
} from './config.js';
export type { KeepPredicate, RetentionOptions, SweepOptions, SweepProgress } from './config.js';
export type {
  DeleteReason,
  FailurePhase,
  KeepReason,
  LimitStatus,
  ReportedEntry,
  RetentionFailure,
  RetentionReport,
  SessionLimitStatus,
  Tally,
} from './report.js';
export { DEFAULT_KNOWN_HINTS, keepReferenced, referencedLocators } from './references.js';
export type { ReferenceOptions } from './references.js';
export { expiredArtifactMessage, explainMissingArtifacts, missingArtifactMessage } from './missing.js';
export { formatDuration, parseByteSize, parseDuration } from './units.js';
