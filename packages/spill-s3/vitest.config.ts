import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@spillway/s3',
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ['src/test-global-setup.ts'],
  },
});
