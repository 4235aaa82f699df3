import type { LineGuard } from './rule.js';

/** Lines that name errors only to say there are none. */
export const benign: LineGuard = {
  name: 'benign',
  pattern: /\b(?:0|no|zero|without) (?:errors?|failures?|failed)\b|\b(?:errors?|failures?|failed)[ :=]+0\b/i,
  hits: ['Found 0 errors. Watching for file changes.', 'Tests: 12 passed, failures: 0', 'Compiled without errors', 'errors=0 warnings=3'],
  misses: ['error: cannot find module', 'Found 3 errors.'],
};
