import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@spillway/tools',
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
