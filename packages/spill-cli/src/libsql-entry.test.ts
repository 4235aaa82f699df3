// The search bundle finds libsql without Node's resolution of `exports`, and must find the
// file Node would, or leave the finding to Node.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { libsqlEntryFrom } from './libsql-load.js';

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

const SEARCH_PACKAGE = { name: '@spillway/search', exports: { '.': './index.js', './package.json': './package.json' } };
const LIBSQL_EXPORTS = { '.': { types: './types/index.d.ts', default: './index.js' }, './promise': { default: './promise.js' } };

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
  roots = [];
});

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A package at `dir` with `package.json` and an `index.js` (and `cjs.js`) that name it. */
function pkg(dir: string, json: object): void {
  write(join(dir, 'package.json'), JSON.stringify(json));
  write(join(dir, 'index.js'), `module.exports = ${JSON.stringify(dir)};\n`);
  write(join(dir, 'cjs.js'), 'module.exports = "cjs";\n');
}

/** What Node's own resolution answers for the bundle at `file`, as the bundle asked before. */
function nodeAnswer(file: string): { owner: string; entry: string } {
  const owner = createRequire(file).resolve('@spillway/search/package.json');
  return { owner, entry: createRequire(owner).resolve('libsql') };
}

function tree(): { root: string; file: string } {
  const root = mkdtempSync(join(tmpdir(), 'spill-libsql-entry-'));
  roots.push(root);
  const file = join(root, 'app', 'node_modules', '@spillway', 'cli', 'dist', 'search-main.bundle.cjs');
  write(file, '');
  return { root, file };
}

describe('libsqlEntryFrom', () => {
  it('answers the file Node resolves from the built bundle', () => {
    const file = join(PACKAGE_DIR, 'dist', 'search-main.bundle.cjs');
    expect(libsqlEntryFrom(file)).toEqual(nodeAnswer(file));
  });

  it('answers what Node does for packages nested, hoisted, shadowed and linked', () => {
    const layouts: ((root: string) => void)[] = [
      // libsql beside @spillway/search, hoisted to the app's node_modules.
      (root) => {
        pkg(join(root, 'app', 'node_modules', '@spillway', 'search'), SEARCH_PACKAGE);
        pkg(join(root, 'app', 'node_modules', 'libsql'), { name: 'libsql', main: 'index.js', exports: LIBSQL_EXPORTS });
      },
      // A libsql of its own inside @spillway/search shadows the hoisted one; the search package higher up.
      (root) => {
        pkg(join(root, 'node_modules', '@spillway', 'search'), SEARCH_PACKAGE);
        pkg(join(root, 'node_modules', 'libsql'), { name: 'libsql', exports: LIBSQL_EXPORTS });
        pkg(join(root, 'node_modules', '@spillway', 'search', 'node_modules', 'libsql'), { name: 'libsql', exports: LIBSQL_EXPORTS });
      },
      // pnpm's layout: each package a link into a store, its dependencies beside it there.
      (root) => {
        const store = join(root, 'store');
        pkg(join(store, 'search', 'node_modules', '@spillway', 'search'), SEARCH_PACKAGE);
        pkg(join(store, 'libsql', 'node_modules', 'libsql'), { name: 'libsql', exports: LIBSQL_EXPORTS });
        mkdirSync(join(root, 'app', 'node_modules', '@spillway'), { recursive: true });
        symlinkSync(join(store, 'search', 'node_modules', '@spillway', 'search'), join(root, 'app', 'node_modules', '@spillway', 'search'));
        symlinkSync(join(store, 'libsql', 'node_modules', 'libsql'), join(store, 'search', 'node_modules', 'libsql'));
      },
    ];
    for (const layout of layouts) {
      const { root, file } = tree();
      layout(root);
      const found = libsqlEntryFrom(file);
      expect(found).toBeDefined();
      expect(found).toEqual(nodeAnswer(file));
    }
  });

  it('leaves the finding to Node where its answer could differ or is not found', () => {
    const shapes: unknown[] = [
      { '.': { require: './cjs.js', default: './index.js' } },
      { '.': { node: './cjs.js', default: './index.js' } },
      { '.': './index.js' },
      { '.': { default: './missing.js' } },
      { './promise': './promise.js' },
      undefined,
    ];
    for (const exports of shapes) {
      const { root, file } = tree();
      pkg(join(root, 'app', 'node_modules', '@spillway', 'search'), SEARCH_PACKAGE);
      pkg(join(root, 'app', 'node_modules', 'libsql'), { name: 'libsql', main: 'cjs.js', exports });
      expect(libsqlEntryFrom(file)).toBeUndefined();
    }
    const { file } = tree();
    expect(libsqlEntryFrom(file)).toBeUndefined();
  });
});
