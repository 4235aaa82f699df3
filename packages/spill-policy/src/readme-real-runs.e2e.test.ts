// The README's real runs are what its scripts print for today's build: "What the model
// sees" (scripts/what-the-model-sees.mjs, bar the random parts of its locators) and "Before
// and after, from real runs" (scripts/before-after.mjs 2048), and the "After" of each list
// (scripts/lists-before-after.mjs 4096; its "Before" came from an earlier build). A change to the preview that
// alters either fails here until the README is made again from the script.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The random parts of a run's locators: the temporary root, a file's prefix, a memory id. */
function withoutRandomParts(text: string): string {
  return text
    .replace(/spillway-readme-[A-Za-z0-9]{6}/g, 'spillway-readme-…')
    .replace(/\/[0-9a-f]{20}-/g, '/…-')
    .replace(/(spill\+memory:\/\/session-[0-9a-f]{32}\/)[0-9a-f]{32}/g, '$1…')
    .trimEnd();
}

function section(readme: string, from: string, to: string): string {
  const start = readme.indexOf(from);
  const end = readme.indexOf(to, start);
  expect(start).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  return readme.slice(start, end);
}

describe('the README real runs', () => {
  it('"What the model sees" is what scripts/what-the-model-sees.mjs prints', () => {
    // Under /tmp, as in the README: the length of the temporary root's path sets the notice's, and so the byte counts.
    const printed = execFileSync(process.execPath, [join(packageDir, 'scripts', 'what-the-model-sees.mjs')], { cwd: packageDir, encoding: 'utf8', env: { ...process.env, TMPDIR: '/tmp' } });
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    expect(printed).toContain('(Omitted ');
    expect(withoutRandomParts(section(readme, '### web_fetch, 1 200-byte cap', "## The model's tools"))).toBe(withoutRandomParts(printed));
  }, 120_000);

  it('"Before and after" is exactly what scripts/before-after.mjs prints', () => {
    const printed = execFileSync(process.execPath, [join(packageDir, 'scripts', 'before-after.mjs'), '2048'], { cwd: packageDir, encoding: 'utf8' });
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    expect(printed).toContain('… [excerpts from the omitted middle] …');
    expect(section(readme, '##### A compiler error', '### Lists and JSON test reports').trimEnd()).toBe(printed.trimEnd());
  }, 120_000);

  it('each list\'s "After" is what scripts/lists-before-after.mjs prints', () => {
    const printed = execFileSync(process.execPath, [join(packageDir, 'scripts', 'lists-before-after.mjs'), '4096'], { cwd: packageDir, encoding: 'utf8' });
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    const lists = readme.slice(readme.indexOf('### Lists and JSON test reports'));
    const shown = [...lists.matchAll(/After \((\d+) bytes\):\n\n```text\n([^]*?)```/g)].slice(0, 2).map((m) => [m[1], m[2]]);
    const made = [...printed.matchAll(/#### \S+ \((\d+) bytes\)\n\n```text\n([^]*?)```/g)].map((m) => [m[1], m[2]]);
    expect(made).toHaveLength(2);
    expect(shown).toEqual(made);
  }, 120_000);
});
