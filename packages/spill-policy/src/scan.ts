import { JsonFailureScanner, type JsonFailure } from './json-failures.js';
import { JsonShapeScanner, type JsonShape } from './json-shape.js';
import { ListScanner, type ListScan } from './list-scan.js';
import { lineStart, linePrefilter, type LinePrefilter } from './line-prefilter.js';
import { hashOfShape, LINE_SCAN_UNITS, severityOf, severityOfAdmitted, ShapeReader } from './salient.js';

/** Lines of one shape kept apart before the next ones are counted as a flood into the last of them. */
export const FLOOD_KEEP = 3;

/** Code units of a line an excerpt shows at most; a longer line is shown cut, and says so. */
export const EXCERPT_UNITS = 400;

/** One line of the original, as an excerpt shows it. */
export interface ExcerptLine {
  /** Its 1-based line number (what `spill_read`'s offset takes). */
  readonly line: number;
  /** The line's first code units, verbatim, without its line break (nor a `\r` before it). */
  readonly text: string;
  /** Whether the line is longer than `text`. */
  readonly cut: boolean;
}

/** A salient line, with what the scan saw around it. */
export interface Candidate extends ExcerptLine {
  /** How important it is (see `salient.ts`). */
  readonly severity: number;
  /** The line before it, when there is one. */
  readonly before: ExcerptLine | undefined;
  /** The line after it, when there is one. */
  after: ExcerptLine | undefined;
  /** Lines of its shape counted into it (a flood), itself included. */
  count: number;
  /** The number of the last of them. */
  lastLine: number;
  /** The last of them, when there is more than one. */
  last: ExcerptLine | undefined;
  /** Its shape, for collapsing floods. */
  readonly shape: string;
  /** A piece of a long line (a JSON report's failing entry), which head and tail may show only in part. */
  readonly fragment?: boolean;
  /** For a fragment: where it starts in its line, in code units. */
  readonly column?: number;
}

/** What one pass over the text found. */
export interface PreviewScan {
  /** Lines in the text (a last line without a line break counts). */
  readonly lines: number;
  /** Salient lines seen, by severity (index = severity). */
  readonly salientBySeverity: readonly number[];
  /** The kept candidates, best first: severity, then position. */
  readonly candidates: readonly Candidate[];
  /** The JSON shape, when the whole text is one JSON object or array. */
  readonly json: JsonShape | undefined;
  /** An evenly spaced sample of the lines, when the text is a list (see `list-scan.ts`). */
  readonly list: ListScan | undefined;
  /** Failing entries of a JSON test report, when the whole text is JSON and has any. */
  readonly failures: readonly JsonFailure[];
}

/** How many candidates a scan keeps for a cap: each shown line costs at least tens of bytes. */
export function candidateLimit(cap: number): number {
  return Math.max(16, Math.min(256, Math.floor(cap / 48)));
}

/** What a scan keeps for one cap: its best candidates (its sample of a list is the list scanner's). */
interface Tier {
  readonly limit: number;
  readonly set: Candidate[];
  /** Candidates waiting for the line after them. */
  awaiting: Candidate[];
}

/**
 * One shape's state in every cap at once, so that a line's shape is looked up once however
 * many caps there are: for cap `k`, while the latest of its lines that cap keeps is kept,
 * `latest[k]` is that line and `kept[k]` how many of the shape's lines it kept apart.
 */
interface ShapeState {
  readonly shape: string;
  /** {@link hashOfShape} of `shape`, its key in the map. */
  readonly hash: number;
  /** The next state whose shape has the same hash. */
  next: ShapeState | undefined;
  readonly kept: number[];
  readonly latest: (Candidate | undefined)[];
  /** The caps whose `latest` is set; the state is dropped when none is, so that memory stays bounded. */
  live: number;
  /** Whether a flooding line of it holds a `last` not yet copied out of its chunk (see {@link PreviewScanner}'s `#settle`). */
  loose: boolean;
  /** The caps whose latest line of it floods (`latest[k]` set and `kept[k]` at {@link FLOOD_KEEP}). */
  floods: number;
  /**
   * Lines counted into the floods of every cap at once but not yet into their latest
   * candidates: while every cap floods, a line costs a count rather than a pass over the
   * caps. Applied by {@link PreviewScanner}'s `#flush` before the state changes and when a push ends.
   */
  pending: number;
  /** The last of those lines, as a view of the chunk, and its number. */
  pendingView: LineView | undefined;
  pendingLine: number;
}

/**
 * Finds salient lines in one pass over text that arrives in chunks, holding a bounded set
 * of candidates (never more than {@link candidateLimit}) and at most one partial line of
 * {@link LINE_SCAN_UNITS} code units. Every decision depends on whole lines only, so the
 * result is the same for any chunking of the same text.
 */
export class PreviewScanner {
  /**
   * One per distinct {@link candidateLimit}: every line is classified once, and what each
   * limit keeps of it kept apart. Caps of one limit keep the same candidates, so they share a tier.
   */
  readonly #tiers: Tier[];
  /** Per cap, in the order given: the index of its tier. */
  readonly #tierOfCap: number[];
  /** The shapes some cap keeps a line of, by {@link hashOfShape} (a chain of states for each hash). */
  readonly #shapes = new Map<number, ShapeState>();
  readonly #shape = new ShapeReader();
  /** The state of the last salient line: the next is checked against its shape first, since floods are runs of one shape. */
  #lastState: ShapeState | undefined;
  /** Shapes whose floods took a last line during this push, as a view of the chunk: copied once the push ends. */
  #loose: ShapeState[] = [];
  readonly #prefilter: LinePrefilter;
  /** One list scan for every cap: each line is read once, and each cap keeps its own sample. */
  readonly #list: ListScanner;
  #lineNo = 1;
  #carry = '';
  #carryLength = 0;
  #prev: ExcerptLine | undefined;
  readonly #bySeverity = [0, 0, 0, 0, 0, 0];
  #json: JsonShapeScanner | undefined = new JsonShapeScanner();
  /** Fed only while the text may still be JSON; its answer is used only when it is. */
  readonly #failures = new JsonFailureScanner();
  #endsOpen = false;
  #work = 0;
  /** Whether some cap has candidates waiting for the line after them. */
  #awaits = false;

  /**
   * @param cap - the cap, or several: {@link finishAll} then answers one scan per cap, as separate scanners would.
   * @param prefilter - how blocks of lines are searched for candidates (the fastest there is, unless a test picks one).
   */
  constructor(cap: number | readonly number[], prefilter: LinePrefilter = linePrefilter()) {
    this.#prefilter = prefilter;
    const caps = typeof cap === 'number' ? [cap] : cap;
    const limits = caps.map(candidateLimit);
    const distinct = [...new Set(limits)];
    this.#tiers = distinct.map((limit) => ({ limit, set: [], awaiting: [] }));
    this.#tierOfCap = limits.map((limit) => distinct.indexOf(limit));
    this.#list = new ListScanner(caps);
  }

  /** Code units held (the partial line and the candidates' texts). For tests. */
  get retainedUnits(): number {
    let units = this.#carry.length + this.#failures.retainedUnits + this.#list.retainedUnits;
    for (const t of this.#tiers) {
      for (const c of t.set) units += c.text.length + (c.before?.text.length ?? 0) + (c.after?.text.length ?? 0) + c.shape.length;
    }
    return units;
  }

  /**
   * Code units read so far, counting a line once for each time it is looked at (scanned,
   * classified, copied as context): at most a few times the text's length. For tests.
   */
  get work(): number {
    return this.#work;
  }

  /** Scans the next piece of the text. */
  push(chunk: string): void {
    if (chunk.length === 0) return;
    if (this.#json !== undefined && !this.#json.push(chunk)) this.#json = undefined;
    if (this.#json !== undefined) this.#failures.push(chunk);
    this.#list.push(chunk);
    const first = chunk.indexOf('\n');
    if (first < 0) {
      this.#extendCarry(chunk, 0, chunk.length);
      this.#endsOpen = true;
      return;
    }
    this.#extendCarry(chunk, 0, first);
    const carried = this.#carry;
    const length = this.#carryLength;
    this.#carry = '';
    this.#carryLength = 0;
    this.#lineEnded(viewOf(carried, 0, carried.length, length));
    const last = chunk.lastIndexOf('\n');
    if (last > first) this.#block(chunk, first + 1, last + 1);
    this.#extendCarry(chunk, last + 1, chunk.length);
    this.#endsOpen = last + 1 < chunk.length;
    this.#settle();
  }

  /**
   * Copies the last lines of floods out of the chunk: a flood's last line changes with each
   * line of it, so it is copied once per push rather than once per line. Only a flood's
   * latest candidate takes a last line, and it stays the latest while kept.
   */
  #settle(): void {
    for (const state of this.#loose) {
      state.loose = false;
      let loose: ExcerptLine | undefined;
      let settled: ExcerptLine | undefined;
      for (const c of state.latest) {
        if (c?.last === undefined) continue;
        if (c.last !== loose) {
          loose = c.last;
          settled = { ...loose, text: detach(loose.text) };
        }
        c.last = settled;
      }
      // Pending lines all come after any flood line the loop copied.
      this.#flush(state);
    }
    this.#loose = [];
  }

  /** Counts a state's pending flood lines into every cap's latest candidate of it. */
  #flush(state: ShapeState): void {
    const view = state.pendingView;
    if (view === undefined) return;
    const lineNo = state.pendingLine;
    const last = excerptOf(view, lineNo);
    for (const c of state.latest) {
      if (c === undefined) continue;
      c.count += state.pending;
      c.lastLine = lineNo;
      c.last = last;
    }
    state.pending = 0;
    state.pendingView = undefined;
  }

  /** Ends the text and answers what was found (for the first cap). */
  finish(): PreviewScan {
    return this.finishAll()[0] as PreviewScan;
  }

  /** Ends the text and answers what was found for each cap, in the order given. */
  finishAll(): PreviewScan[] {
    if (this.#endsOpen) {
      const carried = this.#carry;
      this.#lineEnded(viewOf(carried, 0, carried.length, this.#carryLength));
      this.#carry = '';
      this.#settle();
    }
    const lines = this.#lineNo - 1;
    const json = this.#json?.finish();
    const failures = json === undefined ? [] : this.#failures.finish();
    const lists = this.#list.finishAll();
    return this.#tierOfCap.map((t, k) => ({ lines, salientBySeverity: [...this.#bySeverity], candidates: (this.#tiers[t] as Tier).set, json, list: lists[k], failures }));
  }

  #extendCarry(chunk: string, from: number, to: number): void {
    this.#carryLength += to - from;
    const room = LINE_SCAN_UNITS - this.#carry.length;
    if (room > 0 && to > from) this.#carry += chunk.slice(from, Math.min(to, from + room));
  }

  /** The line `view` (number `this.#lineNo`) ended. */
  #lineEnded(view: LineView): void {
    const here = this.#lineNo;
    this.#work += view.scan.length + 1;
    this.#fillAwaiting(view, here);
    const severity = severityOf(view.scan);
    if (severity > 0) this.#consider(severity, view, here, undefined, 0, 0);
    this.#prev = excerptOf(view, here);
    this.#lineNo = here + 1;
  }

  #fillAwaiting(view: LineView, lineNo: number): void {
    if (!this.#awaits) return;
    this.#awaits = false;
    const line = excerptOf(view, lineNo);
    for (const t of this.#tiers) {
      for (const c of t.awaiting) c.after = line;
      t.awaiting = [];
    }
  }

  /**
   * Scans `s[from, to)`, which holds whole lines, each ending with a line break: the
   * prefilter counts the line breaks and finds the lines that may be salient, and only those
   * are classified.
   */
  #block(s: string, from: number, to: number): void {
    const base = this.#lineNo;
    this.#work += this.#prefilter.passes * (to - from);
    if (this.#awaits) {
      const end = s.indexOf('\n', from);
      this.#fillAwaiting(viewAt(s, from, end), base);
    }
    const hits = this.#prefilter.admit(s, from, to);
    for (let k = 0; k < hits.starts.length; k++) {
      const ls = hits.starts[k] ?? from;
      const lineNo = base + (hits.lines[k] ?? 0);
      const le = s.indexOf('\n', ls);
      const view = viewAt(s, ls, le);
      this.#work += view.scan.length;
      // Every line a rule rates holds a trigger. Where the prefilter was not exact, the
      // triggers first: on real logs most lines the trigrams admit hold none, and the
      // triggers turn them away for less than the rules' patterns and exceptions cost, with
      // the same answer. Only those the line can hold, when the prefilter knows them.
      const held = hits.held?.[k];
      const severity = held !== undefined ? held.severity(view.scan) : this.#prefilter.exact ? severityOfAdmitted(view.scan) : severityOf(view.scan);
      if (severity > 0) {
        this.#consider(severity, view, lineNo, ls === from ? undefined : s, ls, from);
        if (le + 1 < to && this.#awaits) this.#fillAwaiting(viewAt(s, le + 1, s.indexOf('\n', le + 1)), lineNo + 1);
      }
    }
    this.#lineNo = base + hits.newlines;
    this.#prev = excerptOf(viewAt(s, lineStart(s, to - 1, from), to - 1), this.#lineNo - 1);
  }

  /**
   * Keeps a salient line, for each cap, if it ranks among the best, or counts it into a flood.
   * The line before it is `s`'s line before `s[ls]` (not before `s[from]`), or, without `s`,
   * the previous line: made only when some cap keeps the line, since in a flood most are not.
   */
  #consider(severity: number, view: LineView, lineNo: number, s: string | undefined, ls: number, from: number): void {
    this.#bySeverity[severity] = (this.#bySeverity[severity] ?? 0) + 1;
    const reader = this.#shape;
    const shapes = this.#shapes;
    const tiers = this.#tiers;
    // A state some cap still keeps a line of is in the map (the others are dropped).
    const guess = this.#lastState;
    let hash = 0;
    let state: ShapeState | undefined;
    if (guess !== undefined && guess.live > 0 && reader.matches(view.scan, guess.shape)) state = guess;
    else {
      hash = reader.read(view.scan);
      state = shapes.get(hash);
      while (state !== undefined && !reader.equals(state.shape)) state = state.next;
      this.#lastState = state;
    }
    if (state !== undefined && state.floods === tiers.length) {
      // Every cap counts the line into its flood: counted once here, into each cap's candidate by `#flush`.
      state.pending++;
      state.pendingLine = lineNo;
      state.pendingView = view;
      if (!state.loose) {
        state.loose = true;
        this.#loose.push(state);
      }
      return;
    }
    let line: ExcerptLine | undefined;
    let flood: ExcerptLine | undefined;
    let before: ExcerptLine | undefined;
    let beforeMade = false;
    for (let k = 0; k < tiers.length; k++) {
      const t = tiers[k] as Tier;
      const latest = state?.latest[k];
      if (latest !== undefined && (state?.kept[k] ?? 0) >= FLOOD_KEEP) {
        latest.count++;
        latest.lastLine = lineNo;
        latest.last = line ?? (flood ??= excerptOf(view, lineNo, false));
        if (state !== undefined && !state.loose) {
          state.loose = true;
          this.#loose.push(state);
        }
        continue;
      }
      const set = t.set;
      if (set.length >= t.limit) {
        const worst = set[set.length - 1] as Candidate;
        if (worst.severity >= severity) continue;
        set.pop();
        const ws = state?.shape === worst.shape ? state : this.#stateOf(worst.shape);
        if (ws !== undefined && ws.latest[k] === worst) {
          this.#flush(ws);
          if ((ws.kept[k] ?? 0) >= FLOOD_KEEP) ws.floods--;
          ws.latest[k] = undefined;
          ws.kept[k] = 0;
          // This line's own state is dropped, if need be, once every cap has had it.
          if (--ws.live === 0 && ws !== state) this.#drop(ws);
        }
      }
      line ??= excerptOf(view, lineNo);
      if (!beforeMade) {
        before = s === undefined ? this.#prev : excerptOf(viewAt(s, lineStart(s, ls - 1, from), ls - 1), lineNo - 1);
        beforeMade = true;
      }
      const shape = state?.shape ?? reader.text();
      const candidate: Candidate = { ...line, severity, before, after: undefined, count: 1, lastLine: lineNo, last: undefined, shape };
      // Later than every kept line, so it goes after all of at least its severity.
      let at = set.length;
      while (at > 0 && (set[at - 1] as Candidate).severity < severity) at--;
      set.splice(at, 0, candidate);
      if (state === undefined) {
        state = { shape, hash, next: shapes.get(hash), kept: tiers.map(() => 0), latest: tiers.map(() => undefined), live: 0, loose: false, floods: 0, pending: 0, pendingView: undefined, pendingLine: 0 };
        shapes.set(hash, state);
      }
      if (state.latest[k] === undefined) state.live++;
      const kept = (state.kept[k] ?? 0) + 1;
      state.kept[k] = kept;
      if (kept === FLOOD_KEEP) state.floods++;
      state.latest[k] = candidate;
      t.awaiting.push(candidate);
      this.#awaits = true;
    }
    this.#lastState = state;
    if (state !== undefined && state.live === 0) this.#drop(state);
  }

  /** The state of `shape`, when some cap keeps a line of it. */
  #stateOf(shape: string): ShapeState | undefined {
    let state = this.#shapes.get(hashOfShape(shape));
    while (state !== undefined && state.shape !== shape) state = state.next;
    return state;
  }

  /** Forgets a state no cap needs. */
  #drop(state: ShapeState): void {
    const hash = state.hash;
    const first = this.#shapes.get(hash);
    if (first === state) {
      if (state.next === undefined) this.#shapes.delete(hash);
      else this.#shapes.set(hash, state.next);
      return;
    }
    for (let at = first; at !== undefined; at = at.next) {
      if (at.next === state) {
        at.next = state.next;
        return;
      }
    }
  }
}

/** A line as the scan sees it: its first code units, and its full length. */
interface LineView {
  /** At most {@link LINE_SCAN_UNITS} code units, without a final `\r` when the line is whole. */
  readonly scan: string;
  /** The whole line's length in code units, without a final `\r`. */
  readonly length: number;
}

/** The view of `s[ls, le)` (`le` is the line break's index, or -1 for the end). */
function viewAt(s: string, ls: number, le: number): LineView {
  const end = le < 0 ? s.length : le;
  return viewOf(s, ls, end, end - ls);
}

/** The view of a line that starts at `s[ls]`, of `fullLength` code units, of which `s` holds those before `end`. */
function viewOf(s: string, ls: number, end: number, fullLength: number): LineView {
  let length = fullLength;
  let stop = Math.min(end, ls + LINE_SCAN_UNITS);
  // When the line is whole, `stop` is its end.
  if (length <= LINE_SCAN_UNITS && length > 0 && s.charCodeAt(stop - 1) === 0x0d) {
    length--;
    stop--;
  }
  return { scan: s.slice(ls, stop), length };
}

/** Line `line` as an excerpt shows it; `copied: false` leaves its text a view of the chunk, for the caller to copy before the push ends. */
function excerptOf(view: LineView, line: number, copied = true): ExcerptLine {
  let text = view.scan.length <= EXCERPT_UNITS ? view.scan : view.scan.slice(0, EXCERPT_UNITS);
  const last = text.charCodeAt(text.length - 1);
  if (text.length < view.scan.length && last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1);
  return { line, text: copied ? detach(text) : text, cut: text.length < view.length };
}

/** A fresh copy, so a kept excerpt never pins a large chunk in memory. */
function detach(text: string): string {
  return text.length < 13 ? text : (text + ' ').slice(0, -1);
}
