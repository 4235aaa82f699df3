import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { installPacked, OfflineCacheMissing, offlineInstallBlocker, readmeBlocks, transpile, typecheckBlocks } from '@spillway/test-support/readme';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const blocks = readmeBlocks(join(packageDir, 'README.md'));
const blocker = offlineInstallBlocker();
const offline = blocks.find((b) => b.code.includes('fakeModel()'));
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const shownOutput = /```text\n(--- the model saw[^]*?)```/.exec(readme)?.[1] ?? '';

describe('README', () => {
  it('has ts blocks, and every one type-checks as a standalone module', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    expect(typecheckBlocks(packageDir, '@spillway/langchain', blocks)).toEqual([]);
    // A full type-check of every block with the framework's types: minutes on a loaded machine.
  }, 600_000);

  // Skipped, with the reason in its name, where this user has no pnpm store to install from.
  describe.skipIf(blocker !== undefined)(`packed and installed alone next to langchain, offline${blocker === undefined ? '' : ` (skipped: ${blocker})`}`, () => {
    let dir: string | undefined;
    afterAll(() => {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it('runs the offline example and shows what the README says the model sees', ({ skip }) => {
      expect(offline).toBeDefined();
      try {
        dir = installPacked(
          join(packageDir, '..', '..'),
          { '@spillway/langchain': 'spill-langchain', '@spillway/core': 'spill-core', '@spillway/policy': 'spill-policy', '@spillway/memory': 'spill-memory' },
          { langchain: '1.5.14', '@langchain/core': '1.4.0' },
        );
      } catch (error) {
        // Skipped with the reason, only where pnpm's metadata cache lacks the frameworks.
        if (error instanceof OfflineCacheMissing) skip(error.message);
        throw error;
      }
      writeFileSync(join(dir, 'main.mjs'), transpile(offline?.code ?? ''));
      const out = execFileSync(process.execPath, ['main.mjs'], { cwd: dir, encoding: 'utf8' });
      // The README shows this very output; only the random locator differs from run to run.
      const anyLocator = (text: string): string => text.replace(/spill\+memory:\/\/[0-9a-f]+\/[0-9a-f]+/g, 'spill+memory://…');
      expect(anyLocator(out)).toBe(anyLocator(shownOutput));
      expect(out).toContain('3211: ERROR disk full on /var\n(1 matching line for "ERROR".)');
    }, 180_000);
  });
});
