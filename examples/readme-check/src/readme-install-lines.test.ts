// Every package README's install line, checked against what a newcomer meets: the packages
// are not on the npm registry yet, so a README that tells them to install one must say how
// to get it from a clone; and a peer dependency installed on the same line must be pinned to
// the range the package accepts, or the registry's newest major (vitest 5, ai 7: Node 22
// only, or another API) is what they get.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const packages = new URL('../../../packages/', import.meta.url).pathname;

interface Readme {
  readonly dir: string;
  readonly name: string;
  readonly peers: Readonly<Record<string, string>>;
  readonly text: string;
}

const readmes: Readme[] = readdirSync(packages)
  .filter((dir) => existsSync(join(packages, dir, 'README.md')))
  .map((dir) => {
    const pkg = JSON.parse(readFileSync(join(packages, dir, 'package.json'), 'utf8')) as { name: string; private?: boolean; peerDependencies?: Record<string, string> };
    return { dir, name: pkg.name, peers: pkg.private === true ? {} : (pkg.peerDependencies ?? {}), text: readFileSync(join(packages, dir, 'README.md'), 'utf8') };
  });

/** The commands of the README's ```sh blocks that install a package. */
function installLines(text: string): string[] {
  const lines: string[] = [];
  for (const block of text.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)) {
    for (const line of (block[1] ?? '').split('\n')) {
      const command = line.replace(/#.*$/, '').trim();
      if (/^(pnpm add|npm install|npm i|yarn add)\b/.test(command) && command.includes('@spillway/')) lines.push(command);
    }
  }
  return lines;
}

/** The package name of an install argument (`name@range` or `@scope/name@range`), and its range. */
function parseArgument(arg: string): { name: string; range: string | undefined } {
  const at = arg.indexOf('@', 1);
  return at === -1 ? { name: arg, range: undefined } : { name: arg.slice(0, at), range: arg.slice(at + 1) };
}

/** The first number of a range (`^4.1.0` → 4, `3.1175.0` → 3). */
function major(range: string): number | undefined {
  const m = /(\d+)/.exec(range);
  return m === null ? undefined : Number(m[1]);
}

const installing = readmes.filter((r) => installLines(r.text).length > 0);

describe('package READMEs: install lines', () => {
  it('finds the READMEs that install a package', () => {
    // The adapters, the backends and the suite at least; a parser that finds none checks nothing.
    expect(installing.map((r) => r.name)).toEqual(expect.arrayContaining(['@spillway/ai-sdk', '@spillway/langchain', '@spillway/conformance', '@spillway/local', '@spillway/search']));
  });

  it.each(installing.map((r) => [r.name, r] as const))('%s says how to install it from a clone until it is published', (_, readme) => {
    // The CLI is linked from a clone rather than packed into a project.
    const how = readme.name === '@spillway/cli' ? /pnpm link-cli/ : /pnpm pack:into/;
    expect(readme.text, `${readme.dir}/README.md installs from the registry`).toMatch(/not on the npm registry yet|once the package is published/);
    expect(readme.text, `${readme.dir}/README.md`).toMatch(how);
  });

  it.each(installing.map((r) => [r.name, r] as const))('%s pins each peer dependency it installs to the range it accepts', (_, readme) => {
    for (const line of installLines(readme.text)) {
      for (const arg of line.split(/\s+/).slice(2)) {
        if (arg.startsWith('-')) continue;
        const { name, range } = parseArgument(arg);
        const accepted = readme.peers[name];
        if (accepted === undefined || accepted.startsWith('workspace:')) continue;
        expect(range, `${readme.dir}/README.md: \`${line}\` installs ${name} unpinned; the package accepts ${accepted}`).toBeDefined();
        expect(major(range ?? ''), `${readme.dir}/README.md: ${arg} against ${accepted}`).toBe(major(accepted));
      }
    }
  });
});
