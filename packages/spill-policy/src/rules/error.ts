import { benign } from './benign.js';
import type { SalientRule } from './rule.js';

/** Severity of an error or a failure: a compiler diagnostic, a failed test, an exception line. */
export const ERROR = 4;

/** An error or a failure. */
export const error: SalientRule = {
  name: 'error',
  severity: ERROR,
  pattern:
    /(?:^|[^\w./-])(?:error|Error|ERROR)(?![\w./-])|npm ERR!|^\s*ERR!|(?:Error|Exception)(?::|$)|\b(?:FAIL|FAILED|Failed|failed|failure|Failure|FAILURE)\b|^\s*(?:not ok|[✗✕✖×]) |"level":50|"level":"error"|\bE\d{4}\b|"errors?":|No such file or directory|[Pp]ermission denied|command not found|\b(?:[Cc]annot|[Uu]nable to) \w/,
  triggers: [
    '[Ee]rror|ERROR',
    'ERR!',
    '[Ee]xception',
    '[Ff]ail|FAIL',
    'not ok',
    '[✗✕✖×]',
    '"level":50',
    '\\bE\\d{4}\\b',
    'No such file',
    '[Pp]ermission denied',
    'not found',
    '[Cc]annot ',
    '[Uu]nable to',
  ],
  unless: [benign],
  hits: [
    "src/app.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    'error[E0308]: mismatched types',
    'E0308: mismatched types',
    'npm ERR! code ELIFECYCLE',
    ' FAIL  src/sum.test.ts > adds',
    'not ok 3 - handles empty input',
    'bash: foo: command not found',
    'cp: cannot stat \'a.txt\': No such file or directory',
    'java.lang.IllegalStateException:',
    '{"level":50,"msg":"request failed"}',
  ],
  misses: ['Found 0 errors.', 'src/error-handler.ts compiled', 'the errorCount field', 'tests: 0 failed'],
};
