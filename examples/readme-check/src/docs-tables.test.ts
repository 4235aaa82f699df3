import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The README's tables and docs/architecture.md cannot drift from the code: every published
// package and every `spillway` command is read from the sources and must be named there.

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (file: string): string => fs.readFileSync(path.join(REPO, file), 'utf8');

/** Every published (not private) package of packages/*. */
function publishedPackages(): string[] {
  return fs
    .readdirSync(path.join(REPO, 'packages'))
    .map((dir) => path.join(REPO, 'packages', dir, 'package.json'))
    .filter((file) => fs.existsSync(file))
    .map((file) => JSON.parse(fs.readFileSync(file, 'utf8')) as { name: string; private?: boolean })
    .filter((pkg) => pkg.private !== true)
    .map((pkg) => pkg.name)
    .sort();
}

/** Every command the CLI registers that `--help` lists (hidden ones left out). */
function cliCommands(): string[] {
  const dir = path.join(REPO, 'packages', 'spill-cli', 'src', 'commands');
  const names = new Set<string>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    for (const m of fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/\.command\('([a-z-]+)'(, \{ hidden: true \})?\)/g)) {
      if (m[2] === undefined && m[1] !== undefined) names.add(m[1]);
    }
  }
  return [...names].sort();
}

/** The part of `text` from the heading `heading` to the next heading of its level. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const level = heading.split(' ')[0] ?? '##';
  const end = text.indexOf(`\n${level} `, start + heading.length + 2);
  return text.slice(start, end === -1 ? undefined : end);
}

describe('docs that cannot drift', () => {
  it('the README names every published package in its package table', () => {
    const table = section(read('README.md'), '## Packages');
    const packages = publishedPackages();
    expect(packages.length).toBeGreaterThan(10);
    expect(packages.filter((name) => !table.includes(`[\`${name}\`]`))).toEqual([]);
  });

  it('the README names every spillway command', () => {
    const text = section(read('README.md'), '## The command line');
    const commands = cliCommands();
    expect(commands).toContain('run');
    expect(commands.filter((name) => !new RegExp(`\`(spillway )?${name}\``).test(text))).toEqual([]);
  });

  it('docs/architecture.md names every published package', () => {
    const text = read('docs/architecture.md');
    expect(publishedPackages().filter((name) => !text.includes(name))).toEqual([]);
  });
});
