import { benign } from './benign.js';
import { internalFrame } from './internal-frame.js';
import type { SalientRule } from './rule.js';

/** Severity of supporting evidence: a stack frame, a `file:line` reference, an HTTP 4xx/5xx, a non-zero exit. */
export const REFERENCE = 2;

/** Supporting evidence. */
export const reference: SalientRule = {
  name: 'reference',
  severity: REFERENCE,
  pattern:
    /^[ \t]+at .+[:(]\d+|^[ \t]*File ".+", line \d+|\w\.[A-Za-z]{1,5}[:(]\d+(?:[:,]\d+)?\)?(?:[: ]|$)|\b(?:HTTP\/\d(?:\.\d)?"? |[Ss]tatus(?: code)?[ :=]+)[45]\d\d\b|" [45]\d\d |\b(?:exit(?:ed)?(?: with)?(?: code| status)?[ :=]+|Exit code |exit status )[1-9]\d*\b/,
  triggers: ['^[ \\t]+at ', 'File "', '\\.[A-Za-z]{1,5}[:(]\\d', 'HTTP\\/\\d(?:\\.\\d)?"? [45]', '[Ss]tatus(?: code)?[ :=]+[45]', '" [45]\\d\\d ', '[Ee]xit'],
  unless: [benign, internalFrame],
  hits: [
    '    at parseConfig (/app/src/config.ts:42:11)',
    '  File "/app/main.py", line 12, in <module>',
    'src/lib.rs:10:5',
    'HTTP/1.1 503 Service Unavailable',
    '127.0.0.1 - - "GET /x HTTP/1.1" 404 12',
    'Process exited with code 2',
  ],
  misses: ['    at Module._compile (node:internal/modules/cjs/loader:1554:14)', 'exit code 0', 'HTTP/1.1 200 OK'],
};
