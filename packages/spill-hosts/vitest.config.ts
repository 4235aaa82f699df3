import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@spillway/hosts',
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
