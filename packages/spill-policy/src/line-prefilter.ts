import { blockPrefilters, type TriggerSubset } from './salient.js';
import { createTrigramPrefilter } from './trigram-prefilter.js';

/** The lines of a block that a prefilter admits. */
export interface BlockHits {
  /** Where each admitted line starts in the string, ascending. */
  readonly starts: readonly number[];
  /** Each one's index in the block: the line breaks between the block's start and it. */
  readonly lines: readonly number[];
  /** The line breaks in the block. */
  readonly newlines: number;
  /**
   * From an inexact prefilter that knows more: for each admitted line, the only triggers it
   * can hold, which rate it with the same answer as all of them.
   */
  readonly held?: readonly TriggerSubset[];
}

/**
 * Finds, in a block of whole lines, those that may be salient: every line that holds one of
 * the rules' triggers, and possibly others (the rules then rate them 0).
 */
export interface LinePrefilter {
  /** Passes over each code unit, for the scanner's work count. */
  readonly passes: number;
  /**
   * Whether it admits exactly the lines that hold a trigger. An inexact one admits more
   * (lines that only look like one to it), and those are checked for a trigger before the
   * rules rate them.
   */
  readonly exact: boolean;
  /** The admitted lines of `s[from, to)`, which ends with a line break. */
  admit(s: string, from: number, to: number): BlockHits;
}

/** The triggers' regular expressions run over the block: exact, and about ten times a line count. */
export class RegexLinePrefilter implements LinePrefilter {
  readonly #res = blockPrefilters();
  readonly passes = this.#res.length + 1;
  readonly exact = true;

  admit(s: string, from: number, to: number): BlockHits {
    const found: number[] = [];
    for (const re of this.#res) {
      re.lastIndex = from;
      for (let m = re.exec(s); m !== null && m.index < to; m = re.exec(s)) {
        found.push(lineStart(s, m.index, from));
        re.lastIndex = s.indexOf('\n', m.index) + 1; // one hit per line is enough
      }
    }
    if (this.#res.length > 1) found.sort((a, b) => a - b);
    const starts: number[] = [];
    const lines: number[] = [];
    let line = 0;
    let counted = from; // line breaks before `counted` are in `line`
    for (const start of found) {
      if (start === starts.at(-1)) continue;
      for (let k = s.indexOf('\n', counted); k >= 0 && k < start; k = s.indexOf('\n', counted)) {
        line++;
        counted = k + 1;
      }
      starts.push(start);
      lines.push(line);
    }
    for (let k = s.indexOf('\n', counted); k >= 0 && k < to; k = s.indexOf('\n', k + 1)) line++;
    return { starts, lines, newlines: line };
  }
}

/** Where the line holding `s[at]` starts, never before `from`. */
export function lineStart(s: string, at: number, from: number): number {
  return at <= from ? from : Math.max(from, s.lastIndexOf('\n', at - 1) + 1);
}

/**
 * A prefilter that gives way to another, for good, the first time it throws: a fault in
 * the fast one (a WebAssembly trap) must cost speed, never a preview.
 */
export class FallingBackPrefilter implements LinePrefilter {
  #current: LinePrefilter;
  readonly #fallback: () => LinePrefilter;

  constructor(first: LinePrefilter, fallback: () => LinePrefilter) {
    this.#current = first;
    this.#fallback = fallback;
  }

  get passes(): number {
    return this.#current.passes;
  }

  get exact(): boolean {
    return this.#current.exact;
  }

  admit(s: string, from: number, to: number): BlockHits {
    try {
      return this.#current.admit(s, from, to);
    } catch {
      this.#current = this.#fallback();
      return this.#current.admit(s, from, to);
    }
  }
}

let shared: LinePrefilter | undefined;

/**
 * The fastest prefilter this runtime offers: the trigram prefilter where WebAssembly with
 * SIMD can be compiled, else the regular expressions. Both find the same salient lines.
 */
export function linePrefilter(): LinePrefilter {
  if (shared === undefined) {
    const trigrams = createTrigramPrefilter();
    shared = trigrams === undefined ? new RegexLinePrefilter() : new FallingBackPrefilter(trigrams, () => new RegexLinePrefilter());
  }
  return shared;
}
