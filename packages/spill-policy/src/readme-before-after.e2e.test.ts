// The README's "Before and after, from real runs" is what scripts/before-after.mjs prints
// for today's build: a change to the preview that alters it fails here until the README is
// made again (node scripts/before-after.mjs 2048, pasted between the heading and the lists).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('the README before and after', () => {
  it('shows exactly what scripts/before-after.mjs prints', () => {
    const printed = execFileSync(process.execPath, [join(packageDir, 'scripts', 'before-after.mjs'), '2048'], { cwd: packageDir, encoding: 'utf8' });
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    const start = readme.indexOf('##### A compiler error');
    const end = readme.indexOf('### Lists and JSON test reports');
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    expect(printed).toContain('… [excerpts from the omitted middle] …');
    expect(readme.slice(start, end).trimEnd()).toBe(printed.trimEnd());
  }, 120_000);
});
