/**
 * The needed-later measure written the plain way (every cap scanned and every preview's
 * strings collected on their own, every earlier output compared with every later call),
 * kept only so tests can hold the fast {@link SessionAnalyzer} to the same answers.
 */
import { composeSpillPreview, createSpillPreviewScanner } from '@spillway/policy';
import { HOST_BIT, overHostLimit, MAX_STRINGS_PER_OUTPUT, rangeExample, type CallFigures, type CapOutcome } from './analyze.js';
import { callReads, LineRangeTracker } from './line-ranges.js';
import { estimateTokens, MIN_DISTINCTIVE_LENGTH, utf8Bytes } from './estimate.js';
import type { TranscriptEvent, TranscriptFormat } from './transcript.js';

const CANDIDATE = /[\p{L}\p{N}_./\-@#~+]+/gu;
const MARK = /[\d/._]/;

function trim(token: string): string {
  let start = 0;
  let end = token.length;
  while (start < end && '.-/'.includes(token.charAt(start))) start++;
  while (end > start && '.-/'.includes(token.charAt(end - 1))) end--;
  return token.slice(start, end);
}

/** The distinctive strings of `text` by one regular expression over it. */
export function referenceDistinctiveStrings(text: string, limit = Number.POSITIVE_INFINITY): Set<string> {
  const found = new Set<string>();
  const take = (token: string): boolean => {
    if (token.length >= MIN_DISTINCTIVE_LENGTH && MARK.test(token)) found.add(token);
    return found.size >= limit;
  };
  for (const match of text.matchAll(CANDIDATE)) {
    const token = trim(match[0]);
    if (take(token)) break;
    if (token.includes('/') && token.split('/').some((part) => take(trim(part)))) break;
  }
  return found;
}

function preview(output: string, bytes: number, cap: number, salient: boolean): string {
  const input = { head: output.slice(0, cap + 2), tail: output.slice(-(cap + 2)), totalBytes: bytes, maxInlineBytes: cap, locator: 'audit', retrievalHint: '' };
  if (!salient) return composeSpillPreview(input)?.text ?? '';
  const scanner = createSpillPreviewScanner(cap);
  scanner.push(output);
  return composeSpillPreview({ ...input, scan: scanner.finish() })?.text ?? '';
}

/** One session's figures, the plain way. */
export class ReferenceAnalyzer {
  private readonly calls = new Map<string, { tool: string; server?: string; viewed?: string }>();
  private readonly ranges = new LineRangeTracker();
  private readonly seen = new Set<string>();
  private readonly pending: { figures: CallFigures; omitted: Map<string, number> }[] = [];
  readonly results: CallFigures[] = [];

  constructor(
    private readonly format: TranscriptFormat,
    private readonly caps: readonly number[],
  ) {}

  push(event: TranscriptEvent): void {
    if (event.kind === 'text') {
      this.see(referenceDistinctiveStrings(event.text, MAX_STRINGS_PER_OUTPUT));
      return;
    }
    if (event.kind === 'call') {
      const used = referenceDistinctiveStrings(event.input, MAX_STRINGS_PER_OUTPUT);
      for (const p of this.pending) {
        for (const s of used) {
          const bits = p.omitted.get(s);
          if (bits === undefined) continue;
          if ((bits & (1 << HOST_BIT)) !== 0) p.figures.neededHost = true;
          for (const [i, outcome] of p.figures.caps.entries()) {
            if ((bits & (1 << (2 * i))) !== 0) {
              outcome.neededHeadTail = true;
              outcome.example ??= s;
            }
            if ((bits & (1 << (2 * i + 1))) !== 0) {
              outcome.neededSpillway = true;
              outcome.example = s;
            }
          }
        }
      }
      const reads = callReads(event.input, this.format);
      for (const range of reads.ranges) {
        this.ranges.omissions(range, (output, bits) => {
          const figures = this.results[output];
          if (figures === undefined) return;
          if ((bits & (1 << HOST_BIT)) !== 0) figures.neededHost = true;
          for (const [i, outcome] of figures.caps.entries()) {
            if ((bits & (1 << (2 * i))) !== 0) {
              outcome.neededHeadTail = true;
              outcome.example ??= rangeExample(range);
            }
            if ((bits & (1 << (2 * i + 1))) !== 0) {
              outcome.neededSpillway = true;
              outcome.example = rangeExample(range);
            }
          }
        });
      }
      this.see(used);
      const { viewed } = reads;
      this.calls.set(event.id, { tool: event.tool, ...(event.server === undefined ? {} : { server: event.server }), ...(viewed === undefined ? {} : { viewed }) });
      return;
    }
    const call = this.calls.get(event.id) ?? { tool: '(unknown)' };
    this.calls.delete(event.id);
    const { output } = event;
    const bytes = utf8Bytes(output);
    const tokens = estimateTokens(bytes);
    const caps: CapOutcome[] = [];
    const strings = new Set<string>();
    for (const s of referenceDistinctiveStrings(output, MAX_STRINGS_PER_OUTPUT)) if (!this.seen.has(s)) strings.add(s);
    const shown: ReadonlySet<string>[] = [];
    const previews: { bit: number; text: string }[] = [];
    for (const cap of this.caps.filter((c) => bytes > c)) {
      const salient = preview(output, bytes, cap, true);
      const plain = preview(output, bytes, cap, false);
      caps.push({ cap, tokensKeptOut: Math.max(0, tokens - estimateTokens(utf8Bytes(salient))), neededHeadTail: false, neededSpillway: false });
      shown.push(referenceDistinctiveStrings(plain), referenceDistinctiveStrings(salient));
      previews.push({ bit: previews.length, text: plain }, { bit: previews.length + 1, text: salient });
    }
    const limit = overHostLimit(this.format, call.tool, call.server, output, bytes);
    const note = event.stored?.read === true ? event.stored.shown : undefined;
    const hostShown = note !== undefined && note !== output ? referenceDistinctiveStrings(note) : undefined;
    const omitted = new Map<string, number>();
    for (const s of strings) {
      let bits = 0;
      for (const [bit, set] of shown.entries()) if (!set.has(s)) bits |= 1 << bit;
      if (hostShown !== undefined && !hostShown.has(s)) bits |= 1 << HOST_BIT;
      if (bits !== 0) omitted.set(s, bits);
    }
    const figures: CallFigures = {
      session: event.session,
      tool: call.tool,
      ...(call.server === undefined ? {} : { server: call.server }),
      bytes,
      tokens,
      overHostLimit: limit,
      caps,
      hostView: hostShown !== undefined ? 'cut' : (this.format === 'claude-code' || this.format === 'opencode') && event.stored === undefined && limit === false ? 'whole' : 'unknown',
      neededHost: false,
    };
    this.see(strings);
    if (omitted.size > 0) this.pending.push({ figures, omitted });
    this.results.push(figures);
    if (note !== undefined && note !== output) previews.push({ bit: HOST_BIT, text: note });
    if (call.viewed !== undefined) this.ranges.record(call.viewed, this.results.length - 1, output, previews);
  }

  private see(strings: Iterable<string>): void {
    for (const s of strings) {
      if (this.seen.size >= 500_000) return;
      this.seen.add(s);
    }
  }
}
