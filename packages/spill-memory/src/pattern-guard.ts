import { SpillError } from '@spillway/core';

/**
 * The regex guard. A browser or edge runtime cannot run a regex in a killable worker, so
 * a grep pattern is checked, and the input it runs on is sized, before it runs:
 *
 * 1. It must compile as JavaScript regex source (no `u` flag; `i` when `ignoreCase`).
 * 2. Refused outright (`SPILL_INVALID_PATTERN`):
 *    - back-references and octal escapes (`\1`…`\9`, `\k<name>`, `\01`);
 *    - a group repeated by `*`, `+` or `{n,m}` (m > 1) whose body holds any quantifier
 *      (`(a+)+`, `(a?b)*`, `(\d{2})+`): the classic exponential shapes;
 *    - a repeated group whose body holds an alternation, unless every alternative is a
 *      non-empty plain literal and no two start with the same character (so each
 *      iteration has one way to match): `(?:ab|cd)+` passes, `(a|a)*` and `(a|ab)+` do not;
 *    - patterns longer than {@link MAX_PATTERN_LENGTH} code units;
 *    - patterns whose estimated work (below) exceeds the budget even on the smallest window.
 * 3. Polynomial blow-up (`\d+\d+x` or `.*a.*b.*c` take seconds on a 1000-character line)
 *    is bounded by running the regex on windows of a line no longer than the budget
 *    allows. The estimate walks the pattern: a quantifier is *ambiguous* when a unit it
 *    gives back could also start what follows it (decided exactly, by testing `(?=A)B`
 *    over all 65 536 code units); an ambiguous quantifier multiplies the branches that
 *    backtracking explores by its range, an unambiguous one only adds a linear scan.
 *    Alternatives add up. Attempts run from every start position of the window (or one,
 *    when every alternative starts with `^`). The largest window in {@link REGEX_WINDOWS}
 *    whose estimate stays within {@link REGEX_WORK_BUDGET} is used.
 * 4. A leading or trailing `.*` (without an anchor next to it) does not change which lines
 *    match, so it is dropped first: `.*foo.*bar` is costed and run as `foo.*bar`.
 */

/** The longest regex source grep accepts, in UTF-16 code units. */
export const MAX_PATTERN_LENGTH = 2048;

/** Window sizes (code units) a regex may run on, largest first. */
export const REGEX_WINDOWS = [65_536, 32_768, 16_384, 8192, 4096, 2048, 1024, 512, 256, 128] as const;

/** The estimated work one regex run may cost (see the module notes for the estimate). */
export const REGEX_WORK_BUDGET = 1e7;

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
    if (/[1-9]/.test(d) || d === 'k' || (d === '0' && /[0-9]/.test(src[start + 2] ?? ''))) {
      throw refuse('back-references and octal escapes (such as \\1 or \\01) are not supported');
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
    } else if (d === 'c') {
      if (!/[A-Za-z]/.test(src[start + 2] ?? '')) {
        // Without a letter, `\c` is a literal backslash followed by an ordinary `c`.
        this.#i = start + 1;
        return { kind: 'atom', src: '\\\\', literal: '\\' };
      }
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

/** Every UTF-16 code unit once: the alphabet a regex without the u flag works over. */
let allUnits: string | undefined;

function alphabet(): string {
  if (allUnits === undefined) {
    const units = new Array<string>(0x10000);
    for (let c = 0; c < 0x10000; c++) units[c] = String.fromCharCode(c);
    allUnits = units.join('');
  }
  return allUnits;
}

const overlapCache = new Map<string, boolean>();

/**
 * Whether two single-unit atoms (a character, an escape, a class or `.`) can match the
 * same code unit under `flags`: exact, by running `(?=A)B` once over every code unit.
 */
function atomsOverlap(a: string, b: string, flags: string): boolean {
  const key = `${flags}\u0000${a}\u0000${b}`;
  let known = overlapCache.get(key);
  if (known === undefined) {
    known = new RegExp(`(?=${a})${b}`, flags).test(alphabet());
    if (overlapCache.size >= 4096) overlapCache.clear();
    overlapCache.set(key, known);
  }
  return known;
}

function atomSource(node: RegexNode): string | undefined {
  if (node.kind === 'atom') return node.src;
  if (node.kind === 'dot') return '.';
  return undefined;
}

function isLookaround(node: RegexNode): boolean {
  return node.kind === 'group' && /^\(\?<?[=!]/.test(node.open);
}

/** The atoms that can match the first unit of what follows, as far as it can be told. */
interface FirstSet {
  readonly atoms: string[];
  /** Something that cannot be reduced to atoms (a lookaround) may come first. */
  unknown: boolean;
  /** The rest can match the empty string, so what follows the sequence matters too. */
  canBeEmpty: boolean;
}

function firstOf(seq: readonly Term[], from: number): FirstSet {
  const set: FirstSet = { atoms: [], unknown: false, canBeEmpty: false };
  for (let i = from; i < seq.length; i++) {
    const term = seq[i];
    if (term === undefined) break;
    const { node, quantifier } = term;
    if (node.kind === 'anchor' || node.kind === 'assertion') continue; // zero-width: only prunes
    if (isLookaround(node)) {
      set.unknown = true;
      return set;
    }
    let mayBeEmpty = quantifier !== undefined && quantifier.min === 0;
    if (node.kind === 'group') {
      for (const alt of node.alternatives) {
        const inner = firstOf(alt, 0);
        set.atoms.push(...inner.atoms);
        set.unknown ||= inner.unknown;
        mayBeEmpty ||= inner.canBeEmpty;
      }
      if (set.unknown) return set;
    } else {
      const src = atomSource(node);
      if (src === undefined) {
        set.unknown = true;
        return set;
      }
      set.atoms.push(src);
    }
    if (!mayBeEmpty) return set;
  }
  set.canBeEmpty = true;
  return set;
}

/** What may follow the end of a sequence: nothing (a match), or the parent's continuation. */
const NOTHING_FOLLOWS: FirstSet = { atoms: [], unknown: false, canBeEmpty: false };

/** `firstOf(seq, from)`, continued into `follow` when the rest of `seq` can be empty. */
function followOf(seq: readonly Term[], from: number, follow: FirstSet): FirstSet {
  const next = firstOf(seq, from);
  if (!next.canBeEmpty || next.unknown) return next;
  return { atoms: [...next.atoms, ...follow.atoms], unknown: follow.unknown, canBeEmpty: follow.canBeEmpty };
}

/**
 * Whether the quantifier on `seq[i]` can give back a unit that what follows could
 * start with. When it cannot, every give-back fails at once: the quantifier costs a
 * linear scan, not a factor. `follow` is what may come after `seq` ends.
 */
function isAmbiguous(seq: readonly Term[], i: number, follow: FirstSet, flags: string): boolean {
  const term = seq[i];
  if (term === undefined || isLookaround(term.node)) return true; // a repeated assertion: assume the worst
  let own: FirstSet;
  if (term.node.kind === 'group') {
    own = { atoms: [], unknown: false, canBeEmpty: false };
    for (const alt of term.node.alternatives) {
      const inner = firstOf(alt, 0);
      own.atoms.push(...inner.atoms);
      own.unknown ||= inner.unknown || inner.canBeEmpty;
    }
  } else {
    const src = atomSource(term.node);
    own = { atoms: src === undefined ? [] : [src], unknown: src === undefined, canBeEmpty: false };
  }
  if (own.unknown) return true;
  const next = followOf(seq, i + 1, follow);
  if (next.unknown) return true;
  // When only the end of the attempt may follow (canBeEmpty), the first try succeeds there.
  return own.atoms.some((a) => next.atoms.some((b) => atomsOverlap(a, b, flags)));
}

/** Counted loops (`{1,100}`) run about ten times slower per step than `*` in V8. */
const BOUNDED_STEP_WEIGHT = 8;

interface Cost {
  /** Estimated steps of one attempt from one start position. */
  readonly cost: number;
  /** Ways the attempt can continue past this part (branches that backtracking explores). */
  readonly branches: number;
}

/**
 * Estimated steps along a sequence: each term costs its own work times the branches
 * open before it. A quantifier opens `choices` branches only when it is ambiguous (see
 * {@link isAmbiguous}); otherwise its give-backs are a linear scan. Alternatives add up.
 */
function costOf(
  alternatives: readonly (readonly Term[])[],
  window: number,
  follow: FirstSet,
  flags: string,
  backward = false,
): Cost {
  let cost = 0;
  let branches = 0;
  for (const seq of alternatives) {
    let seqCost = 0;
    let seqBranches = 1;
    seq.forEach((term, i) => {
      const { node, quantifier } = term;
      let termCost = 1;
      let termBranches = 1;
      if (node.kind === 'group') {
        const lookaround = isLookaround(node);
        // A lookaround body ends its own attempt; a group's body continues into what follows it.
        const innerFollow = lookaround ? NOTHING_FOLLOWS : followOf(seq, i + 1, follow);
        // A lookbehind matches right to left, where "what follows" is unknown to this walk.
        const inner = costOf(node.alternatives, window, innerFollow, flags, backward || node.open.startsWith('(?<=') || node.open.startsWith('(?<!'));
        termCost = inner.cost;
        // A lookaround is atomic, and a repeated group passed checkShapes: one way per iteration.
        termBranches = lookaround || isRepeat(quantifier) ? 1 : inner.branches;
      }
      if (quantifier !== undefined) {
        const lo = Math.min(quantifier.min, window);
        const hi = Math.min(quantifier.max, window);
        const choices = Math.max(1, hi - lo + 1);
        const weight = quantifier.max !== Infinity && quantifier.max > 1 ? BOUNDED_STEP_WEIGHT : 1;
        termCost *= Math.max(1, hi) * weight;
        if (choices > 1 && (backward || isAmbiguous(seq, i, follow, flags))) termBranches *= choices;
      }
      seqCost += seqBranches * termCost;
      seqBranches *= termBranches;
    });
    cost += seqCost;
    branches += seqBranches;
  }
  return { cost, branches };
}

function isAnchoredAtStart(alternatives: readonly (readonly Term[])[]): boolean {
  return alternatives.every((seq) => {
    const first = seq[0];
    return first !== undefined && first.node.kind === 'anchor' && first.node.src === '^';
  });
}

/**
 * The estimated work of one run of the pattern over `window` code units: one attempt per
 * start position, or a single real attempt when every alternative starts with `^` (the
 * other positions fail on the anchor at once).
 */
export function estimateWork(alternatives: readonly (readonly Term[])[], window: number, flags: string): number {
  const attempt = costOf(alternatives, window, NOTHING_FOLLOWS, flags).cost;
  return isAnchoredAtStart(alternatives) ? window + attempt : window * attempt;
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
  const costFlags = ignoreCase ? 'i' : '';
  const window = REGEX_WINDOWS.find((w) => estimateWork(parsed, w, costFlags) <= REGEX_WORK_BUDGET);
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
