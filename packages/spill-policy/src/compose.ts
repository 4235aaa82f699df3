import { formatSpillNotice } from './notice.js';
import { composeReplacement } from './preview.js';

/** Input for {@link composeSpillPreview}. */
export interface SpillPreviewInput {
  /**
   * A prefix of the stored content as text: the whole content, or at least its first
   * `maxInlineBytes + 2` UTF-16 code units.
   */
  readonly head: string;
  /** A suffix of the stored content as text: the whole content, or at least its last `maxInlineBytes + 2` code units. */
  readonly tail: string;
  /** The stored content's size in bytes. It must be larger than `maxInlineBytes`. */
  readonly totalBytes: number;
  /** The cap: the result is never larger than this many UTF-8 bytes. */
  readonly maxInlineBytes: number;
  /** The most preview bytes (head and tail together), as the policy's `previewBytes`. Default: no limit but the cap. */
  readonly previewBytes?: number;
  /** Where the content is stored. */
  readonly locator: string;
  /** How to get it back (the backend's `retrievalHint`). */
  readonly retrievalHint: string;
  /**
   * Text placed on its own line just before the notice, such as a note that the content is
   * not UTF-8. Its bytes count against the cap like the notice's.
   */
  readonly preface?: string;
}

/** The replacement {@link composeSpillPreview} composed. */
export interface SpillPreview {
  /** What the model sees: head, marker, tail, a blank line, the preface if any, the notice. */
  readonly text: string;
  /** Bytes of the content shown (head + tail), counted in the UTF-8 of the given text. */
  readonly shownBytes: number;
  /** The N in the notice: `totalBytes - shownBytes`. */
  readonly omittedBytes: number;
}

/**
 * Composes the model-facing replacement for content that is already stored, by the same
 * rules the policy applies: the notice's cost is reserved first, head and tail share the
 * rest, a cut never splits a code point and prefers a nearby line break, and the result
 * is never larger than `maxInlineBytes`. Resolves `undefined` when not even the notice
 * (with the preface) fits; the caller then keeps the original, as the policy does.
 *
 * For callers that store content themselves (the `spillway run` command writing a
 * command's output straight into a file) and still want the policy's exact preview and
 * notice. The text passed in may have been decoded lossily from bytes; the counts are
 * then those of that text, while `totalBytes` is the stored size.
 *
 * @throws TypeError when `maxInlineBytes`, `previewBytes` or `totalBytes` is not a
 * non-negative integer, or the locator is empty.
 */
export function composeSpillPreview(input: SpillPreviewInput): SpillPreview | undefined {
  const { head, tail, totalBytes, maxInlineBytes, previewBytes, locator, retrievalHint, preface } = input;
  for (const [name, value] of [['totalBytes', totalBytes], ['maxInlineBytes', maxInlineBytes], ['previewBytes', previewBytes ?? 0]] as const) {
    if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative integer; got ${String(value)}.`);
  }
  const before = preface === undefined || preface === '' ? '' : `${preface}\n`;
  const notice = (omittedBytes: number): string => before + formatSpillNotice({ omittedBytes, locator, retrievalHint });
  notice(0); // validates the locator and hint before any work
  return composeReplacement({ head, tail, totalBytes }, maxInlineBytes, previewBytes ?? Number.POSITIVE_INFINITY, notice);
}
