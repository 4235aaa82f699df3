/**
 * A file shown with its line numbers: what a viewer puts before each line, and when a text
 * is such a view. The preview reads such a text in place (plain head and tail, whole lines);
 * `spillway audit` follows it to tell which lines a later read of the file needed.
 */

/**
 * The number a viewer puts before each line: `cat -n` and `nl` (`     1\t`), Claude Code's
 * Read (`     1\t` or `     1\u2192`), a page a web tool opened (`L1: `).
 */
export const LINE_NUMBER_SOURCE = String.raw`\s*(\d+)[\t\u2192]|L(\d+): ?`;
/** A line's number, when it starts with one (the first group or the second). */
export const LINE_NUMBER_RE = new RegExp(`^(?:${LINE_NUMBER_SOURCE})`);

/**
 * OpenCode's Read: the file's path, its type and `<content>` on lines of their own, then
 * lines numbered `1: `. A number and a colon alone start many a list item, so that form
 * counts only after this head.
 */
const OPENCODE_READ_HEAD = /^<path>[^\n]*<\/path>\n<type>file<\/type>\n<content>\n/;
const OPENCODE_LINE_NUMBER = /^(\d+): /;

/** Lines of the start looked at to decide whether a text is a numbered view. */
const NUMBERED_SAMPLE = 64;
/** Fewer non-blank whole lines than this: too few to call a text a numbered file view. */
const NUMBERED_MIN_LINES = 8;

/** Options of {@link lineNumberOf}. */
export interface LineNumberOptions {
  /**
   * The line is of OpenCode's Read (see {@link isOpenCodeFileView}), whose lines are
   * numbered `12: code`: that form counts too. Default `false`, where it does not, since a
   * number and a colon start many a list item.
   */
  readonly openCodeRead?: boolean;
}

/**
 * The number a file viewer put before `line`: `12` for `    12\tcode` (`cat -n`, `nl`, a
 * host's Read), `    12\u2192code` (Claude Code's earlier Read) or `L12: text` (a page a web
 * tool opened), and with `openCodeRead`, `12: code` (OpenCode's Read).
 *
 * @param line - one line, without its line break; only its start is read
 * @param options - which forms count besides the viewers' own
 * @returns the number, or `undefined` when the line does not start with one of those forms
 */
export function lineNumberOf(line: string, options?: LineNumberOptions): number | undefined {
  const m = LINE_NUMBER_RE.exec(line);
  if (m !== null) return Number(m[1] ?? m[2]);
  return options?.openCodeRead === true ? openCodeNumberOf(line) : undefined;
}

/**
 * Whether `text` is a file shown with its line numbers (`cat -n file`, `nl -ba file`, a
 * host's Read, a page a web tool opened), each line starting with a number as
 * {@link lineNumberOf} reads it, or, after OpenCode's Read's head (`<path>…</path>`,
 * `<type>file</type>`, `<content>`), with `1: `, `2: `…
 *
 * It looks at the first 64 lines that end (with `\n`) within the first `units` code units,
 * and skips the blank ones among them (`nl` leaves blank lines unnumbered and blank). A
 * line counts when its number is the first one met or one more than the last one met, so
 * numbers that do not run in turn (`git shortlog -sn`'s counts, ids) do not make a view.
 * The text is a view when at least 8 lines are looked at and three in four of them count:
 * a host's few lines before the file (Codex's header) leave a long view a view.
 *
 * @param text - the text, or its start
 * @param units - how many code units of `text` to look at (default: all); a last line
 *   without a line break within them is not looked at
 * @returns whether the text is a numbered file view
 */
export function isNumberedView(text: string, units = text.length): boolean {
  const end = Math.min(text.length, units);
  const openCode = OPENCODE_READ_HEAD.exec(text);
  let numbered = 0;
  let lines = 0;
  let previous = -1;
  for (let from = openCode?.[0].length ?? 0, seen = 0; seen < NUMBERED_SAMPLE; seen++) {
    const at = text.indexOf('\n', from);
    if (at < 0 || at >= end) break;
    const line = text.slice(from, at);
    from = at + 1;
    if (line.trim() === '') continue;
    lines++;
    const n = lineNumberOf(line, { openCodeRead: openCode !== null });
    if (n !== undefined) {
      if (previous < 0 || n === previous + 1) numbered++;
      previous = n;
    }
  }
  return lines >= NUMBERED_MIN_LINES && numbered >= lines * 0.75;
}

/** The number OpenCode's Read put before a line of its content (`12: code`). */
function openCodeNumberOf(line: string): number | undefined {
  const m = OPENCODE_LINE_NUMBER.exec(line);
  return m === null ? undefined : Number(m[1]);
}

/**
 * Whether `text` is OpenCode's Read of a file, numbered as {@link isNumberedView} requires:
 * its head (`<path>…</path>`, `<type>file</type>`, `<content>`, each a line of its own, at
 * the very start) tells a file view from a list whose items are numbered `1: ` the same way.
 *
 * @param text - the text, or its start
 * @param units - how many code units of `text` to look at (default: all)
 * @returns whether the text is OpenCode's numbered Read of a file
 */
export function isOpenCodeFileView(text: string, units = text.length): boolean {
  return OPENCODE_READ_HEAD.test(text) && isNumberedView(text, units);
}
