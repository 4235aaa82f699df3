// The memory backend promises browsers and edge runtimes: nothing it loads, in its own
// build or in any package it reaches, may import a Node built-in or use Node's globals.
// This walks the built module graph from dist/index.js as an ES module loader would
// (static imports, re-exports and dynamic imports, resolving packages by their `import`
// export condition) and reads every file's syntax tree.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Globals that exist only in Node: a reference to one, not behind `globalThis.`, fails outside it. */
const NODE_GLOBALS = new Set(['Buffer', 'process', 'require', '__dirname', '__filename', 'global', 'setImmediate']);
const BUILTINS = new Set(builtinModules);

interface Finding {
  readonly file: string;
  readonly what: string;
}

/** The export target of `subpath` in a package's `exports`, under the conditions a browser bundler uses. */
function exportTarget(exports: unknown, subpath: string): string | undefined {
  const pick = (target: unknown): string | undefined => {
    if (typeof target === 'string') return target;
    if (target === null || typeof target !== 'object') return undefined;
    for (const [condition, inner] of Object.entries(target)) {
      if (condition === 'import' || condition === 'browser' || condition === 'default') {
        const found = pick(inner);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  if (typeof exports === 'string' || (exports !== null && typeof exports === 'object' && !Object.keys(exports).some((k) => k.startsWith('.')))) {
    return subpath === '.' ? pick(exports) : undefined;
  }
  const map = exports as Record<string, unknown>;
  if (subpath in map) return pick(map[subpath]);
  for (const [key, target] of Object.entries(map)) {
    const star = key.indexOf('*');
    if (star === -1 || !subpath.startsWith(key.slice(0, star)) || !subpath.endsWith(key.slice(star + 1))) continue;
    const middle = subpath.slice(star, subpath.length - (key.length - star - 1));
    return pick(target)?.replace('*', middle);
  }
  return undefined;
}

/** Resolves a bare specifier from `importer` through node_modules and the package's `exports`. */
function resolvePackage(specifier: string, importer: string): string {
  const parts = specifier.split('/');
  const nameLength = specifier.startsWith('@') ? 2 : 1;
  const name = parts.slice(0, nameLength).join('/');
  const subpath = parts.length > nameLength ? `./${parts.slice(nameLength).join('/')}` : '.';
  for (let dir = dirname(importer); ; dir = dirname(dir)) {
    const pkgDir = join(dir, 'node_modules', name);
    if (existsSync(join(pkgDir, 'package.json'))) {
      const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { exports?: unknown; module?: string; main?: string };
      const target = pkg.exports !== undefined ? exportTarget(pkg.exports, subpath) : subpath === '.' ? (pkg.module ?? pkg.main ?? 'index.js') : subpath;
      if (target === undefined) throw new Error(`${name} does not export ${subpath} (imported by ${importer})`);
      return realpathSync(join(pkgDir, target));
    }
    if (dirname(dir) === dir) throw new Error(`cannot find the package ${name} from ${importer}`);
  }
}

/** Every file reached from `entry`, with each Node built-in it imports and each Node global it uses. */
function nodeDependencies(entry: string): { files: string[]; findings: Finding[] } {
  const seen = new Set<string>();
  const findings: Finding[] = [];
  const queue = [realpathSync(entry)];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
    const declared = new Set<string>();
    const specifiers: string[] = [];
    const visit = (node: ts.Node): void => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
        specifiers.push(node.moduleSpecifier.text);
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [arg] = node.arguments;
        if (arg !== undefined && ts.isStringLiteralLike(arg)) specifiers.push(arg.text);
        else findings.push({ file, what: 'an import() of a computed specifier' });
      } else if (
        (ts.isVariableDeclaration(node) || ts.isFunctionDeclaration(node) || ts.isParameter(node) || ts.isClassDeclaration(node) || ts.isImportSpecifier(node) || ts.isNamespaceImport(node) || ts.isImportClause(node)) &&
        node.name !== undefined &&
        ts.isIdentifier(node.name)
      ) {
        declared.add(node.name.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    const uses = (node: ts.Node): void => {
      if (ts.isIdentifier(node) && NODE_GLOBALS.has(node.text) && !declared.has(node.text)) {
        // A name (`x.process`, a method `process()`, a key) is no reference; `{ process }` is.
        const parent = node.parent as ts.Node & { readonly name?: ts.Node };
        const isName = parent.name === node && !ts.isShorthandPropertyAssignment(parent);
        if (!isName) findings.push({ file, what: `the Node global ${node.text}` });
      }
      ts.forEachChild(node, uses);
    };
    uses(source);
    for (const specifier of specifiers) {
      if (specifier.startsWith('node:') || BUILTINS.has(specifier)) findings.push({ file, what: `an import of ${specifier}` });
      else if (specifier.startsWith('.') || specifier.startsWith('/')) queue.push(realpathSync(join(dirname(file), specifier)));
      else queue.push(resolvePackage(specifier, file));
    }
  }
  return { files: [...seen], findings };
}

const ENTRY = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('the memory backend outside Node', () => {
  it('imports no Node built-in and uses no Node global, through every package it loads', () => {
    if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run pnpm build first.`);
    const { files, findings } = nodeDependencies(ENTRY);
    expect(findings).toEqual([]);
    // The walk reached the packages memory is built on, the naming rule's hash included.
    for (const reached of ['spill-core/dist/index.js', 'spill-backend-utils/dist/naming.js', 'spill-retrieval/dist/index.js', '@noble/hashes/sha2.js', 're2js/build/index.js']) {
      expect(files.some((f) => f.endsWith(reached)), reached).toBe(true);
    }
  });

  it('finds a built-in import, a Node global and a package that reaches one', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'spillway-portable-')));
    try {
      mkdirSync(join(dir, 'node_modules', 'dep'), { recursive: true });
      writeFileSync(join(dir, 'node_modules', 'dep', 'package.json'), JSON.stringify({ exports: { '.': { node: './node.js', import: './browser.js' }, './fs': './fs.js' } }));
      writeFileSync(join(dir, 'node_modules', 'dep', 'browser.js'), 'export const ok = globalThis.Buffer?.from("x");\n');
      writeFileSync(join(dir, 'node_modules', 'dep', 'node.js'), 'import "node:fs";\n');
      writeFileSync(join(dir, 'node_modules', 'dep', 'fs.js'), 'export { readFile } from "fs";\n');
      writeFileSync(
        join(dir, 'entry.js'),
        'import "dep";\nexport const b = Buffer.from("x");\nexport const load = () => import("dep/fs");\nclass H { process() {} }\nexport const env = { process };\n',
      );
      const { findings } = nodeDependencies(join(dir, 'entry.js'));
      expect(findings.map((f) => `${f.file.slice(dir.length + 1)}: ${f.what}`).sort()).toEqual([
        'entry.js: the Node global Buffer',
        'entry.js: the Node global process',
        'node_modules/dep/fs.js: an import of fs',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
