/**
 * When to spill: the `maxInlineBytes` gate, the exclusions, the bounded preview (head, salient excerpts, tail)
 * and the model-facing notice. Framework-agnostic: map your harness's tool call and result
 * onto {@link ToolExecution} and {@link ToolResult}.
 *
 * @packageDocumentation
 */
export { createSpillPolicy } from './policy.js';
export { DEFAULT_SAVE_TIMEOUT_MS, DEFAULT_SKIP_TOOLS, SPILL_POLICY_OPTION_NAMES } from './options.js';
export { LINE_WINDOW_BYTES, previewMarker } from './preview.js';
export { isNumberedView, isOpenCodeFileView, lineNumberOf, type LineNumberOptions } from './numbered-view.js';
export { lostNotice } from './compose.js';
export { composeSpillPreview, createSpillPreviewScanner, createSpillPreviewScanners } from './compose.js';
export type { SpillPreview, SpillPreviewInput, SpillPreviewScan, SpillPreviewScanner, SpillPreviewMultiScanner } from './compose.js';
export type {
  ContentBlock,
  PostToolDecision,
  SpillEvent,
  SpillKeptEvent,
  SpillKeptReason,
  SpillPolicy,
  SpillPolicyOptions,
  SpillPreviewStyle,
  SpillSpilledEvent,
  SpillStream,
  SpillTruncatedEvent,
  TextContentBlock,
  ToolExecution,
  ToolResult,
} from './types.js';
