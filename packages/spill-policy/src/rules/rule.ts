/**
 * The shape of a preview rule: what makes a line worth an excerpt, decided by what the line
 * says (never by the tool's name). Each rule lives in its own file with examples of lines it
 * must and must not rate; `salient.ts` derives the prefilter and the rating from the list in
 * `all.ts`, and `rules.property.test.ts` checks every rule against its examples and its
 * prefilter triggers.
 */

/** A test that vetoes a rule for a line (a line that names errors only to say there are none). */
export interface LineGuard {
  /** A short name, for test messages. */
  readonly name: string;
  /** Matches the lines the guard vetoes. */
  readonly pattern: RegExp;
  /** Lines the pattern must match. */
  readonly hits: readonly string[];
  /** Lines it must not match. */
  readonly misses: readonly string[];
}

/** One severity's rule. */
export interface SalientRule {
  /** A short name, for test messages. */
  readonly name: string;
  /** The severity it gives (higher is more important). Rules are tried from the highest. */
  readonly severity: number;
  /** Matches the lines the rule rates, within their first `LINE_SCAN_UNITS` code units. */
  readonly pattern: RegExp;
  /**
   * Regular-expression alternatives (case-sensitive, no flags) of which every line that
   * `pattern` matches contains at least one. The scanner's prefilter is their union, so a
   * line that no trigger admits is never rated: a pattern branch without a trigger is dead.
   */
  readonly triggers: readonly string[];
  /** Guards that veto this rule for a line. */
  readonly unless: readonly LineGuard[];
  /** Lines this rule must rate at exactly its severity. */
  readonly hits: readonly string[];
  /** Lines that must not get this severity. */
  readonly misses: readonly string[];
}
