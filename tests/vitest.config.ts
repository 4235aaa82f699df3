import { readFileSync } from 'node:fs';
import { defineProject } from 'vitest/config';

// The project is named after package.json, so a copy renamed there stays unique.
const { name } = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as { name: string };

export default defineProject({
  test: {
    name,
    include: ['src/**/*.test.ts'],
    testTimeout: 120_000,
    // The setup hooks compile or run whole programs; a busy machine makes them slow.
    hookTimeout: 120_000,
  },
});
