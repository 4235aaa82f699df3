import { SpillError } from '@spillway/core';

/**
 * The regex guard. A browser or edge runtime cannot run a regex in a killable worker, so
 * a grep pattern is made safe before it runs:
 *
 * 1. It must compile as JavaScript regex source (no `u` flag; `i` when `ignoreCase`).
 * 2. Refused outright (`SPILL_INVALID_PATTERN`):
 *    - back-references and octal escapes (`\1`…`\9`, `\k<name>`);
 *    - a group repeated by `*`, `+` or `{n,m}` (m > 1) whose body holds any quantifier
 *      (`(a+)+`, `(a?b)*`, `(\d{2})+`): the classic exponential shapes;
 *    - a repeated group whose body holds an alternation, unless every alternative is a
 *      non-empty plain literal and no two start with the same character (so each
 *      iteration has one way to match): `(?:ab|cd)+` passes, `(a|a)*` and `(a|ab)+` do not;
 *    - patterns longer than {@link MAX_PATTERN_LENGTH} code units.
 * 3. Polynomial blow-up (`\d+\d+x`, `.*a.*b.*c` take seconds on a 1000-character line)
 *    is bounded by running the regex on windows of a line no longer than the budget
 *    allows. The worst-case work of one run is estimated as
 *    `window × atoms × ways / d!`, where `ways` multiplies the choices of every quantifier
 *    (capped at the window) and sums alternatives, and `d` is the number of open-ended
 *    quantifiers on one path. The largest window in {@link REGEX_WINDOWS} whose estimate
 *    stays within {@link REGEX_WORK_BUDGET} is used; when none does, the pattern is refused.
 * 4. A leading or trailing `.*` (without an anchor next to it) does not change which lines
 *    match, so it is dropped before costing: `.*foo.*bar` is costed as `foo.*bar`.
 */

/** The longest regex source grep accepts, in UTF-16 code units. */
export const MAX_PATTERN_LENGTH = 2048;

/** Window sizes (code units) a regex may run on, largest first. */
export const REGEX_WINDOWS = [65_536, 32_768, 16_384, 8192, 4096, 2048, 1024, 512, 256, 128] as const;

/** The estimated work one regex run may cost (see the module notes for the estimate). */
export const REGEX_WORK_BUDGET = 2e8;

/** Large open-ended quantifier: its range exceeds this many iterations. */
const OPEN_ENDED = 16;

interface Quantifier {
  readonly min: number;
  readonly max: number;
  readonly src: string;
}

type RegexNode =
  | { readonly kind: 'atom'; readonly src: string; readonly literal: string | undefined }
  | { readonly kind: 'dot' }
  | { readonly kind: 'anchor'; readonly src: '^' | '$' }
  | { readonly kind: 'assertion'; readonly src: string }
  | { readonly kind: 'backref'; readonly src: string }
  | { readonly kind: 'group'; readonly open: string; readonly alternatives: Term[][] };

interface Term {
  readonly node: RegexNode;
  readonly quantifier: Quantifier | undefined;
}

const QUANTIFIER_BRACES = /^\{(\d+)(,(\d*))?\}/;
const HEX2 = /^[0-9a-fA-F]{2}$/;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const CONTROL_ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', f: '\f', v: '\v' };

function refuse(reason: string): SpillError {
  return new SpillError(
    'SPILL_INVALID_PATTERN',
    `This grep pattern is refused because ${reason}; it could take too long to run. Simplify it, or pass literal: true to search for the plain text.`,
  );
}

/** A recursive-descent reader for regex source that `new RegExp` has already accepted. */
class Parser {
  #i = 0;
  constructor(private readonly src: string) {}

  parse(): Term[][] {
    const alternatives = this.#alternatives();
    if (this.#i !== this.src.length) throw refuse('it could not be analysed'); // unbalanced ')' cannot compile
    return alternatives;
  }

  #alternatives(): Term[][] {
    const alternatives: Term[][] = [[]];
    while (this.#i < this.src.length) {
      const c = this.src[this.#i];
      if (c === ')') break;
      if (c === '|') {
        this.#i += 1;
        alternatives.push([]);
        continue;
      }
      const node = this.#node();
      const quantifier = this.#quantifier();
      alternatives[alternatives.length - 1]?.push({ node, quantifier });
    }
    return alternatives;
  }

  #node(): RegexNode {
    const { src } = this;
    const start = this.#i;
    const c = src[start] ?? '';
    if (c === '(') {
      let open = '(';
      if (src.startsWith('(?:', start) || src.startsWith('(?=', start) || src.startsWith('(?!', start)) open = src.slice(start, start + 3);
      else if (src.startsWith('(?<=', start) || src.startsWith('(?<!', start)) open = src.slice(start, start + 4);
      else if (src.startsWith('(?<', start)) open = src.slice(start, src.indexOf('>', start) + 1);
      else if (src.startsWith('(?', start)) open = src.slice(start, src.indexOf(':', start) + 1); // modifiers
      this.#i = start + open.length;
      const alternatives = this.#alternatives();
      this.#i += 1; // ')'
      return { kind: 'group', open, alternatives };
    }
    if (c === '[') {
      let j = start + 1;
      if (src[j] === '^') j += 1;
      while (j < src.length && src[j] !== ']') j += src[j] === '\\' ? 2 : 1;
      this.#i = j + 1;
      return { kind: 'atom', src: src.slice(start, this.#i), literal: undefined };
    }
    if (c === '\\') return this.#escape();
    this.#i += 1;
    if (c === '.') return { kind: 'dot' };
    if (c === '^' || c === '$') return { kind: 'anchor', src: c };
    return { kind: 'atom', src: c, literal: c };
  }

  #escape(): RegexNode {
    const { src } = this;
    const start = this.#i;
    const d = src[start + 1] ?? '';
    let length = 2;
    let literal: string | undefined;
    if (/[1-9]/.test(d) || d === 'k') {
      throw refuse('back-references (and octal escapes such as \\1) are not supported');
    }
    if (d === 'b' || d === 'B') {
      this.#i = start + 2;
      return { kind: 'assertion', src: src.slice(start, start + 2) };
    }
    if (d === 'x' && HEX2.test(src.slice(start + 2, start + 4))) {
      length = 4;
      literal = String.fromCharCode(parseInt(src.slice(start + 2, start + 4), 16));
    } else if (d === 'u' && HEX4.test(src.slice(start + 2, start + 6))) {
      length = 6;
      literal = String.fromCharCode(parseInt(src.slice(start + 2, start + 6), 16));
    } else if (d === 'c' && /[A-Za-z]/.test(src[start + 2] ?? '')) {
      length = 3;
    } else if (d in CONTROL_ESCAPES) {
      literal = CONTROL_ESCAPES[d];
    } else if (d === '0') {
      literal = undefined;
    } else if (!/[A-Za-z0-9_]/.test(d)) {
      literal = d; // an escaped punctuation character stands for itself
    }
    this.#i = start + length;
    return { kind: 'atom', src: src.slice(start, start + length), literal };
  }

  #quantifier(): Quantifier | undefined {
    const { src } = this;
    const start = this.#i;
    const c = src[start];
    let min: number;
    let max: number;
    if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = QUANTIFIER_BRACES.exec(src.slice(start));
      if (m === null) return undefined; // a literal '{' (allowed without the u flag)
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' || m[3] === undefined ? Infinity : Number(m[3]);
      this.#i = start + m[0].length - 1;
    } else return undefined;
    this.#i += 1;
    if (src[this.#i] === '?') this.#i += 1; // lazy
    return { min, max, src: src.slice(start, this.#i) };
  }
}

function isRepeat(q: Quantifier | undefined): boolean {
  return q !== undefined && q.max > 1;
}

function hasQuantifier(alternatives: readonly (readonly Term[])[]): boolean {
  return alternatives.some((seq) =>
    seq.some((t) => t.quantifier !== undefined || (t.node.kind === 'group' && hasQuantifier(t.node.alternatives))),
  );
}

function hasAlternation(alternatives: readonly (readonly Term[])[]): boolean {
  return (
    alternatives.length > 1 ||
    alternatives.some((seq) => seq.some((t) => t.node.kind === 'group' && hasAlternation(t.node.alternatives)))
  );
}

/** Each alternative a non-empty run of literal characters, first characters all distinct. */
function isDeterministicLiteralAlternation(alternatives: readonly (readonly Term[])[], ignoreCase: boolean): boolean {
  const seen = new Set<string>();
  for (const seq of alternatives) {
    const first = seq[0];
    if (first === undefined) return false;
    for (const t of seq) {
      if (t.node.kind !== 'atom' || t.node.literal === undefined) return false;
    }
    const ch = first.node.kind === 'atom' ? (first.node.literal ?? '') : '';
    const keys = ignoreCase ? [ch.toLowerCase(), ch.toUpperCase()] : [ch];
    if (keys.some((k) => seen.has(k))) return false;
    for (const k of keys) seen.add(k);
  }
  return true;
}

/** Throws for the exponential shapes listed in the module notes. */
function checkShapes(alternatives: readonly (readonly Term[])[], ignoreCase: boolean): void {
  for (const seq of alternatives) {
    for (const { node, quantifier } of seq) {
      if (node.kind !== 'group') continue;
      if (isRepeat(quantifier)) {
        if (hasQuantifier(node.alternatives)) {
          throw refuse('it repeats a group that itself contains a quantifier (nested quantifiers, as in (a+)+)');
        }
        if (hasAlternation(node.alternatives) && !isDeterministicLiteralAlternation(node.alternatives, ignoreCase)) {
          throw refuse(
            'it repeats a group whose alternatives can overlap (as in (a|ab)+); only plain literal alternatives with different first characters may be repeated',
          );
        }
      }
      checkShapes(node.alternatives, ignoreCase);
    }
  }
}

interface Cost {
  /** Ways to match, multiplied along a path and summed over alternatives. */
  readonly ways: number;
  /** The most open-ended quantifiers on one path. */
  readonly openEnded: number;
  /** Atoms on the longest path. */
  readonly atoms: number;
}

function costOf(alternatives: readonly (readonly Term[])[], window: number, repeatedSafely: boolean): Cost {
  let ways = 0;
  let openEnded = 0;
  let atoms = 0;
  for (const seq of alternatives) {
    let seqWays = 1;
    let seqOpen = 0;
    let seqAtoms = 0;
    for (const { node, quantifier } of seq) {
      let inner: Cost = { ways: 1, openEnded: 0, atoms: 1 };
      if (node.kind === 'group') {
        inner = costOf(node.alternatives, window, isRepeat(quantifier));
      }
      let choices = 1;
      if (quantifier !== undefined) {
        const hi = Math.min(quantifier.max, window);
        const lo = Math.min(quantifier.min, window);
        choices = Math.max(1, hi - lo + 1);
        if (quantifier.max - quantifier.min > OPEN_ENDED) seqOpen += 1;
      }
      seqWays *= inner.ways * choices;
      seqOpen += inner.openEnded;
      seqAtoms += inner.atoms;
    }
    ways += seqWays;
    openEnded = Math.max(openEnded, seqOpen);
    atoms = Math.max(atoms, seqAtoms);
  }
  // A safely repeated group (checked by checkShapes) matches each iteration one way.
  return { ways: repeatedSafely ? 1 : ways, openEnded, atoms };
}

function factorial(n: number): number {
  let f = 1;
  for (let k = 2; k <= n; k++) f *= k;
  return f;
}

/** The estimated work of one run of the pattern over `window` code units. */
export function estimateWork(alternatives: readonly (readonly Term[])[], window: number): number {
  const { ways, openEnded, atoms } = costOf(alternatives, window, false);
  return (window * Math.max(1, atoms) * ways) / factorial(openEnded);
}

function isDotStar(t: Term | undefined): boolean {
  return t !== undefined && t.node.kind === 'dot' && t.quantifier !== undefined && t.quantifier.min === 0 && t.quantifier.max === Infinity;
}

/** Drops a leading and a trailing `.*`: they never change whether a line matches. */
function stripDotStars(alternatives: Term[][]): Term[][] {
  if (alternatives.length !== 1) return alternatives;
  const seq = [...(alternatives[0] ?? [])];
  while (seq.length > 1 && isDotStar(seq[0])) seq.shift();
  while (seq.length > 1 && isDotStar(seq[seq.length - 1])) seq.pop();
  return [seq];
}

const NEVER = '(?!)';

function emit(alternatives: readonly (readonly Term[])[], neverStart: boolean, neverEnd: boolean): string {
  return alternatives
    .map((seq) =>
      seq
        .map(({ node, quantifier }) => {
          let out: string;
          switch (node.kind) {
            case 'group':
              out = `${node.open}${emit(node.alternatives, neverStart, neverEnd)})`;
              break;
            case 'dot':
              out = '.';
              break;
            case 'anchor':
              out = (node.src === '^' && neverStart) || (node.src === '$' && neverEnd) ? NEVER : node.src;
              break;
            default:
              out = node.src;
          }
          return out + (quantifier?.src ?? '');
        })
        .join(''),
    )
    .join('|');
}

/**
 * A pattern made safe to run. `whole` runs on a line no longer than `window`; longer
 * lines are searched in overlapping windows with `first`, `middle` and `last`, where the
 * anchors that cannot hold inside a window (`^` after the first, `$` before the last)
 * never match.
 */
export interface RegexPlan {
  readonly window: number;
  readonly whole: RegExp;
  readonly first: RegExp;
  readonly middle: RegExp;
  readonly last: RegExp;
}

/**
 * Checks a grep pattern and prepares it, or throws `SPILL_INVALID_PATTERN`.
 *
 * @param givenLength - the length of what the user typed, when `pattern` is an escaped literal
 */
export function planRegex(pattern: string, ignoreCase: boolean, givenLength = pattern.length): RegexPlan {
  const flags = ignoreCase ? 'gi' : 'g';
  if (givenLength > MAX_PATTERN_LENGTH) {
    throw new SpillError(
      'SPILL_INVALID_PATTERN',
      `The grep pattern is ${givenLength} characters long; the limit for regular expressions and case-insensitive searches is ${MAX_PATTERN_LENGTH}. Use a shorter pattern, or a case-sensitive literal search.`,
    );
  }
  try {
    new RegExp(pattern, flags);
  } catch (cause) {
    throw new SpillError(
      'SPILL_INVALID_PATTERN',
      `The grep pattern is not a valid JavaScript regular expression (${cause instanceof Error ? cause.message : String(cause)}); fix it, or pass literal: true to search for the plain text.`,
      { cause },
    );
  }
  const parsed = stripDotStars(new Parser(pattern).parse());
  checkShapes(parsed, ignoreCase);
  const window = REGEX_WINDOWS.find((w) => estimateWork(parsed, w) <= REGEX_WORK_BUDGET);
  if (window === undefined) {
    throw refuse('it has too many quantifiers that can match the same text (as in \\w+\\w+\\w+\\w+x)');
  }
  const compile = (neverStart: boolean, neverEnd: boolean): RegExp => new RegExp(emit(parsed, neverStart, neverEnd), flags);
  return {
    window,
    whole: compile(false, false),
    first: compile(false, true),
    middle: compile(true, true),
    last: compile(true, false),
  };
}

/** Escapes `text` so that it matches itself as regex source. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
