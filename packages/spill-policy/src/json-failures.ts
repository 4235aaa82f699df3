/**
 * Finds the failing entries of a JSON test report (vitest `--reporter=json`, jest `--json`,
 * mocha `--reporter json`, pytest-json-report) wherever they are, even inside one line of
 * many kilobytes that the line scan only reads the start of: a window of the text around
 * each `"status":"failed"`, non-empty `"failureMessages"`, `"outcome":"failed"`,
 * `"state":"failed"` or `"err":{"` with content, kept verbatim with its line number.
 */

/** What marks a failing entry. */
const FAILURE_RE = /"(?:status|outcome|state)":\s*"failed"|"failureMessages":\s*\[\s*"|"err":\s*\{\s*"(?:stack|message)"/g;
/** Code units kept before a mark (the test's name usually precedes its status). */
export const FRAGMENT_BEFORE = 160;
/** Code units kept from a mark on (the failure message follows it). */
export const FRAGMENT_AFTER = 320;
/** Fragments kept at most. */
export const FRAGMENT_LIMIT = 8;
/** Longest mark, in code units: a mark may straddle two chunks. */
const MARK_UNITS = 40;

/** A piece of one line around a failure mark, verbatim. */
export interface JsonFailure {
  /** The 1-based number of the line it is from. */
  readonly line: number;
  /** Where it starts in that line, in code units from the line's start. */
  readonly column: number;
  /** The text: at most {@link FRAGMENT_BEFORE} + {@link FRAGMENT_AFTER} code units of the line. */
  text: string;
}

/**
 * Scans text in chunks for failure marks. Keeps the last code units of the current line for
 * the look-back and fills an open fragment as later chunks arrive, so the answer is the same
 * for any chunking. Marks inside an earlier fragment's window are counted into it.
 */
export class JsonFailureScanner {
  #line = 1;
  /** The column of `#back[0]` in the current line. */
  #column = 0;
  /** The last code units of the current line seen (at most FRAGMENT_BEFORE + MARK_UNITS). */
  #back = '';
  /** The fragment still being filled, and how many more code units it takes. */
  #open: JsonFailure | undefined;
  #need = 0;
  /** Where the last fragment ends: marks before it on its line are inside it. */
  #endLine = 0;
  #endColumn = 0;
  readonly #found: JsonFailure[] = [];

  /** Code units held. For tests. */
  get retainedUnits(): number {
    let units = this.#back.length;
    for (const f of this.#found) units += f.text.length;
    return units;
  }

  /** Scans the next piece. */
  push(chunk: string): void {
    let from = 0;
    for (;;) {
      const at = chunk.indexOf('\n', from);
      if (this.#found.length >= FRAGMENT_LIMIT && this.#open === undefined) {
        // Nothing more is kept: only lines are counted.
        for (let k = at; k >= 0; k = chunk.indexOf('\n', k + 1)) this.#line++;
        return;
      }
      this.#piece(chunk, from, at < 0 ? chunk.length : at);
      if (at < 0) return;
      this.#finishOpen();
      this.#line++;
      this.#column = 0;
      this.#back = '';
      from = at + 1;
    }
  }

  /** The fragments, in order. */
  finish(): readonly JsonFailure[] {
    this.#finishOpen();
    return this.#found;
  }

  /** A piece of the current line, `chunk[from, to)`, without a line break. */
  #piece(chunk: string, from: number, to: number): void {
    const open = this.#open;
    if (open !== undefined) {
      const take = Math.min(this.#need, to - from);
      open.text += chunk.slice(from, from + take);
      this.#need -= take;
      if (this.#need === 0) this.#finishOpen();
    }
    // The look-back joined with this piece, so a mark split between chunks is found.
    const joined = this.#back + chunk.slice(from, to);
    const base = this.#column;
    FAILURE_RE.lastIndex = Math.max(0, this.#back.length - MARK_UNITS);
    for (let m = FAILURE_RE.exec(joined); m !== null && this.#open === undefined && this.#found.length < FRAGMENT_LIMIT; m = FAILURE_RE.exec(joined)) {
      const column = base + m.index;
      if (this.#line === this.#endLine && column < this.#endColumn) continue;
      let start = Math.max(0, m.index - FRAGMENT_BEFORE);
      const first = joined.charCodeAt(start);
      if (base + start > 0 && first >= 0xdc00 && first <= 0xdfff) start++;
      const end = Math.min(joined.length, m.index + FRAGMENT_AFTER);
      const fragment: JsonFailure = { line: this.#line, column: base + start, text: joined.slice(start, end) };
      this.#found.push(fragment);
      this.#open = fragment;
      this.#need = m.index + FRAGMENT_AFTER - end;
      if (this.#need === 0) this.#finishOpen();
      FAILURE_RE.lastIndex = end;
    }
    const keep = FRAGMENT_BEFORE + MARK_UNITS;
    if (joined.length <= keep) this.#back = joined;
    else {
      this.#back = joined.slice(joined.length - keep);
      this.#column = base + joined.length - keep;
    }
  }

  /** Closes the open fragment. */
  #finishOpen(): void {
    const f = this.#open;
    if (f === undefined) return;
    const last = f.text.charCodeAt(f.text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) f.text = f.text.slice(0, -1);
    f.text = f.text.length < 13 ? f.text : (f.text + ' ').slice(0, -1);
    this.#endLine = f.line;
    this.#endColumn = f.column + f.text.length;
    this.#open = undefined;
    this.#need = 0;
  }
}
