/**
 * What makes a line worth an excerpt, decided by what the line says (never by the tool's
 * name). A severity of 0 means not salient; higher is more important.
 */

/** A fatal message: a crash, a panic, an uncaught exception, a traceback's start. */
export const FATAL = 5;
/** An error or a failure: a compiler diagnostic, a failed test, an exception line. */
export const ERROR = 4;
/** An assertion's expected/received diff. */
export const ASSERTION = 3;
/** Supporting evidence: a stack frame, a `file:line` reference, an HTTP 4xx/5xx, a non-zero exit. */
export const REFERENCE = 2;

/** Code units of a line that are classified; the rest of a longer line is never looked at. */
export const LINE_SCAN_UNITS = 2048;

/**
 * A cheap first test: every salient line matches it within its first
 * {@link LINE_SCAN_UNITS} code units. Case-sensitive alternatives run much faster than the
 * `i` flag over a whole output.
 */
/**
 * The prefilter's alternatives, in three groups: V8 runs a few small alternations over a
 * long text more than twice as fast as one large one (measured on 16 MiB of log).
 */
const PREFILTER_GROUPS: readonly string[] = [
  '[Ee]rror|ERROR|[Ff]ail|FAIL|[Ff]atal|FATAL|[Pp]anic|PANIC|[Ee]xception|Traceback|[Aa]ssert|[Ee]xpected|[Rr]eceived|' +
    'ERR!|Segmentation|[Aa]bort|not ok|[Uu]ncaught|[Uu]nhandled',
  '^[ \\t]+at |File "|\\.[A-Za-z]{1,5}[:(]\\d|HTTP/|[Ss]tatus|" [45]\\d\\d |[Ee]xit|EXIT|"level":[56]0',
  'No such file|[Pp]ermission denied|not found|[Cc]annot |[Uu]nable to|\\x1b\\[3[12]m[-+] |^[ \\t]{2,}[-+] {2,}\\S|[✗✕✖×]',
];

/** Tests one line. */
const PREFILTER = new RegExp(PREFILTER_GROUPS.join('|'));

/**
 * Find candidate lines in a block of whole lines (`m`: `^` is any line's start). Every
 * salient line matches one of them within its first {@link LINE_SCAN_UNITS} code units.
 * Case-sensitive alternatives run much faster than the `i` flag over a whole output.
 */
export function blockPrefilters(): RegExp[] {
  return PREFILTER_GROUPS.map((source) => new RegExp(source, 'gm'));
}

const FATAL_RE =
  /\b(?:fatal|FATAL|Fatal|panic|PANIC|panicked|Segmentation fault|core dumped|Aborted|Uncaught|uncaught|Unhandled|unhandled rejection)\b|^Traceback \(most recent call last\)|"level":60|"level":"fatal"/;
const ERROR_RE =
  /(?:^|[^\w./-])(?:error|Error|ERROR)(?![\w./-])|npm ERR!|^\s*ERR!|(?:Error|Exception)(?::|$)|\b(?:FAIL|FAILED|Failed|failed|failure|Failure|FAILURE)\b|^\s*(?:not ok|[✗✕✖×]) |"level":50|"level":"error"|\bE\d{4}\b|"errors?":|No such file or directory|[Pp]ermission denied|command not found|\b(?:[Cc]annot|[Uu]nable to) \w/;
const ASSERTION_RE =
  // eslint-disable-next-line no-control-regex -- test runners colour diff lines with ANSI escapes
  /\b(?:AssertionError|assert(?:ion)?|Expected|expected|Received|received)\b|^\s*[-+] (?:Expected|Received)\b|^\x1b\[3[12]m[-+] |^[ \t]{2,}[-+] {2,}\S/;
/** Stack frames inside the runtime or dependencies: rarely what a person looks for. */
const INTERNAL_FRAME_RE = /^\s+at .*(?:node:internal|node:async_hooks|node_modules\/|<anonymous>)/;
const REFERENCE_RE =
  /^[ \t]+at .+[:(]\d+|^[ \t]*File ".+", line \d+|\w\.[A-Za-z]{1,5}[:(]\d+(?:[:,]\d+)?\)?(?:[: ]|$)|\b(?:HTTP\/\d(?:\.\d)?"? |[Ss]tatus(?: code)?[ :=]+)[45]\d\d\b|" [45]\d\d |\b(?:exit(?:ed)?(?: with)?(?: code| status)?[ :=]+|Exit code |exit status )[1-9]\d*\b/;
/** Lines that name errors only to say there are none. */
const BENIGN_RE = /\b(?:0|no|zero|without) (?:errors?|failures?|failed)\b|\b(?:errors?|failures?|failed)[ :=]+0\b/i;

/**
 * The severity of one line (already cut to {@link LINE_SCAN_UNITS} code units): 0 when it is
 * not salient.
 */
export function severityOf(line: string): number {
  if (!PREFILTER.test(line)) return 0;
  if (FATAL_RE.test(line)) return FATAL;
  const benign = BENIGN_RE.test(line);
  if (!benign && ERROR_RE.test(line)) return ERROR;
  if (ASSERTION_RE.test(line)) return ASSERTION;
  if (!benign && REFERENCE_RE.test(line) && !INTERNAL_FRAME_RE.test(line)) return REFERENCE;
  return 0;
}

/**
 * The shape of a line, for collapsing floods: digits, hex runs and quoted strings replaced,
 * so `request 1 failed` and `request 2 failed` are one shape.
 */
export function shapeOf(line: string): string {
  return line.replace(/0x[0-9a-fA-F]+|[0-9a-f]{8,}|\d+/g, '#').replace(/"[^"]*"|'[^']*'/g, '"…"');
}
