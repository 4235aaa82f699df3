import { defineConfig } from 'vitest/config';

// One run over every package, so CI gets a single JSON report to count.
export default defineConfig({
  test: {
    projects: ['packages/*', 'examples/*', 'tests'],
    reporters: process.env.SPILLWAY_VITEST_JSON
      ? ['default', ['json', { outputFile: process.env.SPILLWAY_VITEST_JSON }]]
      : ['default'],
  },
});
