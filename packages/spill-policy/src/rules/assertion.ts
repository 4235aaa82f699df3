import type { SalientRule } from './rule.js';

/** Severity of an assertion's expected/received diff. */
export const ASSERTION = 3;

/** An assertion's expected/received diff. */
export const assertion: SalientRule = {
  name: 'assertion',
  severity: ASSERTION,
  pattern:
    // eslint-disable-next-line no-control-regex -- test runners colour diff lines with ANSI escapes
    /\b(?:AssertionError|assert(?:ion)?|Expected|expected|Received|received)\b|^\s*[-+] (?:Expected|Received)\b|^\x1b\[3[12]m[-+] |^[ \t]{2,}[-+] {2,}\S/,
  triggers: ['[Aa]ssert', '[Ee]xpected', '[Rr]eceived', '\\x1b\\[3[12]m[-+] ', '^[ \\t]{2,}[-+] {2,}\\S'],
  unless: [],
  hits: ['    Expected: 3', '    Received: 4', '  - Expected  - 1', '\u001b[32m- 3', '    -   "name": "a",'],
  misses: ['unexpectedly quiet', 'all packets were dropped at the gateway'],
};
