import { wholeNumberProblem } from '@spillway/core';
import { formatSpillNotice } from './notice.js';
import { composeOutline, type OutlineSource } from './outline.js';
import type { Replacement } from './preview.js';
import { PreviewScanner, type PreviewScan } from './scan.js';

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
  /**
   * What {@link createSpillPreviewScanner} found in the whole content, for the preview with
   * excerpts; without it the preview is the plain head and tail.
   */
  readonly scan?: SpillPreviewScan;
}

/** What one pass over a text found for its preview: see {@link createSpillPreviewScanner}. */
export type SpillPreviewScan = PreviewScan;

/** Feeds a text, in chunks of any size, to the scan for salient lines. */
export interface SpillPreviewScanner {
  /** Scans the next piece of the text. */
  push(chunk: string): void;
  /** Ends the text and answers what was found, for {@link composeSpillPreview}'s `scan`. */
  finish(): SpillPreviewScan;
}

/**
 * The scan behind the preview's excerpts, for callers that store content themselves and
 * pass the text through it once (any chunking gives the same answer; memory is bounded by
 * the cap).
 *
 * @throws TypeError when `maxInlineBytes` is not a non-negative integer.
 */
export function createSpillPreviewScanner(maxInlineBytes: number): SpillPreviewScanner {
  const problem = wholeNumberProblem(maxInlineBytes, { min: 0, unit: 'bytes' });
  if (problem !== undefined) throw new TypeError(`maxInlineBytes ${problem}.`);
  const scanner = new PreviewScanner(maxInlineBytes);
  return { push: (chunk) => { scanner.push(chunk); }, finish: () => scanner.finish() };
}

/** Feeds a text, in chunks of any size, to one scan for several caps. */
export interface SpillPreviewMultiScanner {
  /** Scans the next piece of the text. */
  push(chunk: string): void;
  /** Ends the text and answers, for each cap in the order given, what {@link createSpillPreviewScanner} at that cap would. */
  finish(): SpillPreviewScan[];
}

/**
 * {@link createSpillPreviewScanner} for several caps at once, for callers that compare
 * previews at different caps (an audit of past outputs): each line is classified once,
 * and each cap keeps its own candidates and list sample, so the answers are exactly those
 * of one scanner per cap at about the cost of one.
 *
 * @throws TypeError when a cap is not a non-negative integer, or there is none.
 */
export function createSpillPreviewScanners(maxInlineBytes: readonly number[]): SpillPreviewMultiScanner {
  if (maxInlineBytes.length === 0) throw new TypeError('Pass at least one cap.');
  for (const cap of maxInlineBytes) {
    const problem = wholeNumberProblem(cap, { min: 0, unit: 'bytes' });
    if (problem !== undefined) throw new TypeError(`Each of maxInlineBytes ${problem}.`);
  }
  const scanner = new PreviewScanner([...maxInlineBytes]);
  return { push: (chunk) => { scanner.push(chunk); }, finish: () => scanner.finishAll() };
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
  const { head, tail, totalBytes, maxInlineBytes, previewBytes, locator, retrievalHint, preface, scan } = input;
  for (const [name, value] of [['totalBytes', totalBytes], ['maxInlineBytes', maxInlineBytes], ['previewBytes', previewBytes ?? 0]] as const) {
    const problem = wholeNumberProblem(value, { min: 0, unit: 'bytes' });
    if (problem !== undefined) throw new TypeError(`${name} ${problem}.`);
  }
  const before = preface === undefined || preface === '' ? '' : `${preface}\n`;
  const notice = (omittedBytes: number): string => before + formatSpillNotice({ omittedBytes, locator, retrievalHint });
  notice(0); // validates the locator and hint before any work
  return composeOutline({ head, tail, totalBytes, scan }, maxInlineBytes, previewBytes ?? Number.POSITIVE_INFINITY, notice);
}

/**
 * The note that ends a stream whose save failed after part of the output was already
 * released: no locator, so it can never be mistaken for a spill notice.
 */
export function lostNotice(omittedBytes: number): string {
  return `(Omitted ${String(omittedBytes)} bytes. They could not be stored, so only this preview remains.)`;
}

/** {@link lostNotice} for caps too small for it: never longer than the shortest spill notice. */
export function shortLostNotice(omittedBytes: number): string {
  return `(Omitted ${String(omittedBytes)} bytes, which could not be stored.)`;
}

/**
 * The note that ends a stream whose output was stored but whose notice does not fit in
 * the cap (and could not be read back): no locator, because none fits.
 */
export function unshownNotice(omittedBytes: number): string {
  return `(Omitted ${String(omittedBytes)} bytes. They were stored, but the notice saying where is larger than maxInlineBytes.)`;
}

/** {@link unshownNotice} for caps too small for it: never longer than the shortest spill notice. */
export function shortUnshownNotice(omittedBytes: number): string {
  return `(Omitted ${String(omittedBytes)} bytes, stored where this cap cannot show.)`;
}

/** The last resort when not even a short note with its count fits. */
const CUT_NOTE = '(Output cut.)';

/**
 * The preview plus the first of `notes` that fits in `cap`, or, when none does, as much
 * of {@link CUT_NOTE} as fits: always at most `cap` bytes.
 */
export function previewWithNote(
  source: OutlineSource,
  cap: number,
  previewLimit: number,
  notes: readonly ((omittedBytes: number) => string)[],
): Replacement {
  for (const note of notes) {
    const replacement = composeOutline(source, cap, previewLimit, note);
    if (replacement !== undefined) return replacement;
  }
  return { text: CUT_NOTE.slice(0, cap), shownBytes: 0, omittedBytes: source.totalBytes };
}
