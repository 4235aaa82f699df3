/**
 * The per-call measures: sizes, what each limit would do, and whether the part a preview
 * leaves out was needed later.
 */
import { composeSpillPreview, createSpillPreviewScanner } from '@spillway/policy';
import { distinctiveStrings, estimateTokens, utf8Bytes } from './estimate.js';
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
 * characters. `null`: not known.
 */
export function overHostLimit(format: TranscriptFormat, tool: string, server: string | undefined, output: string, bytes: number): boolean | null {
  if (format === 'claude-code') {
    if (server !== undefined) return estimateTokens(bytes) > 25_000;
    if (tool === 'Bash') return output.length > 30_000;
    return null;
  }
  if (format === 'codex') return bytes > 10 * 1024;
  if (format === 'gemini') return tool === 'run_shell_command' ? output.length > 40_000 : null;
  return null;
}

interface Pending {
  readonly figures: CallFigures;
  /** Distinctive string → bit 2i set when the head+tail preview at caps[i] omits it, bit 2i+1 for spillway's. */
  readonly omitted: Map<string, number>;
}

function preview(output: string, bytes: number, cap: number, salient: boolean): string {
  const input = { head: output.slice(0, cap + 2), tail: output.slice(-(cap + 2)), totalBytes: bytes, maxInlineBytes: cap, locator: 'audit', retrievalHint: '' };
  let composed;
  if (salient) {
    const scanner = createSpillPreviewScanner(cap);
    scanner.push(output);
    composed = composeSpillPreview({ ...input, scan: scanner.finish() });
  } else {
    composed = composeSpillPreview(input);
  }
  return composed?.text ?? '';
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
  private readonly pending: Pending[] = [];
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
      for (const p of this.pending) this.match(p, used);
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
    const caps: CapOutcome[] = [];
    const omitted = new Map<string, number>();
    const strings = new Set<string>();
    for (const s of distinctiveStrings(output, MAX_STRINGS_PER_OUTPUT)) if (!this.seen.has(s)) strings.add(s);
    // Compared as sets of distinctive strings: a string cut at a preview's edge is not shown whole, so it counts as omitted.
    const shown: ReadonlySet<string>[] = [];
    for (const cap of over) {
      const salient = preview(output, bytes, cap, true);
      caps.push({ cap, tokensKeptOut: Math.max(0, tokens - estimateTokens(utf8Bytes(salient))), neededHeadTail: false, neededSpillway: false });
      shown.push(distinctiveStrings(preview(output, bytes, cap, false)), distinctiveStrings(salient));
    }
    if (shown.length > 0) {
      for (const s of strings) {
        let bits = 0;
        for (const [bit, set] of shown.entries()) if (!set.has(s)) bits |= 1 << bit;
        if (bits !== 0) omitted.set(s, bits);
      }
    }
    const figures: CallFigures = { session: event.session, tool: call.tool, ...(call.server === undefined ? {} : { server: call.server }), bytes, tokens, overHostLimit: overHostLimit(this.format, call.tool, call.server, output, bytes), caps };
    this.see(strings);
    if (omitted.size > 0) this.pending.push({ figures, omitted });
    this.results.push(figures);
  }

  /** Calls seen whose output has not come (yet). */
  get unanswered(): number {
    return this.calls.size;
  }

  /** The figures of every call whose output was seen, in order. */
  readonly results: CallFigures[] = [];

  private match(p: Pending, used: ReadonlySet<string>): void {
    for (const s of used) {
      const bits = p.omitted.get(s);
      if (bits === undefined) continue;
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

  private see(strings: Iterable<string>): void {
    for (const s of strings) {
      if (this.seen.size >= MAX_SEEN) return;
      this.seen.add(s);
    }
  }
}
