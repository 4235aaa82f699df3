import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The child run of catches-bugs.e2e.test.ts: only the mutant fixture, rooted at the package.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['src/__tests__/mutants.fixture.ts'],
    testTimeout: 60_000,
  },
});
