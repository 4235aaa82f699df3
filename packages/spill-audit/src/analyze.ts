/**
 * The per-call measures: sizes, what each limit would do, and whether the part a preview
 * leaves out was needed later.
 */
import { composeSpillPreview, createSpillPreviewScanners, type SpillPreviewScan } from '@spillway/policy';
import { distinctiveStrings, estimateTokens, forEachDistinctive, utf8Bytes } from './estimate.js';
import type { TranscriptEvent, TranscriptFormat } from './transcript.js';

/** Most distinctive strings kept per output and per session, so memory stays bounded. */
export const MAX_STRINGS_PER_OUTPUT = 20_000;
const MAX_SEEN = 500_000;

/** The most caps one {@link SessionAnalyzer} measures (two bits of a 32-bit mask each). */
export const MAX_CAPS = 15;

/** The caps every audit measures besides the one asked for, for the recommendation. */
export const CANDIDATE_CAPS: readonly number[] = [2048, 4096, 8192, 16384, 24576, 32768, 65536];

/** What one cap would do to one output. */
export interface CapOutcome {
  /** The cap in bytes. */
  readonly cap: number;
  /** Estimated tokens kept out of context: the output's less its spillway preview's. */
  readonly tokensKeptOut: number;
  /** A later tool call used a distinctive string that only the omitted part of the head+tail preview held. */
  neededHeadTail: boolean;
  /** The same, for spillway's preview (head, salient excerpts, tail). */
  neededSpillway: boolean;
  /** The first such string (only ever printed with `--examples`). */
  example?: string;
}

/** The figures of one tool call; never its content. */
export interface CallFigures {
  /** The session id. */
  readonly session: string;
  /** The tool's name (without a server prefix). */
  readonly tool: string;
  /** The MCP server, when the tool is one's. */
  readonly server?: string;
  /** Output size, UTF-8 bytes. */
  readonly bytes: number;
  /** Estimated tokens of the output (bytes / 4, rounded up). */
  readonly tokens: number;
  /** Whether the host itself would cut or divert the output; `null` when its limit for this tool is unknown. */
  readonly overHostLimit: boolean | null;
  /** One entry per cap the output is over, smallest cap first. */
  readonly caps: CapOutcome[];
}

/**
 * The host's own limit for a tool's output, as the host documents it: Claude Code cuts
 * Bash output over 30,000 characters and refuses MCP output over 25,000 tokens; Codex
 * keeps about 10 KiB of any tool's output; Gemini CLI cuts shell output over 40,000
 * characters; OpenCode keeps 2,000 lines or 50 KiB of any output. `null`: not known.
 */
export function overHostLimit(format: TranscriptFormat, tool: string, server: string | undefined, output: string, bytes: number): boolean | null {
  if (format === 'claude-code') {
    if (server !== undefined) return estimateTokens(bytes) > 25_000;
    if (tool === 'Bash') return output.length > 30_000;
    return null;
  }
  if (format === 'codex') return bytes > 10 * 1024;
  if (format === 'gemini') return tool === 'run_shell_command' ? output.length > 40_000 : null;
  if (format === 'opencode') return bytes > 50 * 1024 || lineCount(output) > 2000;
  return null;
}

function lineCount(text: string): number {
  let n = text.length > 0 && !text.endsWith('\n') ? 1 : 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

/**
 * Which earlier outputs held a string only in their omitted part: for each string the
 * newest of its entries, each entry naming the output (its index in `results`), which
 * previews omit the string (bit 2i for the head+tail preview at the output's i-th cap,
 * bit 2i+1 for spillway's) and the entry before it. Numbers in typed arrays, so a session's
 * many strings cost a few bytes each besides the string.
 */
class OmittedIndex {
  private readonly newest = new Map<string, number>();
  private output: Int32Array = new Int32Array(1024);
  private bits: Int32Array = new Int32Array(1024);
  private next: Int32Array = new Int32Array(1024);
  size = 0;

  add(s: string, output: number, bits: number): void {
    if (this.size === this.output.length) {
      const grow = (a: Int32Array): Int32Array => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.output = grow(this.output);
      this.bits = grow(this.bits);
      this.next = grow(this.next);
    }
    const at = this.size++;
    this.output[at] = output;
    this.bits[at] = bits;
    this.next[at] = this.newest.get(s) ?? -1;
    this.newest.set(s, at);
  }

  /** Calls `f` for each output that omitted `s`, with the previews that did (newest first: each output's outcomes are its own, so their order does not matter). */
  forEach(s: string, f: (output: number, bits: number) => void): void {
    for (let at = this.newest.get(s) ?? -1; at >= 0; at = this.next[at] ?? -1) f(this.output[at] ?? 0, this.bits[at] ?? 0);
  }
}

/** A copy of `s` that does not hold on to the (possibly much longer) text it was cut from. */
function detach(s: string): string {
  return s.length < 13 ? s : (s + ' ').slice(0, -1);
}

/** The preview at `cap`: spillway's when given the scan, else the plain head and tail. */
function preview(output: string, bytes: number, cap: number, scan: SpillPreviewScan | undefined): string {
  const input = { head: output.slice(0, cap + 2), tail: output.slice(-(cap + 2)), totalBytes: bytes, maxInlineBytes: cap, locator: 'audit', retrievalHint: '' };
  return composeSpillPreview(scan === undefined ? input : { ...input, scan })?.text ?? '';
}

/**
 * Follows one session's events in order. A distinctive string counts as needed later when
 * a tool call after the output uses it in its arguments, and it was in the omitted part of
 * the output only: not in the preview, and not in anything recorded before the output
 * (prompts, replies, earlier arguments and outputs).
 */
export class SessionAnalyzer {
  private readonly calls = new Map<string, { tool: string; server?: string }>();
  private readonly seen = new Set<string>();
  /** Distinctive string → the earlier outputs that held it only in their omitted part, oldest first. */
  private readonly omitted = new OmittedIndex();
  private readonly caps: readonly number[];

  /**
   * @param format - the transcript's format, for the host's own limits
   * @param caps - the caps to measure, ascending, at most {@link MAX_CAPS}
   * @throws TypeError when there are more caps than that, or one is not a positive integer
   */
  constructor(
    private readonly format: TranscriptFormat,
    caps: readonly number[],
  ) {
    if (caps.length > MAX_CAPS || caps.some((c) => !Number.isSafeInteger(c) || c < 1)) throw new TypeError(`Pass at most ${String(MAX_CAPS)} caps, each a positive integer; got ${caps.join(', ')}.`);
    this.caps = [...caps].sort((a, b) => a - b);
  }

  /** Takes the next event. */
  push(event: TranscriptEvent): void {
    if (event.kind === 'text') {
      this.see(distinctiveStrings(event.text, MAX_STRINGS_PER_OUTPUT));
      return;
    }
    if (event.kind === 'call') {
      const used = distinctiveStrings(event.input, MAX_STRINGS_PER_OUTPUT);
      // Each string the call uses is looked up once, among all earlier outputs at once.
      for (const s of used) {
        this.omitted.forEach(s, (output, bits) => {
          const figures = this.results[output];
          if (figures !== undefined) markNeeded(figures.caps, bits, s);
        });
      }
      this.see(used);
      this.calls.set(event.id, event.server === undefined ? { tool: event.tool } : { tool: event.tool, server: event.server });
      return;
    }
    const call = this.calls.get(event.id) ?? { tool: '(unknown)' };
    this.calls.delete(event.id);
    const { output } = event;
    const bytes = utf8Bytes(output);
    const tokens = estimateTokens(bytes);
    const over = this.caps.filter((cap) => bytes > cap);
    // The output's first strings (at most MAX_STRINGS_PER_OUTPUT distinct): index into `fresh` when not seen before, -1 when seen.
    const index = new Map<string, number>();
    const fresh: string[] = [];
    forEachDistinctive(output, (s) => {
      if (index.get(s) !== undefined) return false;
      if (this.seen.has(s)) index.set(s, -1);
      else {
        const kept = detach(s);
        index.set(s, fresh.push(kept) - 1);
        // Seen from now on: a later repeat in this output is found in `index` first.
        if (this.seen.size < MAX_SEEN) this.seen.add(kept);
      }
      return index.size >= MAX_STRINGS_PER_OUTPUT;
    });
    const caps: CapOutcome[] = [];
    // Compared as distinctive strings: a string cut at a preview's edge is not shown whole, so it counts as omitted.
    const shown = new Uint32Array(fresh.length);
    const show = (text: string, bit: number): void => {
      forEachDistinctive(text, (s) => {
        const at = index.get(s);
        if (at !== undefined && at >= 0) shown[at] = (shown[at] ?? 0) | (1 << bit);
        return false;
      });
    };
    // One pass over the output finds what spillway's preview shows at every cap it is over.
    let scans: SpillPreviewScan[] = [];
    if (over.length > 0) {
      const scanner = createSpillPreviewScanners(over);
      scanner.push(output);
      scans = scanner.finish();
    }
    for (const [i, cap] of over.entries()) {
      const salient = preview(output, bytes, cap, scans[i]);
      caps.push({ cap, tokensKeptOut: Math.max(0, tokens - estimateTokens(utf8Bytes(salient))), neededHeadTail: false, neededSpillway: false });
      if (fresh.length === 0) continue;
      show(preview(output, bytes, cap, undefined), 2 * i);
      show(salient, 2 * i + 1);
    }
    const figures: CallFigures = { session: event.session, tool: call.tool, ...(call.server === undefined ? {} : { server: call.server }), bytes, tokens, overHostLimit: overHostLimit(this.format, call.tool, call.server, output, bytes), caps };
    if (over.length > 0) {
      const all = 2 ** (2 * over.length) - 1;
      for (const [at, s] of fresh.entries()) {
        const bits = all & ~(shown[at] ?? 0);
        if (bits === 0) continue;
        this.omitted.add(s, this.results.length, bits);
      }
    }
    this.results.push(figures);
  }

  /** Calls seen whose output has not come (yet). */
  get unanswered(): number {
    return this.calls.size;
  }

  /** The figures of every call whose output was seen, in order. */
  readonly results: CallFigures[] = [];

  private see(strings: Iterable<string>): void {
    for (const s of strings) {
      if (this.seen.size >= MAX_SEEN) return;
      this.seen.add(s);
    }
  }
}

/** A later call used `s`, which an output held only in what the previews `bits` names omit. */
function markNeeded(caps: readonly CapOutcome[], bits: number, s: string): void {
  for (const [i, outcome] of caps.entries()) {
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
