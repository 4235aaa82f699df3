// The README's code blocks, type-checked as standalone modules against the package's source
// (the package's subpaths, such as `@spillway/local/incoming`, through its built exports).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readmeBlocks, typecheckBlocks } from '@spillway/test-support/readme';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const blocks = readmeBlocks(join(packageDir, 'README.md'));

describe('README', () => {
  it('has ts blocks, and every one type-checks as a standalone module', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    expect(typecheckBlocks(packageDir, '@spillway/local', blocks)).toEqual([]);
  }, 600_000);
});
