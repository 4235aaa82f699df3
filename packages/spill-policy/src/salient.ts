/**
 * Rates lines for the salient preview from the rules in `rules/` (one file per rule, with
 * examples): a severity of 0 means not salient; higher is more important.
 */
import { RULES } from './rules/all.js';
import type { SalientRule } from './rules/rule.js';

export { ASSERTION } from './rules/assertion.js';
export { ERROR } from './rules/error.js';
export { FATAL } from './rules/fatal.js';
export { REFERENCE } from './rules/reference.js';

/** Code units of a line that are classified; the rest of a longer line is never looked at. */
export const LINE_SCAN_UNITS = 2048;

/** A trigger that starts with a word's letter, such as `[Ee]rror` or `Traceback`. */
const WORD_TRIGGER = /^(?:[A-Za-z]|\[[A-Za-z]{2}\])/;

/**
 * The prefilter: every rule's triggers, deduplicated, in two alternations: those that start
 * with a word's letter, and the rest (anchors, punctuation, escapes). V8 runs a few small
 * alternations over a long text faster than one large one, and case-sensitive alternatives
 * much faster than the `i` flag; this split scanned 16 MiB of the corpus's logs in 71 ms
 * where splitting by count took 118 ms.
 */
export function prefilterGroups(rules: readonly SalientRule[] = RULES): string[] {
  const triggers = [...new Set(rules.flatMap((r) => r.triggers))];
  const words = triggers.filter((t) => WORD_TRIGGER.test(t));
  const rest = triggers.filter((t) => !WORD_TRIGGER.test(t));
  return [words, rest].filter((group) => group.length > 0).map((group) => group.join('|'));
}

/** The prefilter for one line: the groups one after the other, faster than their union in one alternation. */
const PREFILTERS = prefilterGroups().map((source) => new RegExp(source));

/**
 * Find candidate lines in a block of whole lines (`m`: `^` is any line's start). Every
 * salient line matches one of them within its first {@link LINE_SCAN_UNITS} code units.
 */
export function blockPrefilters(): RegExp[] {
  return prefilterGroups().map((source) => new RegExp(source, 'gm'));
}

/**
 * The severity of one line (already cut to {@link LINE_SCAN_UNITS} code units): 0 when it is
 * not salient.
 */
export function severityOf(line: string): number {
  return PREFILTERS.some((re) => re.test(line)) ? severityOfAdmitted(line) : 0;
}

/**
 * {@link severityOf} of a line the prefilter already admitted (a block prefilter hit inside it).
 *
 * @param rules - the rules that may rate it, in {@link RULES}' order (all of them, unless the line can hold only some rules' triggers).
 */
export function severityOfAdmitted(line: string, rules: readonly SalientRule[] = RULES): number {
  // Plain loops: this runs for every line a prefilter admits, which may be every line.
  for (const rule of rules) {
    if (!rule.pattern.test(line)) continue;
    let vetoed = false;
    for (const guard of rule.unless) {
      if (guard.pattern.test(line)) {
        vetoed = true;
        break;
      }
    }
    if (!vetoed) return rule.severity;
  }
  return 0;
}

/**
 * The rating of lines that can hold no trigger but some: a prefilter that knows which
 * triggers a line may hold (see `trigram-prefilter.ts`) tests only those, and runs only the
 * rules that have one. The answer is {@link severityOf}'s for such a line, since a rule's
 * pattern matches only lines that hold one of its own triggers (`rules.property.test.ts`).
 */
export class TriggerSubset {
  readonly #any: RegExp | undefined;
  readonly #rules: readonly SalientRule[];

  /** @param triggers - sources among the rules' triggers. */
  constructor(triggers: readonly string[]) {
    const held = new Set(triggers);
    this.#any = held.size === 0 ? undefined : new RegExp([...held].join('|'));
    this.#rules = RULES.filter((rule) => rule.triggers.some((t) => held.has(t)));
  }

  /** The severity of a line that holds none of the other triggers (cut to {@link LINE_SCAN_UNITS}). */
  severity(line: string): number {
    return this.#any?.test(line) === true ? severityOfAdmitted(line, this.#rules) : 0;
  }
}

/**
 * The shape of a line, for collapsing floods: digits, hex runs and quoted strings replaced,
 * so `request 1 failed` and `request 2 failed` are one shape. The same as
 * `line.replace(/0x[0-9a-fA-F]+|[0-9a-f]{8,}|\d+/g, '#').replace(/"[^"]*"|'[^']*'/g, '"…"')`.
 */
export function shapeOf(line: string): string {
  const reader = (shared ??= new ShapeReader());
  reader.read(line);
  return reader.text();
}

let shared: ShapeReader | undefined;

/**
 * Reads a line's shape (see {@link shapeOf}) into a buffer of its own, with a hash of it, so
 * that a scan can look a shape up without making it a string: every salient line has its
 * shape looked up, and two regular-expression replacements and a fresh string per line were
 * most of the scan's cost on text where every line is salient.
 */
export class ShapeReader {
  /** The first pass's result: numbers and hex runs replaced. */
  #numbers = new Uint16Array(LINE_SCAN_UNITS);
  /** The second's: quoted strings replaced too (`''` becomes `"…"`, so it may be longer). */
  #quotes = new Uint16Array(2 * LINE_SCAN_UNITS);
  #units = this.#numbers;
  #length = 0;

  /** Reads the shape of `line`; answers its {@link shapeHash}. */
  read(line: string): number {
    const n = line.length;
    if (n > this.#numbers.length) {
      this.#numbers = new Uint16Array(n);
      this.#quotes = new Uint16Array(2 * n);
    }
    const a = this.#numbers;
    let o = 0;
    let h = 0x811c9dc5;
    let quoted = false;
    for (let i = 0; i < n; ) {
      let c = line.charCodeAt(i);
      if (!isLowerHexDigit(c)) {
        if (c === 0x22 || c === 0x27) quoted = true;
        a[o++] = c;
        h = Math.imul(h ^ c, 0x01000193);
        i++;
        continue;
      }
      // A run of [0-9a-f]: 8 or more are one hex run; a shorter one is read position by
      // position, where only its last unit can start `0x` (an `x` ends the run).
      let j = i + 1;
      while (j < n && isLowerHexDigit(line.charCodeAt(j))) j++;
      if (j - i >= 8) {
        a[o++] = 0x23;
        h = Math.imul(h ^ 0x23, 0x01000193);
        i = j;
        continue;
      }
      let p = i;
      while (p < j) {
        c = line.charCodeAt(p);
        if (c > 0x39) {
          a[o++] = c;
          h = Math.imul(h ^ c, 0x01000193);
          p++;
          continue;
        }
        a[o++] = 0x23;
        h = Math.imul(h ^ 0x23, 0x01000193);
        if (c === 0x30 && p + 1 === j && j + 1 < n && line.charCodeAt(j) === 0x78 && isHexDigit(line.charCodeAt(j + 1))) {
          p = j + 2;
          while (p < n && isHexDigit(line.charCodeAt(p))) p++;
          break;
        }
        p++;
        while (p < j && isDigit(line.charCodeAt(p))) p++;
      }
      i = p;
    }
    this.#units = a;
    this.#length = o;
    if (!quoted) return h | 0;
    this.#replaceQuotes();
    return shapeHash(this.#units, this.#length);
  }

  /**
   * Whether the shape of `line` is `shape`, found without storing it: in a flood, each line
   * is checked against the flood's shape in one pass, with no hash, no lookup and no copy.
   * `false` also when `line` holds a quote (its shape needs the whole first pass), so a
   * caller falls back to {@link read}. Leaves what {@link read} read last unspecified.
   */
  matches(line: string, shape: string): boolean {
    const n = line.length;
    let o = 0;
    for (let i = 0; i < n; ) {
      let c = line.charCodeAt(i);
      if (!isLowerHexDigit(c)) {
        if (c === 0x22 || c === 0x27 || shape.charCodeAt(o++) !== c) return false;
        i++;
        continue;
      }
      // The same runs as `read`.
      let j = i + 1;
      while (j < n && isLowerHexDigit(line.charCodeAt(j))) j++;
      if (j - i >= 8) {
        if (shape.charCodeAt(o++) !== 0x23) return false;
        i = j;
        continue;
      }
      let p = i;
      while (p < j) {
        c = line.charCodeAt(p);
        if (c > 0x39) {
          if (shape.charCodeAt(o++) !== c) return false;
          p++;
          continue;
        }
        if (shape.charCodeAt(o++) !== 0x23) return false;
        if (c === 0x30 && p + 1 === j && j + 1 < n && line.charCodeAt(j) === 0x78 && isHexDigit(line.charCodeAt(j + 1))) {
          p = j + 2;
          while (p < n && isHexDigit(line.charCodeAt(p))) p++;
          break;
        }
        p++;
        while (p < j && isDigit(line.charCodeAt(p))) p++;
      }
      i = p;
    }
    return o === shape.length;
  }

  /** The second pass, from the first's buffer into its own. */
  #replaceQuotes(): void {
    const a = this.#numbers;
    const b = this.#quotes;
    const n = this.#length;
    let o = 0;
    for (let i = 0; i < n; i++) {
      const c = a[i] as number;
      if (c === 0x22 || c === 0x27) {
        let close = i + 1;
        while (close < n && a[close] !== c) close++;
        if (close < n) {
          b[o++] = 0x22;
          b[o++] = 0x2026;
          b[o++] = 0x22;
          i = close;
          continue;
        }
      }
      b[o++] = c;
    }
    this.#units = b;
    this.#length = o;
  }

  /** Whether the shape read last is `shape`. */
  equals(shape: string): boolean {
    const n = this.#length;
    if (shape.length !== n) return false;
    const u = this.#units;
    for (let i = 0; i < n; i++) if (u[i] !== shape.charCodeAt(i)) return false;
    return true;
  }

  /** The shape read last, as a string. */
  text(): string {
    const u = this.#units;
    const n = this.#length;
    let s = '';
    // In pieces: the arguments of one call are bounded.
    for (let i = 0; i < n; i += 1024) s += String.fromCharCode(...u.subarray(i, Math.min(n, i + 1024)));
    return s;
  }
}

/** FNV-1a over the first `n` code units of `u`, as a signed 32-bit integer (a small integer to V8, where an unsigned one may be a heap number): the hash {@link ShapeReader} answers. */
function shapeHash(u: Uint16Array, n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ (u[i] as number), 0x01000193);
  return h | 0;
}

/** The hash {@link ShapeReader.read} answers for a line of shape `shape`. */
export function hashOfShape(shape: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < shape.length; i++) h = Math.imul(h ^ shape.charCodeAt(i), 0x01000193);
  return h | 0;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isLowerHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66);
}

function isHexDigit(c: number): boolean {
  return isLowerHexDigit(c) || (c >= 0x41 && c <= 0x46);
}
