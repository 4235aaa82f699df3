import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@spillway/example-backend-template',
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
