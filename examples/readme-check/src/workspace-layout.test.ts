import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The workspace's packages depend on each other one way: no package needs another, even only
// to test itself, that needs it back. Tests that put several packages together live in the
// top-level contract-tests workspace (tests/), which nothing depends on; whatever crosses
// packages, spawns a process or opens a socket is named *.e2e.test.ts there.

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

interface Manifest {
  readonly name: string;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
}

function manifests(): Manifest[] {
  const dirs = ['packages', 'examples'].flatMap((top) => fs.readdirSync(path.join(REPO, top)).map((dir) => path.join(REPO, top, dir)));
  return [...dirs, path.join(REPO, 'tests')]
    .map((dir) => path.join(dir, 'package.json'))
    .filter((file) => fs.existsSync(file))
    .map((file) => JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest);
}

/** The workspace's dependency graph, every kind of dependency counted. */
function graph(): Map<string, string[]> {
  const all = manifests();
  const names = new Set(all.map((m) => m.name));
  return new Map(all.map((m) => [m.name, Object.keys({ ...m.dependencies, ...m.devDependencies, ...m.peerDependencies, ...m.optionalDependencies }).filter((d) => names.has(d))]));
}

/** The strongly connected groups of more than one package (Tarjan's algorithm). */
export function loops(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w !== undefined) {
          onStack.delete(w);
          group.push(w);
        }
      } while (w !== undefined && w !== v);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Every source file under the workspace's packages, examples and contract tests. */
function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'dist' || e.name === 'corpus') continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  for (const top of ['packages', 'examples', 'tests']) walk(path.join(REPO, top));
  return out;
}

const STARTS_PROCESS = /\b(?:spawn|spawnSync|execFile|execFileSync|execSync|fork)\(|\bnew Worker\(\s*['"`]|\.listen\(/;

/**
 * The names of the functions that start a process or open a socket, as the helper files that
 * import `node:child_process` export them: a unit test that calls one is an e2e test.
 */
export function processStarters(files: readonly { readonly text: string }[]): Set<string> {
  const names = new Set<string>();
  for (const { text } of files) {
    if (!/from 'node:(?:child_process|net|http)'/.test(text)) continue;
    const parts = text.split(/\n(?=export )/);
    for (const part of parts) {
      const name = /^export (?:async )?function (\w+)/.exec(part)?.[1];
      if (name !== undefined && STARTS_PROCESS.test(part)) names.add(name);
    }
  }
  return names;
}

/** What in a unit test's text starts a process or opens a socket, or undefined. */
export function unitTestProblem(text: string, starters: ReadonlySet<string>): string | undefined {
  const direct = /from 'node:(?:child_process|net|http|https)'/.exec(text);
  if (direct !== null) return direct[0];
  for (const name of starters) if (new RegExp(`\\b${name}\\(`).test(text)) return `${name}(`;
  return undefined;
}

describe('the workspace layout', () => {
  it('finds a loop where there is one', () => {
    expect(loops(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
    expect(loops(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });

  it('has no dependency loop between packages, test-only dependencies included', () => {
    const edges = graph();
    expect(edges.size).toBeGreaterThan(20);
    expect(loops(edges)).toEqual([]);
  });

  it('nothing depends on the contract tests, and each of their files is an e2e test or a helper', () => {
    const edges = graph();
    expect([...edges.entries()].filter(([, deps]) => deps.includes('@spillway/contract-tests')).map(([name]) => name)).toEqual([]);
    const files = fs.readdirSync(path.join(REPO, 'tests', 'src'));
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => f.endsWith('.test.ts') && !f.endsWith('.e2e.test.ts'))).toEqual([]);
  });
  it('names a unit test that starts a process, directly or through a helper', () => {
    // Spelled in parts, so that this file is not one of the texts it judges.
    const CHILD_PROCESS = ['child', 'process'].join('_');
    const starters = processStarters([{ text: `import { spawn } from 'node:${CHILD_PROCESS}';\n` + "export function startsChild(s: string) {\n  return spawn('node', [s]);\n}\nexport function quiet() {\n  return 1;\n}" }]);
    expect([...starters]).toEqual(['startsChild']);
    expect(unitTestProblem("await startsChild('x');", starters)).toBe('startsChild(');
    const direct = `import { execFile } from 'node:${CHILD_PROCESS}';`;
    expect(unitTestProblem(direct, starters)).toBe(`from 'node:${CHILD_PROCESS}'`);
    expect(unitTestProblem('quiet();', starters)).toBeUndefined();
  });

  it('every test that starts a process or opens a socket is named *.e2e.test.ts', () => {
    const files = sourceFiles().map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }));
    const starters = processStarters(files.filter(({ file }) => !file.endsWith('.test.ts')));
    expect(starters.size).toBeGreaterThan(3);
    const unit = files.filter(({ file }) => file.endsWith('.test.ts') && !file.endsWith('.e2e.test.ts'));
    expect(unit.length).toBeGreaterThan(100);
    const offenders = unit.flatMap(({ file, text }) => {
      const problem = unitTestProblem(text, starters);
      return problem === undefined ? [] : [`${path.relative(REPO, file)}: ${problem}`];
    });
    expect(offenders).toEqual([]);
  });
});
