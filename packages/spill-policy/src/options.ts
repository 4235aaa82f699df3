import { assertSpillBackendVersion, checkOptionNames, wholeNumberProblem, type SpillBackend } from '@spillway/core';
import { RETRIEVAL_HINTS } from '@spillway/core/notice';
import { withRetrievalHint } from './notice-reader.js';
import type { SpillEvent, SpillPolicyOptions, SpillPreviewStyle } from './types.js';

/** Tools whose results are never spilled unless `skipTools` says otherwise. */
export const DEFAULT_SKIP_TOOLS: readonly string[] = Object.freeze(['read']);

/** How long a save may take by default, in milliseconds. */
export const DEFAULT_SAVE_TIMEOUT_MS = 10_000;

/** The largest delay `setTimeout` honours; longer ones fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Every option {@link SpillPolicyOptions} has; any other key is a mistake. An adapter that
 * takes the policy's options beside its own checks its options' names against this list
 * plus its own (`checkOptionNames` of `@spillway/core`), so that its error names the
 * function the user called and every option that function accepts.
 */
export const SPILL_POLICY_OPTION_NAMES: readonly (keyof SpillPolicyOptions)[] = Object.freeze([
  'backend',
  'maxInlineBytes',
  'skipTools',
  'previewBytes',
  'saveTimeoutMs',
  'onEvent',
  'noticeReader',
  'preview',
] satisfies (keyof SpillPolicyOptions)[]);

/** Options after validation. */
export interface ResolvedOptions {
  /** Where full results go, if anywhere. */
  readonly backend: SpillBackend | undefined;
  /** `maxInlineBytes`; `undefined` when the policy is disabled. */
  readonly cap: number | undefined;
  /** Tools never spilled. */
  readonly skipTools: ReadonlySet<string>;
  /** `previewBytes`, or infinity. */
  readonly previewLimit: number;
  /** What the preview is made of. */
  readonly preview: SpillPreviewStyle;
  /** How long a save may take. */
  readonly saveTimeoutMs: number;
  /** The event listener, if any. */
  readonly onEvent: ((event: SpillEvent) => void) | undefined;
}

/**
 * Validates the configuration. A mistake here is a deployment bug, so it throws a
 * `TypeError` at construction rather than failing some later tool call.
 */
export function resolveOptions(options: SpillPolicyOptions): ResolvedOptions {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new TypeError('createSpillPolicy needs an options object, such as { backend, maxInlineBytes: 50_000 }.');
  }
  // A misspelt key (`maxInlineByte`) would otherwise leave the policy silently disabled.
  checkOptionNames('createSpillPolicy', options, SPILL_POLICY_OPTION_NAMES);
  const { backend, maxInlineBytes, skipTools, previewBytes, preview = 'salient', saveTimeoutMs, onEvent, noticeReader } = options;
  if ((preview as unknown) !== 'salient' && (preview as unknown) !== 'head-tail') {
    throw new TypeError(`preview must be 'salient' (the default) or 'head-tail'; got ${describe(preview)}.`);
  }
  if (backend !== undefined) {
    const b = backend as Partial<Record<keyof SpillBackend, unknown>> | null;
    if (typeof b !== 'object' || b === null || typeof b.saveText !== 'function' || typeof b.saveTextStream !== 'function') {
      throw new TypeError('backend must be a SpillBackend (an object with saveText and saveTextStream methods), or omitted.');
    }
    // A backend of another seam version may mean something else by the same methods.
    assertSpillBackendVersion(backend, 'createSpillPolicy');
  }
  const cap = maxInlineBytes === undefined ? undefined : nonNegativeInteger('maxInlineBytes', maxInlineBytes);
  const previewLimit = previewBytes === undefined ? Number.POSITIVE_INFINITY : nonNegativeInteger('previewBytes', previewBytes);
  let timeout = DEFAULT_SAVE_TIMEOUT_MS;
  if (saveTimeoutMs !== undefined) {
    timeout = nonNegativeInteger('saveTimeoutMs', saveTimeoutMs);
    if (timeout < 1 || timeout > MAX_TIMER_MS) {
      throw new TypeError(`saveTimeoutMs must be from 1 to ${String(MAX_TIMER_MS)} milliseconds; got ${String(timeout)}.`);
    }
  }
  let skip: ReadonlySet<string> = new Set(DEFAULT_SKIP_TOOLS);
  if (skipTools !== undefined) {
    if (!Array.isArray(skipTools) || !skipTools.every((t) => typeof t === 'string')) {
      throw new TypeError("skipTools must be an array of tool names, such as ['read', 'spill_read', 'spill_grep'].");
    }
    skip = new Set(skipTools);
  }
  if (onEvent !== undefined && typeof onEvent !== 'function') {
    throw new TypeError('onEvent must be a function, or omitted.');
  }
  if (noticeReader !== undefined && !Object.hasOwn(RETRIEVAL_HINTS, noticeReader)) {
    throw new TypeError(`noticeReader must be one of ${Object.keys(RETRIEVAL_HINTS).join(', ')}, or omitted; got ${describe(noticeReader)}.`);
  }
  const hinted = backend === undefined || noticeReader === undefined ? backend : withRetrievalHint(backend, RETRIEVAL_HINTS[noticeReader]);
  return { backend: hinted, cap, skipTools: skip, previewLimit, preview, saveTimeoutMs: timeout, onEvent };
}

function nonNegativeInteger(name: string, value: unknown): number {
  const problem = wholeNumberProblem(value, { min: 0, unit: name === 'saveTimeoutMs' ? 'milliseconds' : 'bytes' });
  if (problem !== undefined) throw new TypeError(`${name} ${problem}.`);
  return value as number;
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  return value === null ? 'null' : typeof value;
}
