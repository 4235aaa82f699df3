/**
 * The per-call measures: sizes, what each limit would do, and whether the part a preview
 * leaves out was needed later.
 */
import { composeSpillPreview, createSpillPreviewScanners, type SpillPreviewScan } from '@spillway/policy';
import { distinctiveStrings, estimateTokens, forEachDistinctiveSpan, utf8Bytes } from './estimate.js';
import { callReads, LineRangeTracker, shownRange, type LineRange } from './line-ranges.js';
import { grown, spanHash, StringTable } from './string-table.js';
import type { TranscriptEvent, TranscriptFormat } from './transcript.js';

/** Most distinctive strings kept per output and per session, so memory stays bounded. */
export const MAX_STRINGS_PER_OUTPUT = 20_000;
const MAX_SEEN = 500_000;

/**
 * Most distinct strings one session's table numbers, each about 90 bytes of bookkeeping with
 * its characters, so that a session of any length stays within some 45 MB of them. A string
 * first met past it is not followed: a later call using it does not count as needing the
 * output (the rate errs low, never high).
 */
export const MAX_SESSION_STRINGS = 500_000;

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
  /** A later tool call used a distinctive string, or read a line range, that only the omitted part of the head+tail preview held. */
  neededHeadTail: boolean;
  /** The same, for spillway's preview (head, salient excerpts, tail). */
  neededSpillway: boolean;
  /** The first such string, or `path:first-last` for a line range (only ever printed with `--examples`). */
  example?: string;
  /**
   * Whether `spill_search`, given the words of the later call that needed the output, finds
   * a snippet holding the needed string; set only at the audited cap, for the outputs an
   * audit given `searchOutput` checked.
   */
  foundBySearch?: boolean;
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
  /**
   * What the model saw of the output with the host alone: `whole` (the output is within the
   * host's limit, in a transcript that records outputs whole: Claude Code's, OpenCode's),
   * `cut` (the host stored the output in a file and showed the model a note with part of
   * it, and the audit read both), or `unknown` (the host's limit for the tool is not known,
   * or the transcript holds only what the host kept, as Codex's and Gemini CLI's do).
   * Always set by {@link SessionAnalyzer}.
   */
  readonly hostView?: 'whole' | 'cut' | 'unknown';
  /**
   * With `hostView` `cut`: a later tool call used a distinctive string, or read a line range,
   * that only the part the host did not show held.
   */
  neededHost?: boolean;
}

/**
 * Whether a host's transcript holds an output whole when the host showed it whole. Codex
 * and Gemini CLI record only what they kept, so an output within their limit may be a cut.
 */
function keepsWhole(format: TranscriptFormat): boolean {
  return format === 'claude-code' || format === 'opencode';
}

/** The omission bit of the host's own view; bits below it are the caps' previews (2 per cap). Internal: not exported from the package. */
export const HOST_BIT = 2 * MAX_CAPS;

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
 * Every distinct string a session met, numbered once: one table lookup per string met, by
 * its span of the text and the hash the scan computed, so a string is neither cut out of
 * the text nor hashed by a `Map` (only a new one's code units are copied, into the table's
 * blocks), and what the analysis keeps about each string in typed arrays beside it. Which earlier
 * outputs held a string only in their omitted part is a chain of entries per string, newest
 * first, each naming the output (its index in `results`), which previews omit the string
 * (bit 2i for the head+tail preview at the output's i-th cap, bit 2i+1 for spillway's) and
 * the entry before it.
 */
class Strings {
  private readonly table = new StringTable();
  /** Per string: its newest entry, -1 for none. */
  newest: Int32Array = new Int32Array(1024);
  /** Per string: 1 when seen (a later output holding it gains nothing by it). */
  seen: Int32Array = new Int32Array(1024);
  /** Per string: the last output (numbered from 1) that met it. */
  stamp: Int32Array = new Int32Array(1024);
  /** Per string: its index among the fresh strings of output `stamp`, -1 when seen before it. */
  local: Int32Array = new Int32Array(1024);
  seenCount = 0;
  private entryOutput: Int32Array = new Int32Array(1024);
  private entryBits: Int32Array = new Int32Array(1024);
  private entryNext: Int32Array = new Int32Array(1024);
  private entries = 0;

  /** Strings numbered. */
  get size(): number {
    return this.table.size;
  }

  /** The number of `s`; -1 when it has none. */
  find(s: string): number {
    return this.table.find(s, 0, s.length, spanHash(s, 0, s.length));
  }

  /** The number of `s`, given one when new. */
  intern(s: string): number {
    const hash = spanHash(s, 0, s.length);
    const id = this.table.find(s, 0, s.length, hash);
    return id >= 0 ? id : this.add(s, 0, s.length, hash);
  }

  /** The number of `text[start, end)`, whose hash is `hash`; -1 when it has none. */
  findSpan(text: string, start: number, end: number, hash: number): number {
    return this.table.find(text, start, end, hash);
  }

  /** Numbers `text[start, end)`, which has no number yet. */
  add(text: string, start: number, end: number, hash: number): number {
    const id = this.table.add(text, start, end, hash);
    if (id === this.newest.length) {
      this.newest = grown(this.newest);
      this.seen = grown(this.seen);
      this.stamp = grown(this.stamp);
      this.local = grown(this.local);
    }
    // Set, not assumed zero: a cleared table's arrays keep what its earlier strings left.
    this.newest[id] = -1;
    this.seen[id] = 0;
    this.stamp[id] = 0;
    return id;
  }

  /** Forgets every string and omission, keeping the tables and arrays grown so far (not the strings' characters) for the next session. */
  clear(): void {
    this.table.clear();
    this.seenCount = 0;
    this.entries = 0;
  }

  /** Marks string `id` seen, unless {@link MAX_SEEN} strings already are. */
  see(id: number): void {
    if (this.seen[id] === 1 || this.seenCount >= MAX_SEEN) return;
    this.seen[id] = 1;
    this.seenCount++;
  }

  /** Output `output` omitted string `id` in the previews `bits` names. */
  omit(id: number, output: number, bits: number): void {
    if (this.entries === this.entryOutput.length) {
      this.entryOutput = grown(this.entryOutput);
      this.entryBits = grown(this.entryBits);
      this.entryNext = grown(this.entryNext);
    }
    const at = this.entries++;
    this.entryOutput[at] = output;
    this.entryBits[at] = bits;
    this.entryNext[at] = this.newest[id] ?? -1;
    this.newest[id] = at;
  }

  /** Calls `f` for each output that omitted `s`, with the previews that did (newest first: each output's outcomes are its own, so their order does not matter). */
  forEachOmission(s: string, f: (output: number, bits: number) => void): void {
    const id = this.find(s);
    if (id < 0) return;
    for (let at = this.newest[id] ?? -1; at >= 0; at = this.entryNext[at] ?? -1) f(this.entryOutput[at] ?? 0, this.entryBits[at] ?? 0);
  }
}

/** The strings of the last analyzer released on this thread, to be cleared and used by the next one. */
let spare: Strings | undefined;

/**
 * Lets the spare strings go (see {@link SessionAnalyzer.release}), for a thread that
 * analyzes no more sessions for now; answers whether there were any. Internal: not exported
 * from the package.
 */
export function dropSpareStrings(): boolean {
  const held = spare !== undefined;
  spare = undefined;
  return held;
}

/** A {@link Strings} for a new session: the spare one, cleared, or a new one. */
function takeStrings(): Strings {
  const strings = spare ?? new Strings();
  spare = undefined;
  strings.clear();
  return strings;
}

/** The preview at `cap`: spillway's when given the scan, else the plain head and tail. */
function preview(output: string, bytes: number, cap: number, scan: SpillPreviewScan | undefined): string {
  const input = { head: output.slice(0, cap + 2), tail: output.slice(-(cap + 2)), totalBytes: bytes, maxInlineBytes: cap, locator: 'audit', retrievalHint: '' };
  return composeSpillPreview(scan === undefined ? input : { ...input, scan })?.text ?? '';
}

/** Line starts a preview's copy of the output's head is looked for at: its header and a JSON shape come first. */
const HEAD_STARTS = 24;
/** Line breaks from the end a preview's copy of the output's tail is looked for before: its notice follows. */
const TAIL_ENDS = 8;
/** Common lengths are found by doubling then halving a length compared whole. */
const FIRST_PROBE = 64;

/**
 * A long `m` with `preview[at, at + m)` equal to `output[0, m)`: first the guess that the
 * copy runs up to spillway's next marker (each starts `\n… [`), else the longest by search.
 */
function commonPrefix(preview: string, at: number, output: string): number {
  const most = Math.min(preview.length - at, output.length);
  const same = (m: number): boolean => preview.slice(at, at + m) === output.slice(0, m);
  const marker = preview.indexOf('\n… [', at);
  if (marker > at && marker - at <= most && same(marker - at)) return marker - at;
  return longest(most, same);
}

/**
 * A long `m` with `preview[end - m, end)` equal to the last `m` code units of `output`:
 * first the guess that the copy starts just after spillway's marker before it (each ends
 * ` …` and a line break), else the longest by search.
 */
function commonSuffix(preview: string, end: number, output: string): number {
  const most = Math.min(end, output.length);
  const same = (m: number): boolean => preview.slice(end - m, end) === output.slice(output.length - m);
  const marker = preview.lastIndexOf(' …\n', end);
  const guess = end - (marker + 3);
  if (marker >= 0 && guess > 0 && guess <= most && same(guess)) return guess;
  return longest(most, same);
}

/** The largest `m` in [0, most] for which `same(m)` holds, given that it holds for every smaller one. */
function longest(most: number, same: (m: number) => boolean): number {
  if (most === 0 || !same(1)) return 0;
  let low = 1; // holds
  let high = most + 1; // fails (or past the end)
  for (let probe = FIRST_PROBE; probe <= most; probe *= 2) {
    if (!same(probe)) {
      high = probe;
      break;
    }
    low = probe;
  }
  while (high - low > 1) {
    const mid = (low + high) >>> 1;
    if (same(mid)) low = mid;
    else high = mid;
  }
  return low;
}

/**
 * Where a preview copies the output verbatim, as ranges whose distinctive strings are the
 * output's own: `output[0, head)` is shown by the preview from `preview[headAt]` on, and
 * `output(tail, end)` ends at `preview[tailEnd]`; `head` and `tail` are line breaks of the
 * output, so no string crosses them. `head` is -1 and `tail` the output's length when no
 * such copy is found. The rest of the preview is read as text.
 */
interface Copies {
  readonly headAt: number;
  readonly head: number;
  readonly tail: number;
  readonly tailEnd: number;
}

/**
 * Finds the copies: the head's at the first of the preview's first line starts whose copy
 * of the output's start reaches past a line break of the output, the tail's before the
 * last of its last line breaks whose copy reaches back past one. Any copy found is checked
 * whole, so a guess that misses only leaves more of the preview to read. `tailFloor` is a
 * line break of the output before which repeats were not followed, or -1.
 */
function copies(preview: string, output: string, tailFloor: number): Copies {
  const n = output.length;
  let headAt = 0;
  let head = -1;
  const firstBreak = output.indexOf('\n');
  if (firstBreak >= 0) {
    for (let at = 0, tries = 0; tries < HEAD_STARTS && at < preview.length; tries++) {
      const m = commonPrefix(preview, at, output);
      if (m > firstBreak) {
        headAt = at;
        head = output.lastIndexOf('\n', m - 1);
        break;
      }
      const next = preview.indexOf('\n', at);
      if (next < 0) break;
      at = next + 1;
    }
  }
  let tail = n;
  let tailEnd = preview.length;
  const lastBreak = output.lastIndexOf('\n');
  if (lastBreak >= 0) {
    for (let end = preview.lastIndexOf('\n'), tries = 0; end >= 0 && tries < TAIL_ENDS; tries++) {
      const m = commonSuffix(preview, end, output);
      if (m >= n - lastBreak) {
        tailEnd = end;
        tail = Math.max(output.indexOf('\n', n - m), tailFloor);
        break;
      }
      end = end === 0 ? -1 : preview.lastIndexOf('\n', end - 1);
    }
  }
  // The copies must not overlap in the preview.
  if (tail < n && headAt + Math.max(head, 0) > tailEnd - (n - tail)) tail = n;
  if (tail === n) tailEnd = preview.length;
  return { headAt, head, tail, tailEnd };
}

/** An output's fresh strings (see `SessionAnalyzer.freshStrings`): the first `count` entries of each array. */
interface Fresh {
  /** How many there are. */
  count: number;
  /** Their numbers. */
  ids: Int32Array;
  /** Where each first occurs in the output. */
  first: Int32Array;
  /** Where each last occurs. */
  last: Int32Array;
  /** A line break of the output before which repeats were not followed, or -1. */
  tailFloor: number;
}

/** Options of a {@link SessionAnalyzer}. */
export interface SessionAnalyzerOptions {
  /** Most distinct strings the session follows (default {@link MAX_SESSION_STRINGS}), which bounds its memory. */
  readonly maxStrings?: number;
  /**
   * Called, while a tool call is pushed, for each distinctive string the call uses that an
   * earlier output held only in what spillway's preview at `outcome.cap` omits: `output` is
   * that output's index in {@link SessionAnalyzer.results}, `s` the string (transcript
   * content). The outcome is already marked needed when it is called.
   */
  readonly onNeeded?: (output: number, outcome: CapOutcome, s: string) => void;
}

/**
 * Follows one session's events in order. A distinctive string counts as needed later when
 * a tool call after the output uses it in its arguments, and it was in the omitted part of
 * the output only: not in the preview, and not in anything recorded before the output
 * (prompts, replies, earlier arguments and outputs).
 */
export class SessionAnalyzer {
  /** Calls whose output has not come: with the line ranges they read that only their output can tell (see {@link CallReads.shownBy}). */
  private readonly calls = new Map<string, { tool: string; server?: string; viewed?: string; ranges?: LineRange[] }>();
  private readonly ranges = new LineRangeTracker();
  private readonly strings = takeStrings();
  /** Set by {@link release}. */
  private released = false;
  private readonly fresh: Fresh = { count: 0, ids: new Int32Array(256), first: new Int32Array(256), last: new Int32Array(256), tailFloor: -1 };
  /** Outputs met, numbering them for {@link Strings.stamp}. */
  private outputs = 0;
  private readonly caps: readonly number[];
  /** Most distinct strings followed. */
  private readonly maxStrings: number;

  /**
   * @param format - the transcript's format, for the host's own limits
   * @param caps - the caps to measure, ascending, at most {@link MAX_CAPS}
   * @param options - how many strings to follow, and what else to tell while reading
   * @throws TypeError when there are more caps than that, or one is not a positive integer
   */
  constructor(
    private readonly format: TranscriptFormat,
    caps: readonly number[],
    private readonly options: SessionAnalyzerOptions = {},
  ) {
    if (caps.length > MAX_CAPS || caps.some((c) => !Number.isSafeInteger(c) || c < 1)) throw new TypeError(`Pass at most ${String(MAX_CAPS)} caps, each a positive integer; got ${caps.join(', ')}.`);
    this.caps = [...caps].sort((a, b) => a - b);
    this.maxStrings = options.maxStrings ?? MAX_SESSION_STRINGS;
  }

  /**
   * Takes the next event.
   *
   * @throws TypeError after {@link release}
   */
  push(event: TranscriptEvent): void {
    if (this.released) throw new TypeError('This session analyzer was released: make a new one for more events.');
    if (event.kind === 'text') {
      this.see(distinctiveStrings(event.text, MAX_STRINGS_PER_OUTPUT));
      return;
    }
    if (event.kind === 'call') {
      const used = distinctiveStrings(event.input, MAX_STRINGS_PER_OUTPUT);
      // Each string the call uses is looked up once, among all earlier outputs at once.
      const { onNeeded } = this.options;
      for (const s of used) {
        this.strings.forEachOmission(s, (output, bits) => {
          const figures = this.results[output];
          if (figures === undefined) return;
          markNeeded(figures, bits, s);
          if (onNeeded === undefined) return;
          for (const [i, outcome] of figures.caps.entries()) if ((bits & (1 << (2 * i + 1))) !== 0) onNeeded(output, outcome, s);
        });
      }
      // A line range the call reads of a file an earlier output showed numbered: known now,
      // or, where the host may stop short of it, once the output shows what it read.
      const reads = callReads(event.input, this.format);
      if (reads.shownBy === undefined) this.readRanges(reads.ranges);
      this.see(used);
      const { viewed } = reads;
      const pending = reads.shownBy === undefined || reads.ranges.length === 0 ? {} : { ranges: reads.ranges };
      this.calls.set(event.id, { tool: event.tool, ...(event.server === undefined ? {} : { server: event.server }), ...(viewed === undefined ? {} : { viewed }), ...pending });
      return;
    }
    const call = this.calls.get(event.id) ?? { tool: '(unknown)' };
    this.calls.delete(event.id);
    const { output } = event;
    if (call.ranges !== undefined) this.readRanges(call.ranges.map((r) => shownRange(r, output)).filter((r) => r !== undefined));
    const bytes = utf8Bytes(output);
    const tokens = estimateTokens(bytes);
    const over = this.caps.filter((cap) => bytes > cap);
    const hostLimit = overHostLimit(this.format, call.tool, call.server, output, bytes);
    // The note's text is what the host showed; with the file read, what it left out is known.
    const note = event.stored?.read === true ? event.stored.shown : undefined;
    const hostShown = note !== undefined && note !== output ? note : undefined;
    const hostView = hostShown !== undefined ? 'cut' : keepsWhole(this.format) && event.stored === undefined && hostLimit === false ? 'whole' : 'unknown';
    const fresh = this.freshStrings(output, over.length === 0 ? 0 : (over.at(-1) ?? 0) + 2);
    const caps: CapOutcome[] = [];
    // Compared as distinctive strings: a string cut at a preview's edge is not shown whole, so it counts as omitted.
    const shown = new Int32Array(fresh.count);
    const { stamp, local } = this.strings;
    const out = this.outputs;
    /** Marks the strings `text` shows as shown by each preview `flag` names (a bit each). */
    const show = (text: string, flag: number): void => {
      const take = (start: number, end: number, hash: number): boolean => {
        const id = this.strings.findSpan(text, start, end, hash);
        if (id >= 0 && stamp[id] === out) {
          const at = local[id] ?? -1;
          if (at >= 0) shown[at] = (shown[at] ?? 0) | flag;
        }
        return false;
      };
      // What the preview copies of the output's head and tail shows is known from where each string first and last occurs.
      const c = copies(text, output, fresh.tailFloor);
      const { count, first, last } = fresh;
      if (c.head > 0) {
        forEachDistinctiveSpan(text, take, 0, c.headAt);
        for (let k = 0; k < count; k++) if ((first[k] ?? 0) < c.head) shown[k] = (shown[k] ?? 0) | flag;
      }
      const middleEnd = c.tail < output.length ? c.tailEnd - (output.length - c.tail) + 1 : text.length;
      forEachDistinctiveSpan(text, take, c.head > 0 ? c.headAt + c.head : 0, middleEnd);
      if (c.tail < output.length) {
        for (let k = 0; k < count; k++) if ((last[k] ?? 0) > c.tail) shown[k] = (shown[k] ?? 0) | flag;
        forEachDistinctiveSpan(text, take, c.tailEnd);
      }
    };
    // One pass over the output finds what spillway's preview shows at every cap it is over.
    let scans: SpillPreviewScan[] = [];
    if (over.length > 0) {
      const scanner = createSpillPreviewScanners(over);
      scanner.push(output);
      scans = scanner.finish();
    }
    // The previews of a file shown numbered, for the line ranges later calls read of it.
    const viewed = call.viewed === undefined ? undefined : ([] as { bit: number; text: string }[]);
    for (const [i, cap] of over.entries()) {
      const salient = preview(output, bytes, cap, scans[i]);
      caps.push({ cap, tokensKeptOut: Math.max(0, tokens - estimateTokens(utf8Bytes(salient))), neededHeadTail: false, neededSpillway: false });
      if (fresh.count === 0 && viewed === undefined) continue;
      const plain = preview(output, bytes, cap, undefined);
      viewed?.push({ bit: 2 * i, text: plain }, { bit: 2 * i + 1, text: salient });
      if (fresh.count === 0) continue;
      // Where the scan found nothing to show, spillway's preview is the plain one: read once.
      if (salient === plain) show(plain, (1 << (2 * i)) | (1 << (2 * i + 1)));
      else {
        show(plain, 1 << (2 * i));
        show(salient, 1 << (2 * i + 1));
      }
    }
    if (hostShown !== undefined) {
      viewed?.push({ bit: HOST_BIT, text: hostShown });
      if (fresh.count > 0) show(hostShown, 1 << HOST_BIT);
    }
    const figures: CallFigures = {
      session: event.session,
      tool: call.tool,
      ...(call.server === undefined ? {} : { server: call.server }),
      bytes,
      tokens,
      overHostLimit: hostLimit,
      caps,
      hostView,
      neededHost: false,
    };
    if (over.length > 0 || hostShown !== undefined) {
      const all = (2 ** (2 * over.length) - 1) | (hostShown === undefined ? 0 : 1 << HOST_BIT);
      for (let at = 0; at < fresh.count; at++) {
        const bits = all & ~(shown[at] ?? 0);
        if (bits === 0) continue;
        this.strings.omit(fresh.ids[at] ?? 0, this.results.length, bits);
      }
    }
    this.results.push(figures);
    if (viewed !== undefined) this.ranges.record(call.viewed, this.results.length - 1, output, viewed);
  }

  /**
   * The output's first strings (at most {@link MAX_STRINGS_PER_OUTPUT} distinct) that were
   * not seen before it, each with where it first and last occurs; they are seen from now on.
   * Past that many, the scan goes on only through the last `tail` code units, where the
   * previews' tails come from, to find later repeats. The arrays answered are reused by the
   * next output; their first `count` entries hold the strings.
   */
  private freshStrings(output: string, tail: number): Fresh {
    const strings = this.strings;
    const out = ++this.outputs;
    const fresh = this.fresh;
    let count = 0;
    let distinct = 0;
    const repeat = (id: number, at: number): void => {
      if (id >= 0 && strings.stamp[id] === out) {
        const k = strings.local[id] ?? -1;
        if (k >= 0) fresh.last[k] = at;
      }
    };
    const stopped = forEachDistinctiveSpan(output, (start, end, hash, at) => {
      let id = strings.findSpan(output, start, end, hash);
      if (id >= 0 && strings.stamp[id] === out) {
        repeat(id, at);
        return false;
      }
      if (id < 0) {
        // A full table follows no new string: the rest of the session is judged on those it has.
        if (strings.size >= this.maxStrings) return false;
        id = strings.add(output, start, end, hash);
      }
      // The arrays may have grown.
      strings.stamp[id] = out;
      if (strings.seen[id] === 1) strings.local[id] = -1;
      else {
        if (count === fresh.ids.length) {
          fresh.ids = grown(fresh.ids);
          fresh.first = grown(fresh.first);
          fresh.last = grown(fresh.last);
        }
        strings.local[id] = count;
        fresh.ids[count] = id;
        fresh.first[count] = at;
        fresh.last[count] = at;
        count++;
        // Seen from now on: a later repeat in this output is found by its stamp first.
        strings.see(id);
      }
      return ++distinct >= MAX_STRINGS_PER_OUTPUT;
    });
    fresh.tailFloor = -1;
    if (stopped < output.length) {
      const floor = output.length - tail - 1 > stopped ? output.lastIndexOf('\n', output.length - tail - 1) : -1;
      if (floor > stopped) fresh.tailFloor = floor;
      forEachDistinctiveSpan(
        output,
        (start, end, hash, at) => {
          repeat(strings.findSpan(output, start, end, hash), at);
          return false;
        },
        Math.max(stopped, fresh.tailFloor),
      );
    }
    fresh.count = count;
    return fresh;
  }

  /**
   * Ends the session: the tables its strings were numbered in (tens of megabytes for a long
   * session; not the strings' characters) are handed to the next analyzer made on this
   * thread, unless the tables a session released before are larger, so the next session
   * grows them no more than it must. {@link results} and {@link unanswered} stay as they
   * are; {@link push} throws. A second call does nothing.
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (spare === undefined || spare.size < this.strings.size) spare = this.strings;
  }

  /** Calls seen whose output has not come (yet). */
  get unanswered(): number {
    return this.calls.size;
  }

  /** The figures of every call whose output was seen, in order. */
  readonly results: CallFigures[] = [];

  /** Marks the earlier outputs whose previews left out lines of `ranges` (of a file they showed numbered) as needed. */
  private readRanges(ranges: readonly LineRange[]): void {
    for (const range of ranges) {
      this.ranges.omissions(range, (output, bits) => {
        const figures = this.results[output];
        if (figures !== undefined) markNeeded(figures, bits, rangeExample(range));
      });
    }
  }

  private see(strings: Iterable<string>): void {
    for (const s of strings) {
      if (this.strings.seenCount >= MAX_SEEN) return;
      const id = this.strings.size < this.maxStrings ? this.strings.intern(s) : this.strings.find(s);
      if (id >= 0) this.strings.see(id);
    }
  }
}

/** How a needed line range is named among the examples: `path:first-last`. */
export function rangeExample(range: LineRange): string {
  return `${range.path}:${String(range.first)}-${String(range.last)}`;
}

/** A later call used `s`, which an output held only in what the previews `bits` names omit. */
function markNeeded(figures: CallFigures, bits: number, s: string): void {
  if ((bits & (1 << HOST_BIT)) !== 0) figures.neededHost = true;
  for (const [i, outcome] of figures.caps.entries()) {
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
