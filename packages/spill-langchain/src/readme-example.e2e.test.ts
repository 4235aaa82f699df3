import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anyMemoryLocator, offlineInstallBlocker, readmeBlocks, readmeShownExample, runPackedExample, runWorkspaceExample, typecheckBlocks } from '@spillway/test-support/readme';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const blocks = readmeBlocks(join(packageDir, 'README.md'));
const blocker = offlineInstallBlocker();
const example = readmeShownExample(packageDir, 'fakeModel()');

describe('README', () => {
  it('has ts blocks, and every one type-checks as a standalone module', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    expect(typecheckBlocks(packageDir, '@spillway/langchain', blocks)).toEqual([]);
    // A full type-check of every block with the framework's types: minutes on a loaded machine.
  }, 600_000);

  it('runs the offline example in the workspace, and prints exactly what the README shows', () => {
    // Only the random part of the locator differs from run to run.
    expect(anyMemoryLocator(runWorkspaceExample(packageDir, example.code))).toBe(anyMemoryLocator(example.shown));
  }, 180_000);

  // Skipped, with the reason in its name, where this user has no pnpm store to install from.
  describe.skipIf(blocker !== undefined)(`packed and installed alone next to langchain, offline${blocker === undefined ? '' : ` (skipped: ${blocker})`}`, () => {
    it('runs the offline example and shows what the README says the model sees', ({ skip }) => {
      const out = runPackedExample(
        join(packageDir, '..', '..'),
        { '@spillway/langchain': 'spill-langchain', '@spillway/core': 'spill-core', '@spillway/policy': 'spill-policy', '@spillway/memory': 'spill-memory' },
        { langchain: '1.5.14', '@langchain/core': '1.4.0' },
        example.code,
        skip,
      );
      // The README shows this very output; only the random locator differs from run to run.
      expect(anyMemoryLocator(out)).toBe(anyMemoryLocator(example.shown));
      expect(out).toContain('3211: ERROR disk full on /var\n(1 matching line for "ERROR".)');
    }, 180_000);
  });
});
