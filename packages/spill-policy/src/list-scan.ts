/**
 * Finds whether a text is a list (one item per line: paths, `ls -l` rows, `grep -n` hits,
 * `git log --oneline`, NDJSON records, `name - summary` search results, numbered or bulleted results, the members of a
 * pretty-printed JSON array) and keeps an evenly spaced sample of its lines over the whole
 * text, in one pass and bounded memory, for an outline the model can pick an item from.
 */

import { LINE_NUMBER_RE, LINE_NUMBER_SOURCE } from './numbered-view.js';

/** Code units of a sampled line kept; the outline cuts it shorter still. */
export const SAMPLE_UNITS = 160;
/** Lines of the start looked at to decide whether the text is a list. */
export const LIST_SAMPLE_LINES = 64;
/** Fewer lines than this: too few to call a list. */
const LIST_MIN_LINES = 16;
/** Share of the first lines that must look like list items. */
const LIST_SHARE = 0.75;
/** Lines longer than this (code units) are not list items; a list has few of them. */
const LONG_LINE_UNITS = 400;

/**
 * One line as a list item: a path, an `ls -l`/`dpkg -l` row, a `grep -n` hit, a commit of
 * `git log --oneline`, an NDJSON record, a numbered or bulleted entry, a `key: value` or
 * columns row, or a line of pretty-printed JSON (a member, a string element, a bracket).
 */
const LINE_ITEM_SOURCES: readonly string[] = [
    String.raw`\.{0,2}\/?[\w.@+~-]+(?:\/[\w.@+~ -]*)+`, // a path
    String.raw`[-dlcbps][-rwxsStT]{9}[.+@]? .*`, // ls -l
    String.raw`total \d+`, // ls -l's first line
    String.raw`[^\s:][^:]*:\d+[:-].*`, // grep -n
    String.raw`[0-9a-f]{7,40} .+`, // git log --oneline
    String.raw`\s*\{.*\},?`, // an NDJSON record (or a compact object in an array)
    String.raw`\s*(?:\d+[.)]|[-*\u2022+]|#\d+)\s+\S.*`, // numbered or bulleted (\u2022 is the bullet: the source stays ASCII)
    String.raw`\s*(?:"(?:[^"\\]|\\.)*"\s*:\s*.*|"(?:[^"\\]|\\.)*",?|[{}[\]],?|[{[]|\}\],?|\]\},?)`, // pretty JSON
    String.raw`[a-z][a-zA-Z][a-zA-Z ]? +\S+ +\S+ +.*`, // dpkg -l
    String.raw`\s*(?!L\d+:)['"]?[@\w/.~^-]+['"]?:(?: .*)?`, // key: value (not a page's line number)
    String.raw`\s*\S+(?: {2,}\S+){2,}\s*`, // columns
    String.raw`https?:\/\/\S+.*`, // a URL
    String.raw`[\w.+@:/-]+ - \S.*`, // a search result: a name, then its summary (apt-cache search, whatis)
  String.raw`\s*\S.*\|\s+(?:\d+ ?[-+]*|Bin .*)`, // a diffstat row (git diff --stat, git log --stat)
  String.raw`\s*\d+ files? changed(?:, .*)?`, // its summary
];
/**
 * The items, and a numbered line when what follows its number is an item, one word
 * (`ls | nl`) or tab-separated fields (`git diff --numstat`, a table with an id column). A
 * numbered file view (`nl -ba file`, a host's Read, a page) is a document read in place,
 * not a list: its prose and code are judged as they are, and the outline's cut lines would
 * lose what an edit replaces. (Numbers that do not run in turn, such as `git shortlog -sn`'s
 * counts, make a line an item whatever follows: see {@link ListScanner}.)
 */
const ITEM_SOURCES: readonly string[] = [
  ...LINE_ITEM_SOURCES,
  String.raw`(?:${LINE_NUMBER_SOURCE})(?:${LINE_ITEM_SOURCES.map((x) => `(?:${x})`).join('|')}|\S+|.*\t.*)`,
];
/** The kind of a numbered line. */
const NUMBERED_KIND = ITEM_SOURCES.length - 1;
const ITEM_RE = new RegExp(`^(?:${ITEM_SOURCES.map((x) => `(?:${x})`).join('|')})$`);
/** Each kind of item alone, to tell an item from an intruder of another shape. */
const ITEM_KINDS: readonly RegExp[] = ITEM_SOURCES.map((x) => new RegExp(`^(?:${x})$`));

/**
 * A log record: a line that starts with a timestamp, an access log's `[10/Oct/2026:13:55:36`
 * or a level word (`info:`, `[WARN]`), or a JSON record with a level or time field. A log is not a list: its records matter by
 * severity, which the salient preview shows, not by position.
 */
const LOG_RE =
  /^\s*\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|^\S+ \S+ \S+ \[\d{2}\/\w{3}\/\d{4}:\d{2}:\d{2}|^\s*\{.*"(?:level|severity|lvl|time|ts|timestamp|@timestamp)":|^\s*\[?(?:info|INFO|Info|warn|WARN|Warn|warning|WARNING|Warning|debug|DEBUG|Debug|trace|TRACE|verbose|VERBOSE|notice|NOTICE)\b[\]:]?/;

/** Whether one line (without its line break) looks like a list item. */
export function isListItem(line: string): boolean {
  return line.length <= LONG_LINE_UNITS && ITEM_RE.test(line);
}

/** Which kind of item a line is (an index into the kinds), or -1 when it is none. */
export function itemKind(line: string): number {
  if (!isListItem(line)) return -1;
  return ITEM_KINDS.findIndex((re) => re.test(line));
}

/** A line of the sample: its 1-based number and its first code units, verbatim. */
export interface SampledLine {
  readonly line: number;
  /** At most {@link SAMPLE_UNITS} code units, without the line break (nor a `\r` before it). */
  readonly text: string;
  /** Whether the line is longer than `text`. */
  readonly cut: boolean;
}

/** What the list scan found. */
export interface ListScan {
  /** Lines sampled, in order: every `stride`-th line from line 1. */
  readonly sample: readonly SampledLine[];
  /** The distance between sampled lines. */
  readonly stride: number;
  /** The kinds of item (see {@link itemKind}) among the first {@link LIST_SAMPLE_LINES} lines. */
  readonly kinds: readonly number[];
}

/** How many lines the sample keeps for a cap: an outline line costs at least about 16 bytes. */
export function sampleLimit(cap: number): number {
  return Math.max(32, Math.min(2048, Math.floor(cap / 16)));
}

/** What one cap keeps of the sample. */
interface SampleTier {
  readonly limit: number;
  stride: number;
  sample: SampledLine[];
}

/**
 * Scans a text in chunks. Decides on line shapes alone: the first
 * {@link LIST_SAMPLE_LINES} lines must mostly look like items and at most half like log
 * records, and few lines of the whole may be long. Keeps every `stride`-th line, doubling the stride (and dropping every
 * other kept line) whenever the sample outgrows its limit, so it spans the whole text
 * whatever its length. The answer is the same for any chunking. Given several caps, it
 * reads each line once and keeps one sample per cap, each what a scanner of that cap alone
 * would keep.
 */
export class ListScanner {
  /** One per distinct {@link sampleLimit}: caps of one limit keep the same sample, so they share one. */
  readonly #tiers: SampleTier[];
  /** Per cap, in the order given: the index of its tier. */
  readonly #tierOfCap: number[];
  #line = 1;
  #carry = '';
  #carryLength = 0;
  #open = false;
  #firstLines = 0;
  #firstItems = 0;
  #long = 0;
  #firstLogs = 0;
  readonly #kinds = new Set<number>();
  /** The number of the last numbered line among the first lines, -1 before one. */
  #lastNumber = -1;
  /** Set once the first lines rule a list out: nothing more is looked at. */
  #ruledOut = false;
  /** The next line some cap samples: the lines before it skip the pass over the caps. */
  #nextSampled = 1;

  constructor(cap: number | readonly number[]) {
    const caps = typeof cap === 'number' ? [cap] : cap;
    const limits = caps.map(sampleLimit);
    const distinct = [...new Set(limits)];
    this.#tiers = distinct.map((limit) => ({ limit, stride: 1, sample: [] }));
    this.#tierOfCap = limits.map((limit) => distinct.indexOf(limit));
  }

  /** Code units held (each kept line once). For tests. */
  get retainedUnits(): number {
    let units = this.#carry.length;
    for (const s of new Set(this.#tiers.flatMap((t) => t.sample))) units += s.text.length;
    return units;
  }

  /** Scans the next piece. */
  push(chunk: string): void {
    if (this.#ruledOut) return;
    let from = 0;
    for (let at = chunk.indexOf('\n'); at >= 0; at = chunk.indexOf('\n', from)) {
      if (this.#carryLength === 0) this.#lineEnded(chunk, from, at);
      else {
        this.#extend(chunk, from, at);
        this.#lineEnded(this.#carry, 0, this.#carry.length, this.#carryLength);
        this.#carry = '';
        this.#carryLength = 0;
      }
      from = at + 1;
      if (this.#stopped()) return;
    }
    this.#extend(chunk, from, chunk.length);
    this.#open = this.#carryLength > 0;
  }

  /** Ends the text: the sample when the text is a list, else `undefined` (for the first cap). */
  finish(): ListScan | undefined {
    return this.finishAll()[0];
  }

  /** Ends the text and answers for each cap, in the order given. */
  finishAll(): (ListScan | undefined)[] {
    if (this.#ruledOut) return this.#tierOfCap.map(() => undefined);
    if (this.#open) {
      this.#lineEnded(this.#carry, 0, this.#carry.length, this.#carryLength);
      this.#carry = '';
      this.#open = false;
    }
    const lines = this.#line - 1;
    const isList =
      this.#firstLines >= LIST_MIN_LINES &&
      this.#firstItems >= this.#firstLines * LIST_SHARE &&
      this.#firstLogs * 2 < this.#firstLines &&
      this.#long * 20 <= lines;
    const kinds = [...this.#kinds].sort((a, b) => a - b);
    return this.#tierOfCap.map((k) => {
      const t = this.#tiers[k] as SampleTier;
      return isList ? { sample: t.sample, stride: t.stride, kinds } : undefined;
    });
  }

  /** Whether the line just ended ruled the list out (a call, so that the check is not narrowed away). */
  #stopped(): boolean {
    return this.#ruledOut;
  }

  #extend(chunk: string, from: number, to: number): void {
    this.#carryLength += to - from;
    const room = SAMPLE_UNITS + 1 - this.#carry.length;
    if (room > 0 && to > from) this.#carry += chunk.slice(from, Math.min(to, from + room));
  }

  /** The line `s[from, to)` (of `length` code units in all) ended. */
  #lineEnded(s: string, from: number, to: number, length = to - from): void {
    const n = this.#line++;
    let full = length;
    let end = Math.min(to, from + SAMPLE_UNITS + 1);
    if (full <= SAMPLE_UNITS + 1 && full > 0 && s.charCodeAt(end - 1) === 0x0d) {
      full--;
      end--;
    }
    if (full > LONG_LINE_UNITS) this.#long++;
    if (n <= LIST_SAMPLE_LINES) {
      this.#firstLines++;
      const line = s.slice(from, end);
      let kind = full <= LONG_LINE_UNITS ? itemKind(line) : -1;
      const numbered = LINE_NUMBER_RE.exec(line);
      if (numbered !== null) {
        const number = Number(numbered[1] ?? numbered[2]);
        // Numbers that do not run in turn (counts, ids) are a list's whatever follows them;
        // a file view's run in turn, and its lines are judged by their text.
        if (kind < 0 && full <= LONG_LINE_UNITS && this.#lastNumber >= 0 && number !== this.#lastNumber + 1) kind = NUMBERED_KIND;
        this.#lastNumber = number;
      }
      if (kind >= 0) {
        this.#firstItems++;
        this.#kinds.add(kind);
      }
      if (LOG_RE.test(line)) this.#firstLogs++;
      // The first lines decide alone whether the text can be a list: a log is not one, however long.
      if (n === LIST_SAMPLE_LINES && (this.#firstItems < this.#firstLines * LIST_SHARE || this.#firstLogs * 2 >= this.#firstLines)) {
        this.#ruledOut = true;
        for (const t of this.#tiers) t.sample = [];
        this.#carry = '';
        return;
      }
    }
    if (n < this.#nextSampled) return;
    let sampled: SampledLine | undefined;
    let next = Number.POSITIVE_INFINITY;
    for (const t of this.#tiers) {
      if ((n - 1) % t.stride === 0) {
        sampled ??= sampleOf(s, from, end, full, n);
        t.sample.push(sampled);
        if (t.sample.length > t.limit) {
          t.stride *= 2;
          t.sample = t.sample.filter((x) => (x.line - 1) % t.stride === 0);
        }
      }
      next = Math.min(next, nextSampledAfter(n, t.stride));
    }
    this.#nextSampled = next;
  }
}

/** The first line after line `n` that a sample of stride `stride` keeps: every `stride`-th line from line 1. */
export function nextSampledAfter(n: number, stride: number): number {
  return Math.ceil(n / stride) * stride + 1;
}

/** Line `n`, `s[from, end)` of `full` code units, as the sample keeps it. */
function sampleOf(s: string, from: number, end: number, full: number, n: number): SampledLine {
  let text = s.slice(from, Math.min(end, from + SAMPLE_UNITS));
  const last = text.charCodeAt(text.length - 1);
  if (full > text.length && last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1);
  return { line: n, text: text.length < 13 ? text : (text + ' ').slice(0, -1), cut: full > text.length };
}
