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
});
