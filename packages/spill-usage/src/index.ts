/**
 * Content-free usage events for spillway: each surface records what it passed, spilled or
 * kept and which artifacts were read back; `summarizeUsage` answers `spillway stats`, and
 * `usageBreakdown` groups the events for its charts.
 *
 * @packageDocumentation
 */
export {
  createUsageLog,
  usageDigest,
  usageDir,
  usageDisabled,
  usageListener,
  toStored,
  DEFAULT_USAGE_FILE_BYTES,
  USAGE_FILE,
  USAGE_OLD_FILE,
  type PolicyEventLike,
  type StoredUsageEvent,
  type UsageEvent,
  type UsageKind,
  type UsageLog,
  type UsageLogOptions,
  type UsageSource,
} from './log.js';
export {
  usageBreakdown,
  USAGE_SIZE_BOUNDS,
  type UsageBreakdown,
  type UsageBreakdownOptions,
  type UsageGroup,
  type UsagePoint,
  type UsageSessionTimeline,
  type UsageSizeBucket,
} from './breakdown.js';
export { summarizeUsage, BYTES_PER_TOKEN, type ReadBackStats, type UsageRow, type UsageStats } from './stats.js';
