import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The child run of catches-file-sink-bugs.e2e.test.ts: only the file-sink mutant fixture, rooted at the package.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['src/__tests__/file-sink-mutants.fixture.ts'],
    testTimeout: 60_000,
  },
});
