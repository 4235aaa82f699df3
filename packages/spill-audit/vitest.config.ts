import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@spillway/audit',
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
