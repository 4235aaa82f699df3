import { readFileSync } from 'node:fs';
import { defineProject } from 'vitest/config';

// The project is named after package.json, so that a copy renamed there (the README's
// first step) never clashes with this one in a workspace-wide run.
const { name } = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as { name: string };

export default defineProject({
  test: {
    name,
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
