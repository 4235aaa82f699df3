import type { LineGuard } from './rule.js';

/** Stack frames inside the runtime or dependencies: rarely what a person looks for. */
export const internalFrame: LineGuard = {
  name: 'internal frame',
  pattern: /^\s+at .*(?:node:internal|node:async_hooks|node_modules\/|<anonymous>)/,
  hits: ['    at Module._compile (node:internal/modules/cjs/loader:1554:14)', '    at run (/app/node_modules/vitest/dist/index.js:10:3)'],
  misses: ['    at parseConfig (/app/src/config.ts:42:11)'],
};
